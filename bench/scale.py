"""What one match costs the shared PostgreSQL: its CPU and its commits, with the referee taken out.

Stands in for many worker machines on one, in the shape that transfers to a
big deployment: ``N`` simulated workers (``--workers``, several values) all
play one shared round robin of ``--bots`` bots (1,000, each of its own owner,
so every match is rated and the rating rows are spread as they are in a big
pool), each in a loop of claim (``match_claim_next``), one lease renewal and
record (``match_record_result``) with a referee that answers at once.  They
reach PostgreSQL through a PgBouncer this benchmark starts (Debian's
``pgbouncer``, session pooling, its own configuration in a temporary
directory, stopped at the end), and they open and close their connection the
way a Celery worker does (Celery's Django fix-up closes it after every task
unless ``CELERY_DB_REUSE_MAX`` is set: then every that many tasks).

Measured at each N, over the timed window: matches recorded per second;
PostgreSQL CPU per match (user + system time of this database's backends,
read from /proc; the server's shared background processes are left out);
commits per match and per second (``pg_stat_database``); claim and record
latency.  Baseline in the same run: the same N processes doing ``SELECT 1``
round trips through the same PgBouncer.

Where the machine has the CPUs, the database's backends are pinned to the
first half of them and the simulated workers and PgBouncer to the rest
(``sched_setaffinity``, as ``taskset`` does; only this benchmark's own
backends are moved, the shared server's others are left alone).

    python -m bench.scale [--workers 8 --workers 32] [--seconds 10] [--bots 1000] [--keep]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import _common, _postgres
from kit import REFERENCE_BOTS

DEFAULT_WORKERS = (8, 32)
# Queued matches per simulated worker and second of the window: none runs dry.
MATCHES_PER_WORKER_SECOND = 40


# -- the simulated workers ----------------------------------------------------------------


def _setup(bots: int) -> tuple[Any, list[int]]:
    """``bots`` bots, each of its own owner, and a staff organiser (a public, rated pool)."""
    from django.contrib.auth import get_user_model

    from tournaments.bots.services import bot_create

    User = get_user_model()
    package = (REFERENCE_BOTS / "random_bot.py").read_bytes()
    owners = User.objects.bulk_create([User(username=f"scale{n}", password="!") for n in range(bots)])
    ids = [
        bot_create(owner=owner, game_id="gamesup", name=f"s{n}", package=package, filename="b.py").bot_id
        for n, owner in enumerate(owners)
    ]
    organiser = User.objects.create_user(username="scale-organiser", password="!", is_staff=True)
    return organiser, ids


def _tournament(organiser: Any, bot_ids: list[int]) -> Any:
    """The one shared round robin; its matches are inserted as they are needed (``_fill``)."""
    from tournaments.competitions.services.tournaments import tournament_create, tournament_start

    tournament = tournament_create(
        owner=organiser, game_id="gamesup", name="scale", bot_ids=bot_ids, games_per_pairing=1, format="single"
    )
    return tournament_start(tournament=tournament, user=organiser)


def _fill(tournament_id: int, count: int) -> None:
    """Insert the next ``count`` matches of the plan, as the fill task does a batch."""
    from django.db import transaction

    from tournaments.competitions.models import Tournament
    from tournaments.competitions.services.tournaments import tournament_matches_insert
    from tournaments.matches.models import Match

    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        have = Match.objects.filter(tournament_id=tournament_id).count()
        tournament_matches_insert(tournament=tournament, start=have, stop=have + count)


def _record(match_id: int) -> Any:
    """What a referee returns for a short win of seat 0: the service's cost without the game."""
    from tournaments.matches.models import Match
    from workers.match import MatchRecord, MoveRecord, SeatRecord, SeatStatus, Termination

    match = Match.objects.only("id", "game_id", "seats", "options", "seed").get(id=match_id)
    return MatchRecord(
        engine_id=match.game_id,
        engine_version="",
        seats=match.seats,
        options=dict(match.options),
        seed=match.seed,
        ranks=[1] + [2] * (match.seats - 1),
        scores=None,
        termination=Termination.RULES,
        reason="scale benchmark",
        seat_records=[SeatRecord(seat=i, status=SeatStatus.OK, stderr="") for i in range(match.seats)],
        moves=[MoveRecord(seat=0, move="x", ms=1)],
        match_id=str(match.pk),
    )


def _reuse_max() -> int:
    """Tasks a Celery worker's connection is kept for (0: closed after every task), as its Django fix-up does."""
    from workers.celery_app import app

    return int(app.conf.get("CELERY_DB_REUSE_MAX") or 0)


_BARRIER: Any = None


def _worker_start(barrier: Any, cpus: set[int] | None) -> None:
    """In each pool process: die with the benchmark, run on the workers' CPUs, keep the start barrier."""
    global _BARRIER
    _postgres.die_with_parent()
    if cpus:
        os.sched_setaffinity(0, cpus)
    _BARRIER = barrier


def _worker(job: tuple[dict[str, str], str, float, int]) -> dict[str, Any]:
    """One simulated worker: ``mode`` in a loop for ``seconds`` once all are ready; its counts and latencies."""
    env, mode, seconds, index = job
    barrier = _BARRIER
    _common.django_setup(env)
    from django.db import connection

    from tournaments.matches.claim import match_claim_next
    from tournaments.matches.life import match_heartbeat
    from tournaments.matches.record import match_record_result

    worker = f"scale-{index}"
    reuse, since_close = _reuse_max(), 0
    claims: list[float] = []
    records: list[float] = []
    done = missed = 0
    barrier.wait()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if mode == "select":
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            done += 1
            continue
        t0 = time.perf_counter()
        claimed = match_claim_next(worker=worker)
        t1 = time.perf_counter()
        if claimed is None:
            # Lost every round to the other workers (or the queue ran dry): a real worker's message
            # would go back to the dispatcher; this one tries again, and the miss is counted.
            missed += 1
            continue
        match_id, attempt = claimed[0], claimed[1]  # (a claim may also carry the spec)
        match_heartbeat(match_id=match_id, attempt=attempt)
        record = _record(match_id)
        t2 = time.perf_counter()
        match_record_result(match_id=match_id, attempt=attempt, record=record)
        claims.append(t1 - t0)
        records.append(time.perf_counter() - t2)
        done += 1
        # After the task, as Celery's Django fix-up: closed, or kept for 2 x CELERY_DB_REUSE_MAX tasks.
        since_close += 1
        if not reuse or since_close >= 2 * reuse:
            connection.close()
            since_close = 0
    connection.close()
    return {"done": done, "missed": missed, "claims": claims, "records": records}


def _run(
    env: dict[str, str], mode: str, workers: int, seconds: float, backends: _postgres.Backends, cpus: set[int] | None
) -> dict[str, Any]:
    """``workers`` processes in ``mode`` for ``seconds``: rate, database CPU and commits, latencies."""
    ctx = multiprocessing.get_context("spawn")
    backends.end_all()
    commits_before = backends.commits()
    barrier = ctx.Barrier(workers + 1)
    with ctx.Pool(workers, initializer=_worker_start, initargs=(barrier, cpus)) as pool:
        pending = pool.map_async(_worker, [(env, mode, seconds, i) for i in range(workers)])
        barrier.wait()
        backends.watch()
        results = pending.get()
        cpu = backends.stop()
    backends.end_all()  # their counts are flushed as they exit
    done = sum(r["done"] for r in results)
    return {
        "rate": done / seconds,
        "done": done,
        "missed": sum(r.get("missed", 0) for r in results),
        "cpu": cpu,
        "commits": backends.commits() - commits_before,
        "claims": [c for r in results for c in r["claims"]],
        "records": [c for r in results for c in r["records"]],
    }


def _ms(values: list[float], p: float) -> str:
    return f"{1000 * _common.percentile(values, p):6.1f}" if values else "     -"


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)  # the finally blocks drop the database and stop PgBouncer


def main(argv: list[str] | None = None) -> int:
    """Measure each ``--workers`` count on one shared round robin through PgBouncer; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, action="append", help="simulated workers (repeat for several)")
    parser.add_argument("--seconds", type=float, default=10.0, help="timed window per measurement")
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args(argv)
    counts = args.workers or list(DEFAULT_WORKERS)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _terminate)

    if shutil.which("pgbouncer") is None:
        print("bench.scale needs PgBouncer: apt-get install pgbouncer (Debian's package)", file=sys.stderr)
        return 1
    _postgres.drop_leftovers()
    name = _common.database_name(f"scale_{os.getpid()}")
    database = _common.database_create(name)
    db_cpus, worker_cpus, split = _postgres.cpu_split()
    if worker_cpus:
        os.sched_setaffinity(0, worker_cpus)
    try:
        with (
            tempfile.TemporaryDirectory(prefix=f"{_postgres.TMP_PREFIX}{os.getpid()}-") as tmp,
            _common.process_set(Path(tmp), database) as procs,
            _postgres.pgbouncer(_common.server_url(), name, max(counts) + 4, worker_cpus) as bounced,
        ):
            env = procs.env()
            # One shared round robin of every bot: far more matches than one user may queue by default.
            env.update(
                ARBITER_TOURNAMENT_MAX_PARTICIPANTS=str(args.bots),
                ARBITER_TOURNAMENT_MAX_MATCHES=str(args.bots * args.bots),
                ARBITER_QUEUED_MATCHES_PER_USER=str(args.bots * args.bots),
            )
            _common.django_setup(env, migrate=True)
            organiser, bot_ids = _setup(args.bots)
            tournament = _tournament(organiser, bot_ids)
            from django.db import connection

            connection.close()
            through = {**env, "DATABASE_URL": bounced}
            backends = _postgres.Backends(_common.database_url("postgres"), name, db_cpus)
            reuse = _reuse_max()
            print(
                f"{_common.machine()}; one PostgreSQL through PgBouncer (session pooling); one round robin of "
                f"{args.bots} bots of {args.bots} owners, gamesup, rated"
            )
            print(f"  {split}")
            print(
                "  connections: "
                + (f"kept for {2 * reuse} matches (CELERY_DB_REUSE_MAX={reuse})" if reuse else "a new one per match")
                + f"; {args.seconds:.0f} s per measurement"
            )
            print(
                "  workers  SELECT 1/s  matches/s  ratio  db CPU ms/match  commits/match  commits/s"
                "  claim p50/p99 ms  record p50/p99 ms  claims lost"
            )
            per_match = []
            try:
                for n in counts:
                    _fill(tournament.pk, int(n * args.seconds * MATCHES_PER_WORKER_SECOND))
                    connection.close()
                    base = _run(through, "select", n, args.seconds, backends, worker_cpus)
                    run = _run(through, "match", n, args.seconds, backends, worker_cpus)
                    done = max(run["done"], 1)
                    ratio = base["rate"] / max(run["rate"], 1e-9)
                    print(
                        f"  {n:7d}  {base['rate']:10,.0f}  {run['rate']:9,.1f}  {ratio:4.0f}x"
                        f"  {1000 * run['cpu'] / done:15.2f}  {run['commits'] / done:13.1f}"
                        f"  {run['commits'] / args.seconds:9,.0f}"
                        f"  {_ms(run['claims'], 50)} /{_ms(run['claims'], 99)}"
                        f"  {_ms(run['records'], 50)} /{_ms(run['records'], 99)}  {run['missed']:11d}"
                    )
                    cpu_ms, commits = 1000 * run["cpu"] / done, run["commits"] / done
                    per_match.append(f"{n} workers {cpu_ms:.2f} ms, {commits:.1f} commits")
            finally:
                backends.close()
            print(f"  per match: database CPU and commits, {'; '.join(per_match)}")
            print(f"  load after: {_common.load()}")
            print(
                "  (ratio: SELECT 1 round trips per recorded match at the same concurrency; db CPU: this "
                "database's backends only)"
            )
    finally:
        if not args.keep:
            _common.database_drop(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
