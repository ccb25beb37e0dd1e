"""The whole service over HTTP: a live server, PostgreSQL, Redis and two separate Celery workers.

A user signs up, uploads two bots, creates and starts a round robin, waits
for it, and reads standings and ratings.  The Elo values are recomputed
here, by hand from docs ratings.md, from the finished matches' ranks in
finish order.  Bots run in the real sandbox.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.live import Api, greedy_zip, random_bot
from tests.live.fixtures import LiveFactory

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=False)]

GAME = "gamesup"
WAIT_S = 180


@pytest.fixture
def service(live_processes: LiveFactory) -> Api:
    """The web server and two separate workers of two processes each: claims decide who plays what."""
    return live_processes(web="runserver", workers=2, concurrency=2, tag="e2e").api()


def _elo_by_hand(matches: list[dict[str, Any]]) -> dict[int, tuple[float, int]]:
    """ratings.md for two seats: E = 1 / (1 + 10 ** ((Rb - Ra) / 400)), K 40 under 30 games, delta K (S - E)."""
    elo: dict[int, float] = {}
    games: dict[int, int] = {}
    for match in matches:
        (a, rank_a), (b, rank_b) = [(p["bot_version"], p["rank"]) for p in match["players"]]
        ra, rb = elo.setdefault(a, 1500.0), elo.setdefault(b, 1500.0)
        score_a = 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
        expected_a = 1 / (1 + 10 ** ((rb - ra) / 400))
        ka = 40 if games.get(a, 0) < 30 else 20
        kb = 40 if games.get(b, 0) < 30 else 20
        elo[a] = ra + ka * (score_a - expected_a)
        elo[b] = rb + kb * ((1 - score_a) - (1 - expected_a))
        games[a] = games.get(a, 0) + 1
        games[b] = games.get(b, 0) + 1
    return {v: (elo[v], games[v]) for v in elo}


def test_round_robin_end_to_end(service: Api) -> None:
    signup = service.post_json("/api/users/", {"username": "erin", "password": "erin-pass-phrase"})
    token = service.post_json("/api/auth/token/", {"username": "erin", "password": "erin-pass-phrase"})["token"]
    assert token != signup["token"]  # each request issues a token of its own
    service.token = token

    random = service.upload_bot(GAME, "random", "random_bot.py", random_bot())
    # The opponent is another user's: games between one owner's bots are never rated.
    service.token = service.post_json("/api/users/", {"username": "gus", "password": "gus-pw-12"})["token"]
    greedy = service.upload_bot(GAME, "greedy", "greedy.zip", greedy_zip())
    service.token = token
    tournament = service.post_json(
        "/api/tournaments/",
        {
            "game": GAME,
            "name": "end to end",
            "participants": [random["id"], greedy["id"]],
            "format": "double",
            "games_per_pairing": 3,
            "move_ms": 2000,
            "game_ms": 30000,
            "startup_ms": 10000,
            "start": True,
        },
    )
    assert tournament["status"] == "running" and tournament["progress"]["total"] == 6
    tid = tournament["id"]

    tournament = service.wait_tournament(tid, WAIT_S)
    assert tournament["status"] == "finished", f"tournament still {tournament['status']}: {tournament['progress']}"
    assert tournament["progress"]["finished"] == 6, tournament["progress"]

    matches = service.all_pages(f"/api/matches/?tournament={tid}&order=finished")
    assert [m["status"] for m in matches] == ["finished"] * 6
    assert all(m["result_reason"] for m in matches)
    details = [service.get(f"/api/matches/{m['id']}/") for m in matches]
    assert all(d["moves"] for d in details)
    # Erin reads her own bot's stderr only; every seat played cleanly in the sandbox.
    players = [p for d in details for p in d["players"]]
    assert all(("stderr" in p) == (p["bot"] == random["id"]) for p in players)
    assert all(p["status"] in ("ok", "timeout") for p in players)

    expected = _elo_by_hand(matches)
    pool = tournament["rating_pool"]
    board = service.all_pages(f"/api/ratings/?game={GAME}&pool={pool}")
    assert {r["bot_version"] for r in board} == set(expected)
    for row in board:
        elo, games = expected[row["bot_version"]]
        assert row["elo"] == pytest.approx(elo, abs=1e-9), (row, elo)
        assert row["games"] == games == row["wins"] + row["draws"] + row["losses"]

    standings = service.get(f"/api/tournaments/{tid}/standings/")["standings"]
    assert sum(r["games"] for r in standings) == 12
    assert sum(r["points"] for r in standings) == pytest.approx(6.0)
    for row in standings:
        assert row["elo"] == pytest.approx(round(expected[row["bot_version"]][0], 2), abs=0.01)
    crosstable = service.get(f"/api/tournaments/{tid}/crosstable/")
    assert [c["games"] for row in crosstable["rows"] for c in row["cells"] if c] == [6, 6]


def _elo_by_hand_teams(matches: list[dict[str, Any]]) -> dict[int, tuple[float, int]]:
    """ratings.md for teams: team rating = mean of its distinct members; each member moves by
    K / (T - 1) * sum over the other teams of (S - E), with its own K, and counts one game."""
    elo: dict[int, float] = {}
    games: dict[int, int] = {}
    for match in matches:
        members: dict[int, list[int]] = {}
        rank: dict[int, int] = {}
        for player in match["players"]:
            team = members.setdefault(player["team"], [])
            if player["bot_version"] not in team:
                team.append(player["bot_version"])
            rank[player["team"]] = player["rank"]
        teams = sorted(members)
        rating = {t: sum(elo.setdefault(v, 1500.0) for v in members[t]) / len(members[t]) for t in teams}
        changed = {}
        for t in teams:
            surplus = 0.0
            for u in teams:
                if u != t:
                    actual = 1.0 if rank[t] < rank[u] else 0.5 if rank[t] == rank[u] else 0.0
                    surplus += actual - 1 / (1 + 10 ** ((rating[u] - rating[t]) / 400))
            for v in members[t]:
                k = 40 if games.get(v, 0) < 30 else 20
                changed[v] = elo[v] + k / (len(teams) - 1) * surplus
        for v, value in changed.items():
            elo[v] = value
            games[v] = games.get(v, 0) + 1
    return {v: (elo[v], games[v]) for v in elo}


def test_team_round_robins_end_to_end(service: Api) -> None:
    """Sequence for three players, and two teams of two where each bot fills both seats of its team."""
    # Each bot of its own owner, so that every game is rated; the last one organises.
    bots = []
    for owner, (name, filename, data) in zip(
        ("fay", "gil", "hal"),
        (("random", "random_bot.py", random_bot()), ("greedy", "greedy.zip", greedy_zip()),
         ("random-b", "random_b.py", random_bot() + b"\n")),
        strict=True,
    ):  # fmt: skip
        signup = {"username": owner, "password": f"{owner}-pass-phrase"}
        service.token = service.post_json("/api/users/", signup)["token"]
        bots.append(service.upload_bot("sequence", name, filename, data))
    common = {"game": "sequence", "move_ms": 2000, "game_ms": 60000, "startup_ms": 10000, "start": True}
    three = service.post_json(
        "/api/tournaments/",
        {**common, "participants": [b["id"] for b in bots], "seats": 3, "options": {"max_plies": 150},
         "games_per_pairing": 3},
    )  # fmt: skip
    pairs = service.post_json(
        "/api/tournaments/",
        {**common, "participants": [b["id"] for b in bots[:2]], "seats": 4,
         "options": {"teams": 2, "max_plies": 150}, "games_per_pairing": 2},
    )  # fmt: skip
    assert (three["progress"]["total"], pairs["progress"]["total"]) == (3, 2)
    for tournament in (three, pairs):
        done = service.wait_tournament(tournament["id"], WAIT_S)
        assert done["status"] == "finished" and done["progress"]["finished"] == done["progress"]["total"], done
        matches = service.all_pages(f"/api/matches/?tournament={tournament['id']}&order=finished")
        if tournament is pairs:
            for match in matches:  # one participant on both seats of its team
                by_team = {}
                for player in match["players"]:
                    by_team.setdefault(player["team"], set()).add(player["bot_version"])
                assert sorted(len(v) for v in by_team.values()) == [1, 1]
        expected = _elo_by_hand_teams(matches)
        board = service.all_pages(f"/api/ratings/?game=sequence&pool={done['rating_pool']}")
        assert {r["bot_version"] for r in board} == set(expected)
        for row in board:
            elo, games = expected[row["bot_version"]]
            assert row["elo"] == pytest.approx(elo, abs=1e-9), (row, elo)
            assert row["games"] == games == len(matches)
