"""The API shows no match's seed before the end: to nobody while it runs, and not while another match plays its deal.

A seed is the whole deal of a Sequence game, every hand and every card to
come, for anyone with the engines.  Every viewer is asked: anonymous, a user
with nothing to do with the match, the organiser (who owns seat 0's bot), the
owner of seat 1's bot, and staff (who read seeds in the admin, never here).
Every route that shows a match is read: the list, the list of the
tournament or challenge, the detail and the challenge's detail.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tests.recording import record_for
from tests.service.conftest import RANDOM_BOT
from tournaments.bots.services import bot_version_create
from tournaments.competitions.services.challenges import challenge_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.competitions.services.version_tests import version_test_create
from tournaments.matches.claim import match_claim
from tournaments.matches.models import Match
from tournaments.matches.record import match_record_error, match_record_result

VIEWERS = ("anonymous", "other", "owner", "rival", "staff")


@pytest.fixture
def people(user: Any, other: Any, staff: Any) -> dict[str, Any]:
    """Who reads: ``owner`` organises and owns seat 0's bot, ``rival`` owns seat 1's."""
    rival = get_user_model().objects.create_user(username="rival", password="rival-pw")
    return {"anonymous": None, "other": other, "owner": user, "rival": rival, "staff": staff}


def _client(user: Any) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def _shown(
    people: dict[str, Any], match: Match, *, lists: tuple[str, ...] = (), private: tuple[str, ...] = ()
) -> Iterator[tuple[str, str, Any]]:
    """(viewer, route, the seed that route shows ``match`` with) for every viewer and route, raw text checked.

    ``private`` routes are read by the seats' owners and staff only (a challenge's detail).
    """
    for viewer in VIEWERS:
        client = _client(people[viewer])
        routes = [f"/api/matches/{match.id}/", "/api/matches/", *lists]
        if viewer in ("owner", "rival", "staff"):
            routes += private
        for route in routes:
            response = client.get(route)
            assert response.status_code == 200, (viewer, route, response.status_code)
            body = response.json()
            found = [body] if "id" in body and "seed" in body else [*body.get("results", []), *body.get("matches", [])]
            mine = [m for m in found if m["id"] == match.id]
            assert len(mine) == 1, (viewer, route)
            if mine[0]["seed"] is None:
                assert str(match.seed) not in response.content.decode(), (viewer, route, "the seed is elsewhere")
            yield viewer, route, mine[0]["seed"]


def _claim(match: Match) -> int:
    attempt = match_claim(match_id=match.id, worker="test")
    assert attempt is not None
    return attempt


def _finish(match: Match, attempt: int, ranks: list[int]) -> None:
    """Record the claimed match's result, as its worker would."""
    assert match_record_result(match_id=match.id, attempt=attempt, record=record_for(match, ranks))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


def _sequence_bots(make_bot: Any, people: dict[str, Any]) -> tuple[Any, Any]:
    return make_bot(owner=people["owner"], game="sequence"), make_bot(owner=people["rival"], game="sequence")


def test_a_running_match_shows_its_seed_to_nobody(make_bot: Any, people: dict[str, Any]) -> None:
    mine, theirs = _sequence_bots(make_bot, people)
    tournament = tournament_create(owner=people["owner"], game_id="sequence", name="t", bot_ids=[mine.id, theirs.id])
    tournament_start(tournament=tournament, user=people["owner"])
    challenge = challenge_create(challenger=people["owner"], bot_id=mine.id, opponent_id=theirs.id, games=1)
    for match in Match.objects.filter(game_id="sequence"):
        assert match.status == Match.Status.QUEUED
        routes: dict[str, tuple[str, ...]] = {"lists": (f"/api/matches/?tournament={tournament.id}",)}
        if not match.tournament_id:
            routes = {
                "lists": (f"/api/matches/?challenge={challenge.id}",),
                "private": (f"/api/challenges/{challenge.id}/",),
            }
        # Queued, running, then finished: the seed appears only at the end, to everyone alike.
        assert {seed for *_, seed in _shown(people, match, **routes)} == {None}
        attempt = _claim(match)
        assert {seed for *_, seed in _shown(people, match, **routes)} == {None}
        _finish(match, attempt, [1, 2])
        assert {seed for *_, seed in _shown(people, match, **routes)} == {match.seed}


def test_an_errored_match_keeps_its_seed_for_it_may_run_again(make_bot: Any, people: dict[str, Any]) -> None:
    mine, theirs = _sequence_bots(make_bot, people)
    challenge = challenge_create(challenger=people["owner"], bot_id=mine.id, opponent_id=theirs.id, games=1)
    match = Match.objects.get(challenge_link__challenge=challenge)
    assert match_record_error(match_id=match.id, attempt=_claim(match), reason="no sandbox", retry=False) == "errored"
    assert {seed for *_, seed in _shown(people, match)} == {None}


@pytest.mark.parametrize("game", ["sequence", "gamesup"])
def test_a_finished_game_of_a_pair_shows_its_seed_once_its_twin_has_ended_if_the_seed_matters(
    game: str, make_bot: Any, people: dict[str, Any]
) -> None:
    """A version test's pair plays one deal twice: the first game's seed would show the second's hands.

    Sequence hides hands: the first game's seed stays hidden while its twin is
    queued, running or errored (it may run again), and shows once the twin has
    finished.  Gamesup hides nothing and draws nothing: its seed shows at the end.
    """
    owner = people["owner"]
    bot = make_bot(owner=owner, game=game, name="tested")
    bot_version_create(bot=bot, user=owner, package=RANDOM_BOT + b"\n# v2\n", filename="random_bot.py")
    test = version_test_create(user=owner, bot_id=bot.id, baseline_number=1, pairs_in_flight=1)
    first, second = Match.objects.filter(version_test_link__test=test).order_by("version_test_link__game")
    assert first.seed == second.seed
    want_hidden = {None} if game == "sequence" else {first.seed}

    _finish(first, _claim(first), [1, 2])
    assert {seed for *_, seed in _shown(people, first)} == want_hidden  # the twin is queued
    attempt = _claim(second)
    assert {seed for *_, seed in _shown(people, first)} == want_hidden  # the twin runs
    assert match_record_error(match_id=second.id, attempt=attempt, reason="no sandbox", retry=False) == "errored"
    assert {seed for *_, seed in _shown(people, first)} == want_hidden  # the twin may be queued again
    Match.objects.filter(id=second.id).update(status=Match.Status.QUEUED)  # as staff's re-queue does
    _finish(second, _claim(second), [2, 1])
    assert {seed for *_, seed in _shown(people, first)} == {first.seed}
    assert {seed for *_, seed in _shown(people, second)} == {first.seed}
