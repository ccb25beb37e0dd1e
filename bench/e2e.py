"""Matches per second through the whole service, against the referee alone and the floor, interleaved.

In a throwaway PostgreSQL database with a private Redis queue: one Celery
worker (a live process set, ``tests.live``) with ``--workers`` processes
(prefork); two users, each with a bot running the reference random bot, and
a double round robin of ``--matches`` short gamesup matches between them in
the first user's tournament: rated matches (the run checks that every one
changed both ratings).  Timed from ``tournament_start`` (schedule, enqueue)
until the last match is recorded with its rating changes.  A short warm-up
tournament first unpacks the package and opens every connection.

Two baselines on the same matches (same seeds, same match ids, so the very
same moves), as many processes in parallel as the service has worker
processes: the referee alone (``play_match``), and the floor
(``bench.floor``: bare ``python3`` bots and a minimal referee, the same
engine).  ``--rounds`` rounds (3), each a fresh tournament followed by both
baselines on its matches, the order rotated from round to round so that a
change of the machine's load weighs on all three alike; the ratios are
shown as min, median and max over the rounds.  Targets: service >= 0.9 of
the referee alone, referee alone >= 0.85 of the floor.

It waits as long as the matches take (it prints how far they got while it
waits).  However it ends, even killed, nothing of it is left: a guardian
process kills every process it started and drops its database
(``bench._common.guard_run``).

With ``--profile``, the workers are stopped and a few more matches are run
through the task function in this process under cProfile, to show where a
match's time goes outside the referee.

With ``--cpu``, each phase's CPU time per match is shown part by part
(``bench.cpu``): the Celery processes and their threads, the bots, this
run's PostgreSQL backends, Redis, and the machine as a whole.

    python -m bench.e2e [--matches 200] [--workers 2] [--rounds 3] [--profile] [--cpu] [--keep]
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import multiprocessing
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import _common
from bench import cpu as bench_cpu
from bench.floor import floor_chunk
from kit import REFERENCE_BOTS
from tests.live import ProcessSet
from tests.live.services import queue_purge
from workers.match import Clock, Termination
from workers.packages.cache import cache_key

TARGET_RATIO = 0.9
TARGET_FLOOR_RATIO = 0.85
PROGRESS_S = 30.0
POLL_S = 0.5
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
    """Wait until the tournament is over, however long it takes; say how far it got now and then."""
    from tournaments.competitions.models import Tournament
    from tournaments.matches.models import Match

    told = time.monotonic()
    while Tournament.objects.values_list("status", flat=True).get(pk=tournament_id) == Tournament.Status.RUNNING:
        if time.monotonic() - told >= PROGRESS_S:
            told = time.monotonic()
            done = Match.objects.filter(tournament_id=tournament_id, status=Match.Status.FINISHED).count()
            print(f"  ... tournament {tournament_id}: {done} matches recorded so far (worker log: {log})", flush=True)
        # The round is timed by the matches' finish stamps, not by this loop: a look every 50 ms had cost
        # the service's two cores about 5 ms of CPU per match (this process and its PostgreSQL backend).
        time.sleep(POLL_S)
    # A match recorded while the other worker process held its pool's applier is applied by the
    # ratings_apply task, which here waits for a free pool process (production serves the beat queue
    # apart): its rating changes come a few seconds after the tournament's end.
    pending = Match.objects.filter(tournament_id=tournament_id, rating_pending=True)
    while pending.exists():
        time.sleep(POLL_S)
    bad = Match.objects.filter(tournament_id=tournament_id).exclude(status=Match.Status.FINISHED).count()
    if bad:
        print(f"  warning: {bad} matches of tournament {tournament_id} did not finish; see {log}", flush=True)


def _check_rated(tournament: Any) -> None:
    """Every finished match of the tournament changed both bots' ratings: the rated path was measured."""
    from tournaments.matches.models import Match
    from tournaments.ratings.models import RatingChange

    finished = tournament.matches.filter(status=Match.Status.FINISHED).count()
    changes = RatingChange.objects.filter(match__tournament=tournament).count()
    if changes != 2 * finished:
        raise SystemExit(f"{changes} rating changes for {finished} matches: the matches were not all rated")


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
        record = play_match(spec, [bot, bot])
        # A forfeit (a bot that could not start) would be a fast, meaningless baseline.
        assert record.termination == Termination.RULES, record.reason
    return time.perf_counter() - start


def _matches_of(tournament: Any) -> tuple[str, list[str], list[tuple[str, int]]]:
    """(the bot's unpacked directory, its command, the (match id, seed) pairs) of a tournament."""
    from django.conf import settings

    from tournaments.matches.models import MatchSeat

    seat = (
        MatchSeat.objects.filter(match__tournament=tournament).select_related("bot_version").get(match__index=0, seat=0)
    )
    version = seat.bot_version
    # The worker's own cache entry: the bot exactly as the service's matches ran it.
    directory = str(settings.ARBITER_PACKAGE_CACHE / cache_key(version.checksum, version.command))
    if not Path(directory, version.command[-1]).is_file():
        raise SystemExit(f"the worker's unpacked bot is not at {directory}")
    pairs = [(str(i), s) for i, s in tournament.matches.order_by("index").values_list("id", "seed")]
    return directory, list(version.command), pairs


def _in_parallel(processes: int, function: Any, jobs: list[Any]) -> float:
    """Seconds for ``processes`` fresh processes to run ``function`` on ``jobs``, one job each."""
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        pool.map(_referee_warm, range(processes), chunksize=1)
        start = time.perf_counter()
        pool.map(function, jobs, chunksize=1)
        return time.perf_counter() - start


def referee_alone(tournament: Any, processes: int) -> float:
    """Seconds for ``processes`` processes to play the tournament's matches with the referee only."""
    directory, command, pairs = _matches_of(tournament)
    # The options were validated into the match; gamesup's defaults are what the referee fills in too.
    return _in_parallel(
        processes, _referee_chunk, [(directory, command, pairs[k::processes]) for k in range(processes)]
    )


def floor_alone(tournament: Any, processes: int) -> float:
    """Seconds for ``processes`` processes to play the tournament's matches with bare bots (``bench.floor``)."""
    directory, command, pairs = _matches_of(tournament)
    jobs = [(directory, command, "gamesup", pairs[k::processes], CLOCK) for k in range(processes)]
    return _in_parallel(processes, floor_chunk, jobs)


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
        "ratings_apply_matches": "  of which Elo (ratings_apply_matches)",
        "tournament_matches_ended": "  of which finish check",
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


def _owners_and_bots() -> tuple[Any, list[int]]:
    """Two users with a random bot each: the first organises, both bots play (rated: two owners)."""
    from django.contrib.auth import get_user_model

    from tournaments.bots.services import bot_create

    package = (REFERENCE_BOTS / "random_bot.py").read_bytes()
    users = [get_user_model().objects.create_user(username=f"bench-{n}", password="bench-pw") for n in "ab"]
    bot_ids = [
        bot_create(owner=user, game_id="gamesup", name=f"random-{n}", package=package, filename="random_bot.py").bot_id
        for user, n in zip(users, "ab", strict=True)
    ]
    return users[0], bot_ids


def _measure(
    procs: ProcessSet, workers: int, matches: int, rounds: int, cpu: list[str] | None = None
) -> list[dict[str, float]]:
    """Seconds per round for the service, the referee alone and the floor, each round on one tournament.

    ``cpu``: a list to which the CPU time per part of each phase is added (``bench.cpu``), when given.
    """
    _common.django_setup(procs.env(), migrate=True)
    from django.db import connection

    database = str(connection.settings_dict["NAME"])
    owner, bot_ids = _owners_and_bots()
    log = procs.worker("bench", concurrency=workers).log_path
    procs.wait_ready()
    _run_tournament(owner, bot_ids, 2 * workers, log)  # warm-up
    results: list[dict[str, float]] = []
    for r in range(rounds):
        tournament: Any = None

        def service() -> float:
            nonlocal tournament
            seconds, tournament = _run_tournament(owner, bot_ids, matches, log)
            _check_rated(tournament)
            return seconds

        # The service comes first (the baselines need its matches); the baselines' order alternates.
        times = {"service": _measured(cpu, database, f"round {r + 1}, service", matches, service)}
        order = [("referee", referee_alone), ("floor", floor_alone)]
        for name, run in order if r % 2 == 0 else order[::-1]:
            phase = functools.partial(run, tournament, workers)
            times[name] = _measured(cpu, database, f"round {r + 1}, {name}", matches, phase)
        print(f"  round {r + 1}: service {times['service']:.2f} s, referee alone {times['referee']:.2f} s, "
              f"floor {times['floor']:.2f} s", flush=True)  # fmt: skip
        results.append(times)
    return results


def _measured(cpu: list[str] | None, database: str, title: str, matches: int, run: Any) -> float:
    """``run()``'s seconds; with ``cpu``, the phase's CPU per match and part added to it (``bench.cpu``)."""
    if cpu is None:
        return float(run())
    before = bench_cpu.snapshot(bench_cpu.backends(database))
    seconds = float(run())
    after = bench_cpu.snapshot(bench_cpu.backends(database))
    cpu.append(bench_cpu.report(f"{title} ({seconds:.2f} s)", before, after, matches))
    return seconds


def _spread(values: list[float]) -> str:
    ordered = sorted(values)
    return f"min {ordered[0]:.2f} median {statistics.median(ordered):.2f} max {ordered[-1]:.2f}"


def _report(results: list[dict[str, float]], matches: int, workers: int) -> None:
    rates = {k: [matches / r[k] for r in results] for k in ("service", "referee", "floor")}
    service_ratio = [r["referee"] / r["service"] for r in results]
    floor_ratio = [r["floor"] / r["referee"] for r in results]
    print(f"{matches} rated random-vs-random gamesup matches (two owners) per round, {len(results)} rounds, "
          f"{workers} worker processes (PostgreSQL + Redis); {_common.machine()}:")  # fmt: skip
    print(f"  floor: bare python3 bots, minimal referee: {_spread(rates['floor'])} matches/s")
    print(f"  referee alone (play_match, sandboxed):      {_spread(rates['referee'])} matches/s")
    print(f"  through Celery + database:                  {_spread(rates['service'])} matches/s")
    med_s, med_f = statistics.median(service_ratio), statistics.median(floor_ratio)
    print(f"  service / referee alone: {_spread(service_ratio)} (target >= {TARGET_RATIO}): "
          f"{_common.verdict(med_s >= TARGET_RATIO)}")  # fmt: skip
    print(f"  referee alone / floor:   {_spread(floor_ratio)} (target >= {TARGET_FLOOR_RATIO}): "
          f"{_common.verdict(med_f >= TARGET_FLOOR_RATIO)}")  # fmt: skip
    overhead = [(r["service"] - r["referee"]) / matches * workers * 1000 for r in results]
    print(f"  service overhead per match per worker process: {_spread(overhead)} ms")


def main(argv: list[str] | None = None) -> int:
    """Run the warm-up, then rounds of the service and both baselines, and print the ratios."""
    parser = argparse.ArgumentParser(prog="python -m bench.e2e", description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200, help="even, at most 200")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (and baseline processes)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--cpu", action="store_true", help="CPU time per part of each phase, from /proc")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args(argv)
    matches = max(2, min(200, args.matches // 2 * 2))

    name = _common.database_name(f"e2e_{os.getpid()}")
    guardian = _common.guard_run(None if args.keep else name)
    database = _common.database_create(name)
    profile = ""
    try:
        with (
            tempfile.TemporaryDirectory(prefix="arbiter-bench-") as tmp,
            _common.process_set(Path(tmp), database) as procs,
        ):
            cpu: list[str] | None = [] if args.cpu else None
            results = _measure(procs, args.workers, matches, max(1, args.rounds), cpu)
            if args.profile:
                procs.stop("bench")
                owner = _owner()
                profile = _profile_tasks(owner, _bot_ids(), 20, procs.queue)
            from django.db import connection

            connection.close()
    finally:
        if not args.keep:
            _common.database_drop(name)
        guardian.stdin.close()  # type: ignore[union-attr]
        guardian.wait()
    _report(results, matches, args.workers)
    for part in cpu or []:
        print(part)
    if profile:
        print(profile)
    return 0


def _owner() -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username="bench-a")


def _bot_ids() -> list[int]:
    from tournaments.bots.models import Bot

    return list(Bot.objects.filter(name__in=["random-a", "random-b"]).order_by("name").values_list("id", flat=True))


if __name__ == "__main__":
    sys.exit(main())
