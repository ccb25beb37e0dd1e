"""No page shows a running match's seed or another seat's hand: the match page, its download, the admin.

A Sequence match between alice's and bob's bots is claimed (it runs) and
every viewer reads its page and its JSON download: nobody, alice, bob,
staff.  None finds the seed, nor a replay (hands) before the end: only the
live view of what spectators see.  The admin
shows the seed to an administrator only; a signed-in user who is not staff
is sent to its login page.  Once the match has finished, the pages show it.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.pages.support import make_bot, play_match
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.claim import match_claim
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db


def _client(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_pages_show_a_running_matchs_seed_to_nobody(games: None, alice: Any, bob: Any, staff: Any) -> None:
    bots = [make_bot(owner=alice, game="sequence", name="mine"), make_bot(owner=bob, game="sequence", name="theirs")]
    tournament = tournament_create(
        owner=alice, game_id="sequence", name="secrets", bot_ids=[b.id for b in bots], options={"max_plies": 40}
    )
    tournament_start(tournament=tournament, user=alice)
    match = Match.objects.filter(tournament=tournament).order_by("index").first()
    assert match is not None
    assert match_claim(match_id=match.id, worker="pages-test") is not None
    seed = str(match.seed)
    admin = get_user_model().objects.create_superuser(username="boss", password="boss-pw")

    for viewer in (None, alice, bob, staff, admin):
        client = _client(viewer)
        page = client.get(f"/matches/{match.id}/").content.decode()
        assert "Running" in page and "seed secret until the end" in page
        assert seed not in page, f"the match page shows the seed to {viewer}"
        # The live view only (tests/service/test_live_view.py): no replay, no hand, before the end.
        assert 'data-live="running"' in page and '"hands": {}' in page and '"hand"' not in page
        download = client.get(f"/matches/{match.id}/download/")
        assert download.status_code == 200 and json.loads(download.content)["seed"] is None
        assert seed not in download.content.decode()

    # The admin is for staff: a user who is not is sent to log in; an administrator reads the seed there.
    response = _client(bob).get(f"/admin/matches/match/{match.id}/change/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert seed not in response.content.decode()
    assert seed in _client(admin).get(f"/admin/matches/match/{match.id}/change/").content.decode()

    # Finished (and no other match plays its deal): the seed is anyone's, and the replay is there.
    Match.objects.filter(id=match.id).update(status=Match.Status.QUEUED)  # play_match claims it again
    play_match(match, rng=random.Random(3))
    page = _client(None).get(f"/matches/{match.id}/").content.decode()
    assert f"seed {seed}" in page and 'id="replay-data"' in page
