"""A bot whose owner asked to be asked: another user's challenge waits, then plays on "accept" or never on
"decline"; in the browser each side reads its own score."""

from __future__ import annotations

from typing import Any

from django.test import Client

from tests.service.conftest import ranks_by_version
from tournaments.competitions.models import Challenge
from tournaments.matches.models import Match


def _browser(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_challenge_waits_for_the_owners_answer_and_each_side_reads_its_own_score(
    user: Any, other: Any, make_bot: Any, play: Any
) -> None:
    mine = make_bot(name="challenger")
    theirs = make_bot(owner=other, name="asker")
    owner, challenger = _browser(other), _browser(user)
    owner.post(f"/bots/{theirs.id}/settings/", {"visibility": "public", "challenges_ask": "on"})
    theirs.refresh_from_db()
    assert theirs.challenges_ask

    assert challenger.post("/challenges/new/", {"bot": mine.id, "opponent": theirs.id, "games": 2}).status_code == 302
    first = Challenge.objects.get()
    assert first.answer == "pending" and not Match.objects.exists()
    challenger.post("/challenges/new/", {"bot": mine.id, "opponent": theirs.id, "games": 2})
    second = Challenge.objects.exclude(id=first.id).get()
    assert challenger.post(f"/challenges/{first.id}/accept/").status_code == 302
    assert Challenge.objects.get(id=first.id).answer == "pending"  # only the opponent's owner answers

    page = owner.get("/challenges/").content.decode()
    assert f'action="/challenges/{first.id}/accept/"' in page
    owner.post(f"/challenges/{first.id}/accept/")
    owner.post(f"/challenges/{second.id}/decline/")
    assert Challenge.objects.get(id=first.id).answer == "accepted"
    assert Challenge.objects.get(id=second.id).answer == "declined"
    assert not Match.objects.filter(challenge_link__challenge_id=second.id).exists()
    matches = list(Match.objects.filter(challenge_link__challenge_id=first.id))
    assert len(matches) == 2 and all(m.status == "queued" for m in matches)
    for match in matches:
        play(match, ranks_by_version(match, first.opponent_version_id))  # the challenged bot wins both

    def row(client: Client, table: str, challenge: Challenge) -> str:
        page = client.get("/challenges/").content.decode()
        section = page.split(f'id="{table}"')[1].split("</table>")[0]
        return section.split(f'data-challenge="{challenge.id}"')[1].split("</tr>")[0]

    def wdl(html: str) -> list[str]:
        return [html.split(f'class="num {k}">')[1].split("<")[0] for k in ("wins", "draws", "losses")]

    assert wdl(row(owner, "incoming", first)) == ["2", "0", "0"]
    assert wdl(row(challenger, "outgoing", first)) == ["0", "0", "2"]
    assert ">declined<" in row(challenger, "outgoing", second)
