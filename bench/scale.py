"""How many workers one PostgreSQL serves: the service's own work per match, with the referee taken out.

Stands in for many worker machines on one: ``N`` processes (``--workers``,
several values) each loop over claim (``match_claim_next``, the fair-share
queue), one lease renewal, and record (``match_record_result``: seats,
Elo, rating changes) against one throwaway PostgreSQL database, with a
referee that answers at once.  What is left is exactly what every real
match costs the shared database, so the rate it sustains bounds the number
of worker machines (docs/operations.md turns it into a plan).

Measured at each N: matches recorded per second, claim and record latency
(p50/p99), and lease renewals per second when the same N processes do
nothing else.  Baseline in the same run: the same N processes doing
``SELECT 1`` round trips, the least a statement can cost here.

    python -m bench.scale [--workers 4 --workers 8 --workers 16 --workers 32] [--seconds 5] [--keep]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import _common
from kit import REFERENCE_BOTS

DEFAULT_WORKERS = (4, 8, 16, 32)
# Enough queued matches that no worker runs dry within the timed window.
MATCHES_PER_WORKER_SECOND = 60


def _setup(bots: int) -> tuple[list[Any], list[int]]:
    from django.contrib.auth import get_user_model

    from tournaments.bots.services import bot_create

    package = (REFERENCE_BOTS / "random_bot.py").read_bytes()
    owners, ids = [], []
    for n in range(bots):
        # One owner per bot: games between one owner's bots may be unrated, and these must be rated.
        owner = get_user_model().objects.create_user(username=f"scale{n}", password="scale-pw")
        ids.append(bot_create(owner=owner, game_id="gamesup", name=f"s{n}", package=package, filename="b.py").bot_id)
        owners.append(owner)
    return owners, ids


def _schedule(owners: list[Any], bot_ids: list[int], matches: int, tournaments: int) -> None:
    """``tournaments`` round robins of different owners, ``matches`` in all.

    Recording locks the match's tournament row, so the matches of one
    tournament are recorded one at a time; a service with many workers runs
    many tournaments, and so does this benchmark (one per simulated worker).
    """
    from tournaments.competitions.services.tournaments import tournament_create, tournament_start

    pairs = len(bot_ids) * (len(bot_ids) - 1) // 2
    for k in range(tournaments):
        owner = owners[k % len(owners)]
        tournament = tournament_create(
            owner=owner,
            game_id="gamesup",
            name=f"scale {matches} #{k}",
            bot_ids=bot_ids,
            games_per_pairing=max(1, -(-matches // (pairs * tournaments))),
        )
        tournament_start(tournament=tournament, user=owner)


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


def _worker(job: tuple[dict[str, str], str, float, int, Any]) -> dict[str, Any]:
    """One simulated worker: ``mode`` in a loop for ``seconds`` once all are connected; its counts and latencies."""
    env, mode, seconds, index, barrier = job
    _common.django_setup(env)
    from django.db import connection

    from tournaments.matches.claim import match_claim_next
    from tournaments.matches.life import match_heartbeat
    from tournaments.matches.record import match_record_result

    worker = f"scale-{index}"
    claims: list[float] = []
    records: list[float] = []
    done = 0
    held: tuple[int, int, Any] | None = None
    if mode == "heartbeat":
        held = match_claim_next(worker=worker)
    connection.ensure_connection()
    # Start-up (imports, connecting) is not measured: every process starts the clock together.
    barrier.wait()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if mode == "select":
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            done += 1
        elif mode == "heartbeat":
            assert held is not None, "a match to renew"
            match_heartbeat(match_id=held[0], attempt=held[1])
            done += 1
        else:
            t0 = time.perf_counter()
            claimed = match_claim_next(worker=worker)
            t1 = time.perf_counter()
            if claimed is None:
                break
            match_id, attempt, _ = claimed
            match_heartbeat(match_id=match_id, attempt=attempt)
            record = _record(match_id)
            t2 = time.perf_counter()
            match_record_result(match_id=match_id, attempt=attempt, record=record)
            claims.append(t1 - t0)
            records.append(time.perf_counter() - t2)
            done += 1
    connection.close()
    return {"done": done, "claims": claims, "records": records}


def _run(env: dict[str, str], mode: str, workers: int, seconds: float) -> tuple[float, list[dict[str, Any]]]:
    """Run ``workers`` processes in ``mode`` for ``seconds``; (operations per second, each one's figures)."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager:
        barrier = manager.Barrier(workers + 1)
        with ctx.Pool(workers) as pool:
            pending = pool.map_async(_worker, [(env, mode, seconds, i, barrier) for i in range(workers)])
            barrier.wait()
            results = pending.get()
    return sum(r["done"] for r in results) / seconds, results


def _ms(values: list[float], p: float) -> str:
    return f"{1000 * _common.percentile(values, p):6.1f}" if values else "     -"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, action="append", help="simulated workers (repeat for several)")
    parser.add_argument("--seconds", type=float, default=5.0, help="timed window per measurement")
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args(argv)
    counts = args.workers or list(DEFAULT_WORKERS)

    name = _common.database_name(f"scale_{os.getpid()}")
    database = _common.database_create(name)
    try:
        with (
            tempfile.TemporaryDirectory(prefix="arbiter-bench-") as tmp,
            _common.process_set(Path(tmp), database) as procs,
        ):
            env = procs.env()
            _common.django_setup(env, migrate=True)
            owners, bot_ids = _setup(args.bots)
            print(f"{_common.machine()}; one PostgreSQL, {args.bots} bots of {args.bots} owners, gamesup, rated")
            print("  workers   SELECT 1/s   renewals/s   matches/s   ratio   claim p50/p99 ms   record p50/p99 ms")
            for n in counts:
                from django.db import connection

                _schedule(owners, bot_ids, int(n * args.seconds * MATCHES_PER_WORKER_SECOND), tournaments=n)
                connection.close()
                base, _ = _run(env, "select", n, args.seconds)
                renewals, _ = _run(env, "heartbeat", n, args.seconds)
                rate, results = _run(env, "match", n, args.seconds)
                claims = [c for r in results for c in r["claims"]]
                records = [c for r in results for c in r["records"]]
                print(
                    f"  {n:7d}   {base:10,.0f}   {renewals:10,.0f}   {rate:9,.0f}   {base / rate:5.0f}x"
                    f"   {_ms(claims, 50)} /{_ms(claims, 99)}   {_ms(records, 50)} /{_ms(records, 99)}"
                )
            print(f"  load after: {_common.load()}")
            print("  (ratio: SELECT 1 round trips per recorded match at the same concurrency)")
    finally:
        if not args.keep:
            _common.database_drop(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
