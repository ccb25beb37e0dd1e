"""Scheduling a big round robin through the real service, against a raw bulk insert.

In a throwaway PostgreSQL database: ``--bots`` bots (200: 19,900 matches
in a single round robin, one game per pairing), ``tournament_create`` and
``tournament_start`` as the API calls them (the start inserts every match
and seat in one transaction and sends one message to a private Redis queue).
Baseline, in the same run: the very same rows sent with one COPY per table
from Python (the least a bulk insert can cost), rolled back afterwards.

    python -m bench.schedule [--bots 200] [--repeat 2] [--profile] [--keep]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

from bench import _common
from kit import REFERENCE_BOTS

TARGET_S = 10.0


def _setup_bots(count: int) -> tuple[object, list[int]]:
    from django.contrib.auth import get_user_model

    from tournaments.bots.services import bot_create

    package = (REFERENCE_BOTS / "random_bot.py").read_bytes()
    owner = get_user_model().objects.create_user(username="bench", password="bench-pw")
    ids = [
        bot_create(owner=owner, game_id="gamesup", name=f"b{n:04d}", package=package, filename="random_bot.py").bot_id
        for n in range(count)
    ]
    return owner, ids


def _schedule_once(
    owner: object, bot_ids: list[int], profile: cProfile.Profile | None
) -> tuple[float, float, float, int]:
    """(create seconds, start seconds, fill seconds, matches) for one new round robin.

    A round robin bigger than ARBITER_TOURNAMENT_INLINE_MATCHES is only counted
    by the start; its rows are inserted by the task ``tournament_fill``, whose
    body runs here right after the start (the message it was sent as goes to a
    private queue nobody reads), so the figure is the whole insertion.
    """
    from tournaments.competitions.services.filling import tournament_matches_fill
    from tournaments.competitions.services.tournaments import tournament_create, tournament_start

    t0 = time.perf_counter()
    tournament = tournament_create(
        owner=owner, game_id="gamesup", name="bench", bot_ids=bot_ids, games_per_pairing=1, format="single"
    )
    t1 = time.perf_counter()
    if profile:
        profile.enable()
    started = tournament_start(tournament=tournament, user=owner)
    t2 = time.perf_counter()
    tournament_matches_fill(tournament_id=started.pk)
    if profile:
        profile.disable()
    t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2, started.matches.count()


def _json(value: object) -> object:
    from psycopg.types.json import Jsonb

    return Jsonb(value) if isinstance(value, dict | list) else value


def _copy_baseline(database: str, tournament_id: int) -> tuple[float, int]:
    """Seconds to COPY the tournament's match and seat rows in again (as new rows), rolled back."""
    import psycopg

    with psycopg.connect(database) as conn:
        match_cols = [
            r[0]
            for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'matches_match' "
                "AND column_name NOT IN ('id', 'tournament_id') ORDER BY ordinal_position"
            )
        ]
        seat_cols = [
            r[0]
            for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'matches_matchseat' "
                "AND column_name NOT IN ('id', 'match_id') ORDER BY ordinal_position"
            )
        ]
        quoted = ", ".join(f'"{c}"' for c in match_cols)
        # Text format both ways: the rows go out and back exactly as PostgreSQL wrote them.
        matches = conn.execute(
            f"SELECT id, {quoted} FROM matches_match WHERE tournament_id = %s ORDER BY id", [tournament_id]
        ).fetchall()
        seats_quoted = ", ".join(f'"{c}"' for c in seat_cols)
        seats = conn.execute(
            f"SELECT s.match_id, {', '.join(f's.{c}' for c in seat_cols)} FROM matches_matchseat s "
            "JOIN matches_match m ON m.id = s.match_id WHERE m.tournament_id = %s ORDER BY s.id",
            [tournament_id],
        ).fetchall()
        (start,) = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM matches_match").fetchone() or (1,)
        new_id = {old[0]: start + i for i, old in enumerate(matches)}
        # Rows as Python holds them before the insert, like the service's objects (JSON as dicts and lists).
        match_rows = [(new_id[row[0]], None, *map(_json, row[1:])) for row in matches]
        seat_rows = [(new_id[row[0]], *map(_json, row[1:])) for row in seats]
        t0 = time.perf_counter()
        with conn.transaction(force_rollback=True):
            with conn.cursor().copy(f"COPY matches_match (id, tournament_id, {quoted}) FROM STDIN") as copy:
                for row in match_rows:
                    copy.write_row(row)
            with conn.cursor().copy(f"COPY matches_matchseat (match_id, {seats_quoted}) FROM STDIN") as copy:
                for row in seat_rows:
                    copy.write_row(row)
            elapsed = time.perf_counter() - t0
    return elapsed, len(match_rows) + len(seat_rows)


def main(argv: list[str] | None = None) -> int:
    """Schedule the round robin ``--repeat`` times (best kept) and print it beside the COPY baseline."""
    parser = argparse.ArgumentParser(prog="python -m bench.schedule", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--profile", action="store_true", help="print the top of a cProfile of tournament_start")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args(argv)

    name = _common.database_name(f"schedule_{os.getpid()}")
    database = _common.database_create(name)
    try:
        # No processes: the set gives this process's Django its environment and the private queue it sends to.
        with (
            tempfile.TemporaryDirectory(prefix="arbiter-bench-") as tmp,
            _common.process_set(Path(tmp), database) as procs,
        ):
            env = procs.env()
            # Every run's matches stay queued (nobody plays them): room for --repeat round robins.
            env["ARBITER_QUEUED_MATCHES_PER_USER"] = str(max(args.repeat, 1) * args.bots * args.bots)
            _common.django_setup(env, migrate=True)
            owner, bot_ids = _setup_bots(args.bots)
            runs = []
            profile = cProfile.Profile() if args.profile else None
            for run in range(max(args.repeat, 1)):
                runs.append(_schedule_once(owner, bot_ids, profile if run == 0 else None))
            from tournaments.competitions.models import Tournament

            last = Tournament.objects.order_by("-id").values_list("id", flat=True).first()
            assert last is not None, "the timed run made a tournament"
            copy_s, rows = _copy_baseline(database, last)
            from django.db import connection

            connection.close()
    finally:
        if not args.keep:
            _common.database_drop(name)

    matches = runs[-1][3]
    expected = args.bots * (args.bots - 1) // 2
    print(f"round robin of {args.bots} bots: {matches:,} matches, {rows:,} rows (matches + seats); {len(runs)} runs")
    print(f"  baseline: one COPY per table of the same rows:        {copy_s:7.2f} s")
    columns = [("tournament_create (participants)", 0), ("tournament_start (plan, count, send)", 1),
               ("tournament_fill task (insert, send)", 2)]  # fmt: skip
    for label, k in columns:
        figures = [r[k] for r in runs]
        print(
            f"  {label + ':':<52} {min(figures):7.2f} s  (median {_common.median(figures):.2f}, max {max(figures):.2f})"
        )
    totals = [r[0] + r[1] + r[2] for r in runs]
    best = min(totals)
    insert = min(r[1] + r[2] for r in runs)
    print(
        f"  start + fill, the whole insertion:                   {insert:7.2f} s  "
        f"{insert / copy_s:5.1f}x the COPY  ({matches / insert:,.0f} matches/s)"
    )
    print(
        f"  create + start + fill {best:.2f} s (median {_common.median(totals):.2f}, max {max(totals):.2f}) against a "
        f"target of < {TARGET_S:.0f} s: {_common.verdict(best < TARGET_S and matches == expected)}"
    )
    if matches != expected:
        print(f"  INCOMPLETE: {matches:,} of {expected:,} matches inserted")
    if profile:
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(14)
        print("  cProfile of the first start + fill, by own time:")
        for line in out.getvalue().splitlines():
            if line.strip():
                print("   ", line[:150])
    return 0


if __name__ == "__main__":
    sys.exit(main())
