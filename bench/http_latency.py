"""API latency under concurrent load on a big database, beside a trivial endpoint under the same load.

The database (``<base>_bench_http``) holds 10,000 gamesup bots with one
version and one rating each, and 50 finished single round robins of 64 bots
(2,016 matches each: 100,800 finished matches, 201,600 seats).  It is seeded
with COPY the first time and kept between runs (``--reseed`` starts over);
``migrate`` runs every time, so new indexes reach it.

A real server serves it (the web of a live process set, ``tests.live``):
gunicorn (2 processes x 10 threads) when it is installed, else
``manage.py runserver --noreload`` (one process, a thread per connection).
``--clients`` client threads (20) each keep one connection open and send
requests back to back for ``--seconds`` per endpoint, after a short warm-up.
For each endpoint: p50 and p99 latency, requests per second, and the SQL
queries one request makes (counted in this process with CaptureQueriesContext
through Django's test client).  The baseline is the same load on a trivial
endpoint: an unknown API path, answered with the API's JSON 404 without
touching the database.

``--profile`` adds a cProfile of the slowest endpoint, run in this process.

    python -m bench.http_latency [--clients 20] [--seconds 8] [--profile] [--reseed]
"""

from __future__ import annotations

import argparse
import cProfile
import http.client
import importlib.util
import io
import pstats
import random
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench import _common
from kit import REFERENCE_BOTS

BOTS = 10_000
USERS = 100
TOURNAMENTS = 50
PER_TOURNAMENT = 64  # 64 * 63 / 2 = 2,016 matches each
MOVES_PER_MATCH = 20
SEED_VERSION = 1  # bump when the seeded shape changes
TARGET_P99_MS = 100.0
TARGET_STANDINGS_P99_MS = 300.0
GAME = "gamesup"


# -- seeding -------------------------------------------------------------------------


def _copy(model: Any, objects: list[Any]) -> None:
    """COPY model instances into their table, every concrete field as Django would save it."""
    from django.db import connection

    fields = model._meta.concrete_fields
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {model._meta.db_table} ({columns}) FROM STDIN") as cp:
        for obj in objects:
            cp.write_row([f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields])


def _seeded() -> bool:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('bench_seed')")
        if cursor.fetchone()[0] is None:
            return False
        cursor.execute("SELECT version FROM bench_seed")
        row = cursor.fetchone()
    return row is not None and row[0] == SEED_VERSION


def seed() -> float:
    """Fill the (migrated, empty) database; returns the seconds it took."""
    from django.contrib.auth import get_user_model
    from django.core.management.color import no_style
    from django.db import connection, transaction

    from engines import get_engine
    from tournaments.bots.models import Bot, BotVersion
    from tournaments.competitions.models import Participant, Tournament
    from tournaments.competitions.plans import round_robin_plan
    from tournaments.games.models import Game
    from tournaments.games.selectors import game_default_pool
    from tournaments.matches.models import Match, MatchSeat
    from tournaments.ratings.models import Rating

    start = time.perf_counter()
    rng = random.Random(20261122)
    seeds = random.Random(20261123)  # match seeds apart, so the other draws stay as they were
    engine = get_engine(GAME)
    game = Game.objects.get(id=GAME)
    pool = game_default_pool(game=game)
    options = engine.validate_options({}, 2)
    package = (REFERENCE_BOTS / "random_bot.py").read_bytes()
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    User = get_user_model()
    # Every row is built first and the transaction below only streams them: built inside it, a
    # loaded machine left the session idle in its transaction past the project's own timeout
    # (ARBITER_DB_IDLE_TX_TIMEOUT_S, 60 s) and the seeding failed.
    users = User.objects.bulk_create(
        [User(username=f"user{n:03d}", password="!") for n in range(USERS)], batch_size=1000
    )
    bots = [
        Bot(id=n + 1, owner_id=users[n % USERS].id, game_id=GAME, name=f"bot{n:05d}", created=t0) for n in range(BOTS)
    ]
    versions = [
        BotVersion(
            id=b.id, bot_id=b.id, number=1, package=package, filename="random_bot.py",
            checksum=f"{b.id:064x}", size=len(package), kind="file", command=["python3", "random_bot.py"],
        )
        for b in bots
    ]  # fmt: skip
    tournaments, entries, matches, seats = [], [], [], []
    games: dict[int, list[int]] = {v.id: [0, 0, 0] for v in versions}  # wins, draws, losses
    plan = round_robin_plan(participants=PER_TOURNAMENT, teams=2, games_per_group=1)
    match_id = seat_id = entry_id = 0
    for t in range(TOURNAMENTS):
        tournament = Tournament(
            id=t + 1, game_id=GAME, name=f"bench {t}", owner_id=users[t % USERS].id, options=options, seats=2,
            format="single", games_per_pairing=1, rating_pool=pool, status="finished",
            started=t0 + timedelta(days=t), finished=t0 + timedelta(days=t, hours=6),
        )  # fmt: skip
        tournaments.append(tournament)
        field = rng.sample(versions, PER_TOURNAMENT)
        for number, version in enumerate(field):
            entry_id += 1
            entries.append(Participant(id=entry_id, tournament_id=tournament.id, bot_version_id=version.id,
                                       number=number))  # fmt: skip
        started = tournament.started
        assert started is not None
        for index, lineup in enumerate(plan):
            match_id += 1
            finished = started + timedelta(seconds=index * 10)
            matches.append(
                Match(
                    id=match_id, tournament_id=tournament.id, index=index, game_id=GAME,
                    engine_version=engine.version, options=options, seats=2,
                    seed=seeds.getrandbits(63), rating_pool=pool,
                    status="finished", attempt=1, worker="bench", claimed_at=finished - timedelta(seconds=5),
                    heartbeat_at=finished, finished_at=finished, result_reason="bench",
                    moves=[{"seat": k % 2, "move": f"m{k}", "ms": 3} for k in range(MOVES_PER_MATCH)],
                )
            )  # fmt: skip
            u = rng.random()
            ranks = (1, 1) if u < 0.1 else (1, 2) if u < 0.55 else (2, 1)
            for seat, (who, rank) in enumerate(zip(lineup, ranks, strict=True)):
                seat_id += 1
                version_id = field[who].id
                seats.append(
                    MatchSeat(
                        id=seat_id, match_id=match_id, seat=seat, bot_version_id=version_id, team=seat,
                        rank=rank, status="ok", cpu_ms=40, peak_rss_kb=9000,
                    )
                )  # fmt: skip
                games[version_id][1 if ranks == (1, 1) else 0 if rank == 1 else 2] += 1
    ratings = []
    for n, version in enumerate(versions):
        wins, draws, losses = games[version.id]
        ratings.append(
            Rating(id=n + 1, bot_version_id=version.id, pool=pool, elo=round(rng.gauss(1500, 200), 2),
                   games=wins + draws + losses, wins=wins, draws=draws, losses=losses)
        )  # fmt: skip
    with transaction.atomic():
        for model, rows in (
            (Bot, bots), (BotVersion, versions), (Tournament, tournaments), (Participant, entries),
            (Match, matches), (MatchSeat, seats), (Rating, ratings),
        ):  # fmt: skip
            _copy(model, rows)
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(
                no_style(), [User, Bot, BotVersion, Tournament, Participant, Match, MatchSeat, Rating]
            ):
                cursor.execute(sql)
            cursor.execute("CREATE TABLE bench_seed (version integer NOT NULL)")
            cursor.execute("INSERT INTO bench_seed VALUES (%s)", [SEED_VERSION])
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return time.perf_counter() - start


def fits_store() -> int:
    """Store each tournament's performance table, as the workers do when matches finish; returns how many.

    Without them every standings request would fit the whole tournament on
    the spot, which a running service never does for a finished tournament.
    """
    try:
        from tournaments.competitions.models import PerformanceFit, Tournament
        from tournaments.competitions.services.performance import performance_refresh
    except ImportError:  # an older checkout without stored fits
        return 0
    done = set(PerformanceFit.objects.filter(computed_at__isnull=False).values_list("tournament_id", flat=True))
    missing = [t for t in Tournament.objects.order_by("id").values_list("id", flat=True) if t not in done]
    for tournament_id in missing:
        performance_refresh(tournament_id=tournament_id)
    return len(missing)


def prepare(reseed: bool) -> tuple[str, str]:
    """The bench database's (name, URL), seeded; Django is set up on it in this process."""
    name = _common.database_name("http")
    fresh = reseed or not _common.database_exists(name)
    url = _common.database_create(name) if fresh else _common.database_url(name)
    return name, url


# -- the load --------------------------------------------------------------------------


def web_server() -> tuple[str, str]:
    """gunicorn when installed, else runserver: (server, description)."""
    if importlib.util.find_spec("gunicorn") is not None:
        return "gunicorn", "gunicorn, 2 worker processes x 10 threads (gthread)"
    return (
        "runserver",
        "manage.py runserver --noreload (gunicorn is not installed): one process, a thread per connection",
    )


def load(port: int, path: str, clients: int, seconds: float, warmup: float = 1.0) -> dict[str, Any]:
    """Closed loop: ``clients`` threads, each with its own keep-alive connection, for ``seconds``."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients
    begin = time.perf_counter()
    measure_from, stop_at = begin + warmup, begin + warmup + seconds

    def client(k: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while True:
            t = time.perf_counter()
            if t >= stop_at:
                break
            try:
                conn.request("GET", path, headers={"Accept": "application/json"})
                response = conn.getresponse()
                response.read()
                ok = response.status in (200, 404)
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
            except (OSError, http.client.HTTPException):
                ok = False
                conn.close()
            if t >= measure_from:
                latencies[k].append(time.perf_counter() - t)
                errors[k] += not ok
        conn.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    flat = [x for per in latencies for x in per]
    return {
        "requests": len(flat),
        "errors": sum(errors),
        "rps": len(flat) / seconds,
        "p50": _common.percentile(flat, 50) * 1000,
        "p99": _common.percentile(flat, 99) * 1000,
    }


def one_request(path: str, repeat: int = 5) -> dict[str, Any]:
    """One request at a time through Django's test client, in this process (no load).

    SQL queries counted with CaptureQueriesContext; the median over ``repeat``
    requests of the whole request and of its SQL time, and the slowest query.
    The response cache is emptied before each request, so these figures are
    what computing a response costs (the load test shows what serving costs).
    """
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.get(path)  # warm: the first request may read things once per process
    runs = []
    for _ in range(repeat):
        cache.clear()
        with CaptureQueriesContext(connection) as captured:
            start = time.perf_counter()
            status = client.get(path, HTTP_ACCEPT="application/json").status_code
            total = time.perf_counter() - start
        queries = [(float(q["time"]), q["sql"]) for q in captured.captured_queries]
        runs.append((total, sum(t for t, _ in queries), queries, status))
    runs.sort(key=lambda r: r[0])
    total, sql, queries, status = runs[len(runs) // 2]
    slowest = max(queries, default=(0.0, ""))
    return {
        "queries": len(queries),
        "status": status,
        "total_ms": total * 1000,
        "sql_ms": sql * 1000,
        "slowest_ms": slowest[0] * 1000,
        "slowest": " ".join(slowest[1].split()[:4])[:40],
    }


def profile(path: str, requests: int = 20) -> str:
    """cProfile of ``requests`` requests to ``path`` in this process; the project's functions by cumulative time."""
    from django.test import Client

    client = Client()
    client.get(path)
    prof = cProfile.Profile()
    start = time.perf_counter()
    prof.enable()
    for _ in range(requests):
        client.get(path, HTTP_ACCEPT="application/json")
    prof.disable()
    elapsed = (time.perf_counter() - start) / requests * 1000
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("cumulative").print_stats(str(_common.ROOT / "tournaments"), 10)
    stats.sort_stats("tottime").print_stats(8)
    lines = [f"  cProfile of {path}, {requests} requests in-process ({elapsed:.1f} ms each under the profiler):"]
    lines.extend(f"    {line[:160]}" for line in out.getvalue().splitlines() if line.strip())
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Seed (once), serve, load each endpoint, print latencies beside the trivial endpoint's."""
    parser = argparse.ArgumentParser(prog="python -m bench.http_latency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--reseed", action="store_true", help="drop and seed the database again")
    args = parser.parse_args(argv)

    name, url = prepare(args.reseed)
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-") as tmp, _common.process_set(Path(tmp), url) as procs:
        _common.django_setup(procs.env(), migrate=True)
        if _seeded():
            print(f"database {name}: kept from an earlier run")
        else:
            if not args.reseed:  # something half-made is there: start over
                from django.db import connection

                connection.close()
                _common.database_create(name)
                from django.core.management import call_command

                call_command("migrate", verbosity=0, interactive=False)
            print(f"database {name}: seeded in {seed():.1f} s")
        stored = fits_store()
        if stored:
            print(f"  stored the performance table of {stored} tournaments")
        from tournaments.bots.models import Bot
        from tournaments.competitions.models import Tournament
        from tournaments.matches.models import Match

        tournament = Tournament.objects.order_by("id").values_list("id", flat=True).first()
        assert tournament is not None, "the database is seeded"
        seats = Match.objects.filter(tournament_id=tournament).values_list("match_seats__bot_version__bot_id")
        bot = seats[0][0]
        print(
            f"  {Bot.objects.count():,} bots, {Match.objects.filter(status='finished').count():,} finished matches, "
            f"{Tournament.objects.count()} tournaments of {PER_TOURNAMENT} bots"
        )
        endpoints = [
            ("trivial (JSON 404, no database)", "/api/bench-nothing-here/"),
            ("leaderboard (first page of 10,000)", f"/api/games/{GAME}/leaderboard/"),
            (f"standings ({PER_TOURNAMENT} bots, 2,016 matches)", f"/api/tournaments/{tournament}/standings/"),
            ("match list (newest first)", "/api/matches/"),
            ("match list of one tournament", f"/api/matches/?tournament={tournament}"),
            ("match list of one bot", f"/api/matches/?bot={bot}"),
        ]
        alone = {path: one_request(path) for _, path in endpoints}
        from django.db import connection

        connection.close()
        server, what = web_server()
        web = procs.web(server, processes=2, threads=10)
        procs.wait_ready("web", timeout=60)
        results = {}
        try:
            print(f"  server: {what}; {args.clients} clients, {args.seconds:.0f} s per endpoint, load {_common.load()}")
            for _, path in endpoints:
                results[path] = load(web.port, path, args.clients, args.seconds)
        finally:
            procs.stop("web")

        print(f"  {'endpoint':<40} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>8} {'errors':>7} {'queries':>8}")
        base = results[endpoints[0][1]]
        for label, path in endpoints:
            r = results[path]
            print(
                f"  {label:<40} {r['p50']:8.1f} {r['p99']:8.1f} {r['rps']:8.1f} {r['errors']:7d} "
                f"{alone[path]['queries']:8d}  ({r['p99'] / base['p99']:.1f}x the trivial p99; "
                f"status {alone[path]['status']})"
            )
        print("  one request at a time, in-process (median of 5): whole request, its SQL, the slowest query")
        for label, path in endpoints:
            a = alone[path]
            print(
                f"  {label:<40} {a['total_ms']:8.1f} ms  SQL {a['sql_ms']:6.1f} ms  "
                f"slowest {a['slowest_ms']:6.1f} ms  {a['slowest']}"
            )
        board = results[endpoints[1][1]]["p99"]
        print(f"  leaderboard p99 {board:.1f} ms (target < {TARGET_P99_MS:.0f} ms): "
              f"{_common.verdict(board < TARGET_P99_MS)}; load {_common.load()}")  # fmt: skip
        table = results[endpoints[2][1]]["p99"]
        print(f"  standings p99 {table:.1f} ms (target < {TARGET_STANDINGS_P99_MS:.0f} ms): "
              f"{_common.verdict(table < TARGET_STANDINGS_P99_MS)}")  # fmt: skip
        if args.profile:
            slowest = max(endpoints[1:], key=lambda e: results[e[1]]["p99"])[1]
            print(profile(slowest))
            connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
