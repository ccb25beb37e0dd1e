"""Server time per page for a tournament of 50 bots, in-process with Django's test client.

A throwaway SQLite database (under a temporary ARBITER_VAR_DIR) is filled
through the ORM's bulk_create: 50 bots, a double round robin with two games
a pairing (4,900 finished matches), ratings and every rating change, plus
two matches really played by the engines for the replay pages.  Each page is
then fetched repeatedly; the baseline, measured in the same run, is a view
that returns a fixed string through the same middleware.  Target: under
200 ms a page.

    python -m bench.pages [--bots 50] [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from typing import Any

# Set up Django on a scratch database before anything imports the settings.
if __name__ == "__main__":
    import atexit
    import shutil

    os.environ["ARBITER_VAR_DIR"] = tempfile.mkdtemp(prefix="arbiter-bench-pages-")
    atexit.register(shutil.rmtree, os.environ["ARBITER_VAR_DIR"], ignore_errors=True)
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "SECRET_KEY"):
        os.environ.pop(name, None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "tournaments.settings"
    import django

    django.setup()

from django.http import HttpRequest, HttpResponse
from django.urls import path


def ping(request: HttpRequest) -> HttpResponse:
    """The baseline: middleware and URL routing, no query, no template."""
    return HttpResponse("ok")


def _urlpatterns() -> list[Any]:
    from tournaments.urls import urlpatterns as site

    return [path("bench/ping/", ping), *site]


def __getattr__(name: str) -> Any:
    # This module is the ROOT_URLCONF during the run; build the patterns lazily.
    if name == "urlpatterns":
        return _urlpatterns()
    raise AttributeError(name)


def populate(bots: int, seed: int = 1) -> dict[str, Any]:
    """Fill the database; returns the ids the pages need."""
    from django.contrib.auth import get_user_model

    from engines import get_engine
    from tournaments.bots.models import Bot, BotVersion
    from tournaments.competitions.models import Participant, Tournament
    from tournaments.competitions.plans import round_robin_plan
    from tournaments.dbclock import db_clock
    from tournaments.games.services import game_sync
    from tournaments.matches.models import Match, MatchSeat
    from tournaments.ratings.models import Rating, RatingChange

    rng = random.Random(seed)
    game_sync()
    owner = get_user_model().objects.create_user(username="bench", password="bench-pw")
    game = "gamesup"
    engine = get_engine(game)
    pool = engine.rating_pool({}, 2)
    bot_rows = Bot.objects.bulk_create([Bot(owner=owner, game_id=game, name=f"bot{i:03d}") for i in range(bots)])
    versions = BotVersion.objects.bulk_create(
        [
            BotVersion(bot=b, number=1, package=b"print()\n", filename="main.py", checksum="0" * 64, size=8)
            for b in bot_rows
        ]
    )
    now = db_clock()
    tournament = Tournament.objects.create(
        game_id=game, name="bench", owner=owner, options=engine.validate_options({}, 2), seats=2,
        format="double", games_per_pairing=2, rating_pool=pool, status="finished", started=now, finished=now,
    )  # fmt: skip
    Participant.objects.bulk_create(
        [Participant(tournament=tournament, bot_version=v, number=i) for i, v in enumerate(versions)]
    )
    plan = round_robin_plan(participants=bots, teams=2, games_per_group=2, legs=2)
    matches = Match.objects.bulk_create(
        [
            Match(tournament=tournament, index=i, game_id=game, engine_version=engine.version, options={}, seats=2,
                  seed=i, rating_pool=pool, status="finished", attempt=1, finished_at=now,
                  result_reason="target score reached")
            for i in range(len(plan))
        ],
        batch_size=500,
    )  # fmt: skip
    seats = []
    results = []
    for match, lineup in zip(matches, plan, strict=True):
        outcome = rng.choice([(1, 2), (2, 1), (1, 1)])
        results.append((match, lineup, outcome))
        for seat in (0, 1):
            seats.append(
                MatchSeat(match=match, seat=seat, team=seat, bot_version=versions[lineup[seat]],
                          rank=outcome[seat], status="ok", cpu_ms=rng.randint(1, 500))
            )  # fmt: skip
    MatchSeat.objects.bulk_create(seats, batch_size=1000)
    # Elo moves a little each game; every change is kept, as the services keep them.
    elo = dict.fromkeys(range(bots), 1500.0)
    tally = {i: [0, 0, 0] for i in range(bots)}
    history: list[tuple[int, int, float, float]] = []
    for match, lineup, outcome in results:
        a, b = lineup
        expected = 1 / (1 + 10 ** ((elo[b] - elo[a]) / 400))
        score = 1.0 if outcome == (1, 2) else 0.0 if outcome == (2, 1) else 0.5
        delta = 20 * (score - expected)
        for who, d, r in ((a, delta, outcome[0]), (b, -delta, outcome[1])):
            history.append((who, match.id, elo[who], elo[who] + d))
            elo[who] += d
            tally[who][0 if outcome[0] == outcome[1] else 1 if r == 1 else 2] += 1
    ratings = Rating.objects.bulk_create(
        [
            Rating(bot_version=versions[i], pool=pool, elo=elo[i], games=sum(tally[i]), draws=tally[i][0],
                   wins=tally[i][1], losses=tally[i][2])
            for i in range(bots)
        ]
    )  # fmt: skip
    RatingChange.objects.bulk_create(
        [
            RatingChange(rating=ratings[who], match_id=mid, before=before, after=after, delta=after - before, k=20)
            for who, mid, before, after in history
        ],
        batch_size=1000,
    )
    # Matches with real moves for the replay pages: a Game's Up!, a four-seat Sequence and a
    # full-length Stacks game (600 plies, the longest default).
    replays = {}
    for gid, n, options in (("gamesup", 2, {}), ("sequence", 4, {"teams": 2}), ("flagstacks", 2, {})):
        eng = get_engine(gid)
        state = eng.new_state(options, seed=seed, seats=n)
        moves = []
        while not state.is_terminal():
            mover = state.to_move()
            move = rng.choice(state.legal_moves())
            state.apply(move)
            moves.append({"seat": mover, "move": move, "ms": rng.randint(1, 900)})
        full = eng.validate_options(options, n)
        result = state.result()
        assert result is not None
        match = Match.objects.create(
            game_id=gid, engine_version=eng.version, options=full, seats=n, seed=seed,
            rating_pool=eng.rating_pool(full, n), rated=False, status="finished", attempt=1, finished_at=now,
            moves=moves, result_reason=result.reason,
        )  # fmt: skip
        teams = eng.teams(n, full)
        team_of = {s: t for t, members in enumerate(teams) for s in members}
        MatchSeat.objects.bulk_create(
            [
                MatchSeat(match=match, seat=s, team=team_of[s], bot_version=versions[team_of[s]],
                          rank=result.ranks[s], status="ok")
                for s in range(n)
            ]
        )  # fmt: skip
        replays[gid] = (match.id, len(moves))
    # As in production once its matches are in: the performance table is fitted and stored by the worker.
    from tournaments.competitions.services.performance import performance_refresh

    performance_refresh(tournament_id=tournament.id)
    return {"tournament": tournament.id, "bot": bot_rows[0].id, "pool": pool, "matches": len(matches),
            "replays": replays}  # fmt: skip


def yardstick_ms(runs: int) -> float:
    """Best time of a fixed pure-Python loop: how fast this machine is right now (it is shared)."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        total = 0
        for i in range(200_000):
            total += i % 7
        best = min(best, (time.perf_counter() - start) * 1000)
    return best


def measure(client: Any, url: str, runs: int) -> tuple[float, float, int, int]:
    """Median and best milliseconds over ``runs`` fetches (after one warm-up), queries, bytes."""
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    # Each request clears the query log when it starts: start the capture from an empty log.
    reset_queries()
    with CaptureQueriesContext(connection) as ctx:
        client.get(url)
    queries = len(ctx.captured_queries)  # now: the next request clears the log
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        client.get(url)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times), queries, len(response.content)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)

    from django.core.management import call_command
    from django.test import Client, override_settings

    call_command("migrate", verbosity=0)
    start = time.perf_counter()
    ids = populate(args.bots)
    print(
        f"populated {args.bots} bots, {ids['matches']} finished matches in {time.perf_counter() - start:.1f} s "
        f"(SQLite under {os.environ.get('ARBITER_VAR_DIR')})"
    )
    pages = [
        ("baseline: trivial view", "/bench/ping/"),
        ("games index", "/games/"),
        ("leaderboard", f"/games/gamesup/leaderboard/?pool={ids['pool']}"),
        ("tournament", f"/tournaments/{ids['tournament']}/"),
        ("tournament live part", f"/tournaments/{ids['tournament']}/live/"),
        ("bot", f"/bots/{ids['bot']}/"),
    ]
    for gid, (match_id, plies) in ids["replays"].items():
        pages.append((f"match replay {gid} ({plies} plies)", f"/matches/{match_id}/"))
    with override_settings(ROOT_URLCONF=__name__, DEBUG=False):
        client = Client()
        loop, load = yardstick_ms(args.runs), os.getloadavg()[0]
        print(f"machine right now: a 200,000-step Python loop takes {loop:.1f} ms at best; load average {load:.1f}")
        print(f"{'page':<36} {'median ms':>10} {'best ms':>8} {'queries':>8} {'KiB':>7}")
        for label, url in pages:
            median, best, queries, size = measure(client, url, args.runs)
            flag = "" if label.startswith("baseline") or median < 200 else "  over the 200 ms target"
            print(f"{label:<36} {median:>10.1f} {best:>8.1f} {queries:>8} {size / 1024:>7.1f}{flag}")
        # Where the tournament page's time goes: the two selectors it calls, each on its own.
        from tournaments.competitions.models import Tournament
        from tournaments.competitions.selectors.standings import tournament_crosstable, tournament_standings

        tournament = Tournament.objects.get(id=ids["tournament"])
        for label, selector in (("  selector tournament_standings", tournament_standings),
                                ("  selector tournament_crosstable", tournament_crosstable)):  # fmt: skip
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                selector(tournament=tournament)
                times.append((time.perf_counter() - start) * 1000)
            print(f"{label:<36} {statistics.median(times):>10.1f} {min(times):>8.1f}")


if __name__ == "__main__":
    sys.modules.setdefault("bench.pages", sys.modules["__main__"])
    main()
