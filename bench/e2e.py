"""Matches per second through the whole service, against the referee alone on the same matches.

In a throwaway PostgreSQL database with a private Redis queue: one Celery
worker (a live process set, ``tests.live``) with ``--workers`` processes (prefork), two bots with the reference
random bot, and a double round robin of ``--matches`` identical short
gamesup matches.  Timed from ``tournament_start`` (schedule, enqueue) until
the last match is recorded with its rating changes.  A short warm-up
tournament first unpacks the package and opens every connection.

Baseline, in the same run: the referee alone (``play_match``, same seeds,
same match ids, so the very same moves) in a loop, as many processes in
parallel as the service has worker processes.  The ratio of the two rates
is what the service keeps of the referee's speed (target >= 0.9).

With ``--profile``, the workers are stopped and a few more matches are run
through the task function in this process under cProfile, to show where a
match's time goes outside the referee.

    python -m bench.e2e [--matches 200] [--workers 2] [--profile] [--keep]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import multiprocessing
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import _common
from kit import REFERENCE_BOTS
from tests.live import ProcessSet
from tests.live.services import queue_purge
from workers.match import Clock

TARGET_RATIO = 0.9
WAIT_S = 300.0
CLOCK = Clock(move_ms=1000, game_ms=60_000, startup_ms=10_000)


def _tournament(owner: Any, bot_ids: list[int], matches: int) -> Any:
    from tournaments.competitions.services.tournaments import tournament_create

    # Two bots, a double round robin: games_per_pairing games in each leg.
    return tournament_create(
        owner=owner,
        game_id="gamesup",
        name=f"bench {matches}",
        bot_ids=bot_ids,
        format="double",
        games_per_pairing=max(1, matches // 2),
        move_ms=CLOCK.move_ms,
        game_ms=CLOCK.game_ms,
        startup_ms=CLOCK.startup_ms,
    )


def _wait_done(tournament_id: int, log: Path) -> None:
    from tournaments.competitions.models import Tournament
    from tournaments.matches.models import Match

    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        status = Tournament.objects.values_list("status", flat=True).get(pk=tournament_id)
        if status != Tournament.Status.RUNNING:
            break
        time.sleep(0.05)
    else:
        raise SystemExit(f"tournament {tournament_id} did not finish in {WAIT_S:.0f} s; see {log}")
    bad = Match.objects.filter(tournament_id=tournament_id).exclude(status=Match.Status.FINISHED).count()
    if bad:
        raise SystemExit(f"{bad} matches of tournament {tournament_id} did not finish; see {log}")


def _run_tournament(owner: Any, bot_ids: list[int], matches: int, log: Path) -> tuple[float, Any]:
    """(seconds from start to the last recorded result, tournament)."""
    from django.db.models import Max

    from tournaments.competitions.services.tournaments import tournament_start
    from tournaments.dbclock import db_clock

    tournament = _tournament(owner, bot_ids, matches)
    started = db_clock()  # finish times are the database's: measured from its clock, not this host's
    tournament_start(tournament=tournament, user=owner)
    _wait_done(tournament.id, log)
    last = tournament.matches.aggregate(last=Max("finished_at"))["last"]
    return (last - started).total_seconds(), tournament


# -- the baseline: the referee alone -----------------------------------------------------


def _referee_warm(_: int) -> int:
    import workers.referee.play  # noqa: F401 - import cost is not part of the loop

    return os.getpid()


def _referee_chunk(job: tuple[str, list[str], list[tuple[str, int]]]) -> float:
    """Play the given (match id, seed) pairs one after the other; returns the seconds taken."""
    from workers.match import MatchSpec
    from workers.referee.play import play_match
    from workers.sandbox.start import BotProgram

    directory, command, matches = job
    bot = BotProgram(directory=Path(directory), command=tuple(command))
    start = time.perf_counter()
    for match_id, seed in matches:
        spec = MatchSpec(match_id=match_id, engine_id="gamesup", options={}, seed=seed, seats=2, clock=CLOCK)
        play_match(spec, [bot, bot])
    return time.perf_counter() - start


def referee_alone(tournament: Any, processes: int) -> float:
    """Seconds for ``processes`` processes to play the tournament's matches with the referee only."""
    from django.conf import settings

    from tournaments.matches.models import MatchSeat

    seat = (
        MatchSeat.objects.filter(match__tournament=tournament).select_related("bot_version").get(match__index=0, seat=0)
    )
    directory = str(settings.ARBITER_PACKAGE_CACHE / seat.bot_version.checksum)
    command = list(seat.bot_version.command)
    # The options were validated into the match; gamesup's defaults are what the referee fills in too.
    pairs = [(str(i), s) for i, s in tournament.matches.order_by("index").values_list("id", "seed")]
    chunks = [(directory, command, pairs[k::processes]) for k in range(processes)]
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        pool.map(_referee_warm, range(processes), chunksize=1)
        start = time.perf_counter()
        pool.map(_referee_chunk, chunks, chunksize=1)
        return time.perf_counter() - start


# -- where the time goes ---------------------------------------------------------------


def _profile_tasks(owner: Any, bot_ids: list[int], matches: int, queue: str) -> str:
    """cProfile of ``run_next`` called in this process on ``matches`` fresh matches."""
    from tournaments.competitions.services.tournaments import tournament_start
    from tournaments.matches.models import Match
    from tournaments.matches.tasks import run_next

    tournament = tournament_start(tournament=_tournament(owner, bot_ids, matches), user=owner)
    queue_purge(_common.redis_url(), queue)  # nobody is listening: we play them here
    ids = list(Match.objects.filter(tournament=tournament).order_by("index").values_list("id", flat=True))
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    for _ in ids:
        run_next()
    profile.disable()
    elapsed = time.perf_counter() - start
    functions = pstats.Stats(profile).get_stats_profile().func_profiles
    parts = {
        "match_claim_next": "claim (the fair pick, a conditional UPDATE)",
        "match_spec": "read the match and seats",
        "_programs": "find the unpacked packages",
        "play_match": "referee: play the match",
        "match_record_result": "record result, seats, Elo, finish check",
        "ratings_apply_match": "  of which Elo (ratings_apply_match)",
        "tournament_match_ended": "  of which finish check",
    }
    lines = [f"  where a match's time goes ({len(ids)} matches run by run_next in-process, {elapsed:.2f} s):"]
    for name, label in parts.items():
        profiled = functions.get(name)
        cum = profiled.cumtime if profiled is not None else 0.0
        lines.append(f"    {label:<45} {cum / len(ids) * 1000:7.2f} ms/match  {cum / elapsed * 100:5.1f}%")
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(10)
    lines.append("  top functions by own time:")
    lines.extend(f"    {line[:150]}" for line in out.getvalue().splitlines() if line.strip())
    return "\n".join(lines)


def _measure(procs: ProcessSet, workers: int, matches: int, profile: bool) -> tuple[float, float, str]:
    """(service seconds, referee-alone seconds, profile) in Django set up on the set's database."""
    _common.django_setup(procs.env(), migrate=True)
    from django.contrib.auth import get_user_model
    from django.db import connection

    from tournaments.bots.services import bot_create

    owner = get_user_model().objects.create_user(username="bench", password="bench-pw")
    package = (REFERENCE_BOTS / "random_bot.py").read_bytes()
    bot_ids = [
        bot_create(owner=owner, game_id="gamesup", name=n, package=package, filename="random_bot.py").bot_id
        for n in ("random-a", "random-b")
    ]
    log = procs.worker("bench", concurrency=workers).log_path
    procs.wait_ready()
    _run_tournament(owner, bot_ids, 2 * workers, log)  # warm-up
    service_s, tournament = _run_tournament(owner, bot_ids, matches, log)
    referee_s = referee_alone(tournament, workers)
    report = ""
    if profile:
        procs.stop("bench")
        report = _profile_tasks(owner, bot_ids, 20, procs.queue)
    connection.close()
    return service_s, referee_s, report


def main(argv: list[str] | None = None) -> int:
    """Run the warm-up, the timed tournament through the service, the referee-alone baseline."""
    parser = argparse.ArgumentParser(prog="python -m bench.e2e", description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200, help="even, at most 200")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (and baseline processes)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args(argv)
    matches = max(2, min(200, args.matches // 2 * 2))

    name = _common.database_name(f"e2e_{os.getpid()}")
    database = _common.database_create(name)
    try:
        with (
            tempfile.TemporaryDirectory(prefix="arbiter-bench-") as tmp,
            _common.process_set(Path(tmp), database) as procs,
        ):
            service_s, referee_s, profile = _measure(procs, args.workers, matches, args.profile)
    finally:
        if not args.keep:
            _common.database_drop(name)

    service_rate, referee_rate = matches / service_s, matches / referee_s
    ratio = service_rate / referee_rate
    print(f"{matches} random-vs-random gamesup matches, {args.workers} worker processes (PostgreSQL + Redis):")
    print(f"  baseline: referee alone, {args.workers} processes: {referee_rate:7.1f} matches/s ({referee_s:.2f} s)")
    print(f"  through Celery + database:                {service_rate:7.1f} matches/s ({service_s:.2f} s)")
    print(f"  ratio {ratio:.2f} (target >= {TARGET_RATIO}): {_common.verdict(ratio >= TARGET_RATIO)}; "
          f"service overhead {(service_s - referee_s) / matches * args.workers * 1000:.1f} ms per match "
          "per worker process")  # fmt: skip
    if profile:
        print(profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
