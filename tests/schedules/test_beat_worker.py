"""Start times, recurring schedules and the ladder with a real beat and workers.

Each test gets a fresh PostgreSQL database and its own Redis queues (through
ARBITER_QUEUE), runs ``celery worker --beat`` plus a second, separate
``celery beat`` (two beats must never start a tournament or create an
edition twice) and a small worker for the beat queue, with one-second beat
intervals, and reads the database directly while they work.  Bots are the reference random bot in the real
sandbox.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.live import ProcessSet
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]

WAIT_S = 120
# A worker's log line for one run of the task that creates schedules' editions.
SCHEDULES_RAN = re.compile(r"schedules_run_due\[[^\]]+\] succeeded")


@pytest.fixture
def cluster(live_processes: LiveFactory) -> ProcessSet:
    """A worker with an embedded beat, a second beat, and a worker for the beat queue, beats every second."""
    procs = live_processes(tag="sched", env={"ARBITER_SCHEDULE_POLL_S": "1", "ARBITER_LADDER_POLL_S": "1"})
    procs.worker("worker", concurrency=2, beat=True)
    procs.beat()
    # A one-process worker for the beat queue only, as docs/organisers.md advises: with
    # every process of the main worker busy, the beat's work would otherwise wait.
    procs.beat_worker()
    procs.wait_ready()
    return procs


BOTS = """
import json
from datetime import timedelta
from django.contrib.auth import get_user_model
from tournaments.bots.services import bot_create
from tournaments.games.services import game_sync
game_sync()
user = get_user_model().objects.create_user(username="org", password="x", is_staff=True)
code = open("kit/bots/random_bot.py", "rb").read()
# A user per bot (org owns the first): games between one owner's bots are never rated.
owners = [user, *(get_user_model().objects.create_user(username=f"owner{i}", password="x") for i in (1, 2))]
bots = [bot_create(owner=owners[i], game_id="gamesup", name=f"b{i}", package=code, filename="r.py").bot
        for i in range(3)]
"""

SCHEDULED = (
    BOTS
    + """
from tournaments.competitions.models import TournamentSchedule
from tournaments.competitions.services.schedules import edition_name, schedule_save
from tournaments.competitions.services.tournaments import tournament_create
from tournaments.dbclock import db_clock
now = db_clock()  # the clock the beat compares start_at and next_run with
clocks = dict(move_ms=1000, game_ms=20000, startup_ms=10000)
start_at = (now + timedelta(seconds=5)).replace(microsecond=0)
t = tournament_create(owner=user, game_id="gamesup", name="at five", bot_ids=[b.id for b in bots],
                      games_per_pairing=1, start_at=start_at, **clocks)
s = schedule_save(schedule=TournamentSchedule(
    name="Nightly gamesup", owner=user, game_id="gamesup", seats=2, games_per_pairing=1, kind="daily",
    at_time=(now + timedelta(seconds=7)).time().replace(microsecond=0), **clocks))
print(json.dumps({"tid": t.id, "start_at": start_at.isoformat(), "sid": s.id, "next_run": s.next_run.isoformat(),
                  "name": edition_name(schedule=s, run=s.next_run)}))
"""
)


def test_start_time_and_recurring_edition(cluster: ProcessSet) -> None:
    setup = cluster.shell(SCHEDULED)
    tid, sid = setup["tid"], setup["sid"]
    start_at = datetime.fromisoformat(setup["start_at"])
    next_run = datetime.fromisoformat(setup["next_run"])

    def started() -> Any:
        ((status, at),) = cluster.query("SELECT status, started FROM competitions_tournament WHERE id = %s", [tid])
        return at if status != "draft" else None

    started_at = wait_for(started, 60, "the scheduled tournament to start", every=0.5)
    # Never early; late by about one beat interval (1 s) plus a busy machine's slack.
    assert start_at <= started_at < start_at + timedelta(seconds=20), (start_at, started_at)

    def edition() -> Any:
        return cluster.query("SELECT id, name, status FROM competitions_tournament WHERE schedule_id = %s", [sid])

    rows = wait_for(edition, 60, "the schedule's edition", every=0.5)
    # Both beats keep sending the schedules' check every second: still one edition after six more runs of it.
    mark = cluster.log_mark()
    wait_for(lambda: len(SCHEDULES_RAN.findall(cluster.log_since(mark))) >= 6, 60, "six more runs of the check")
    rows = edition()
    assert len(rows) == 1, rows
    edition_id, name, status = rows[0]
    assert name == setup["name"] and status in ("running", "finished")
    ((moved, last_run),) = cluster.query(
        "SELECT next_run, last_run FROM competitions_tournamentschedule WHERE id = %s", [sid]
    )
    assert moved == next_run + timedelta(days=1) and last_run >= next_run
    ((entries,),) = cluster.query(
        "SELECT count(*) FROM competitions_participant WHERE tournament_id = %s", [edition_id]
    )
    assert entries == 3

    # Both tournaments are played through by the worker.
    def finished() -> bool:
        rows = cluster.query("SELECT status FROM competitions_tournament WHERE id IN (%s, %s)", [tid, edition_id])
        return all(r[0] == "finished" for r in rows)

    wait_for(finished, 180, "both tournaments to finish", every=0.5)
    kinds = cluster.query(
        "SELECT kind, status, count(*) FROM matches_match WHERE tournament_id IN (%s, %s) GROUP BY 1, 2",
        [tid, edition_id],
    )
    assert kinds == [("tournament", "finished", 6)], kinds


LADDER = (
    BOTS
    + """
from tournaments.competitions.models import Ladder
from tournaments.competitions.services.ladders import ladder_save
ladder = ladder_save(ladder=Ladder(game_id="gamesup", seats=2, queued_target=2, move_ms=1000, game_ms=20000,
                                   startup_ms=10000))
print(json.dumps({"pool": ladder.pool, "versions": [b.versions.get().id for b in bots]}))
"""
)

NEW_VERSION = """
import json
from django.contrib.auth import get_user_model
from tournaments.bots.models import Bot
from tournaments.competitions.models import Ladder
from tournaments.matches.models import Match
from tournaments.bots.services import bot_version_create
from tournaments.competitions.services.ladders import ladder_save
user = get_user_model().objects.get(username="org")
code = open("kit/bots/random_bot.py", "rb").read() + b"# version two\\n"
# Pause the ladder so no top-up is half-way through while the version arrives.
ladder = Ladder.objects.get()
ladder.enabled = False
ladder_save(ladder=ladder)
v = bot_version_create(bot=Bot.objects.get(name="b0"), user=user, package=code, filename="r.py")
last = Match.objects.order_by("-id").values_list("id", flat=True).first()
ladder.enabled = True
ladder_save(ladder=ladder)
print(json.dumps({"version": v.id, "last_match": last}))
"""

TOURNAMENT = """
import json
from django.contrib.auth import get_user_model
from tournaments.bots.models import Bot
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
user = get_user_model().objects.get(username="org")
bot_ids = list(Bot.objects.values_list("id", flat=True))
t = tournament_create(owner=user, game_id="gamesup", name="busy", bot_ids=bot_ids, games_per_pairing=30,
                      move_ms=1000, game_ms=20000, startup_ms=10000)
t = tournament_start(tournament=t, user=user)
print(json.dumps({"tid": t.id}))
"""


def test_ladder_plays_everyone_serves_a_new_version_first_and_yields_to_tournaments(cluster: ProcessSet) -> None:
    setup = cluster.shell(LADDER)
    pool, versions = setup["pool"], setup["versions"]

    def per_version(after_match: int = 0) -> dict[int, int]:
        rows = cluster.query(
            "SELECT s.bot_version_id, count(*) FROM matches_matchseat s JOIN matches_match m"
            " ON m.id = s.match_id WHERE m.kind = 'ladder' AND m.status = 'finished' AND m.id > %s GROUP BY 1",
            [after_match],
        )
        return dict(rows)

    # Every bot plays, rated in the ladder's pool.
    wait_for(
        lambda: min(per_version().get(v, 0) for v in versions) >= 2, WAIT_S, "two finished ladder games for every bot",
        every=0.5,
    )  # fmt: skip
    rated = dict(cluster.query("SELECT bot_version_id, games FROM ratings_rating WHERE pool = %s", [pool]))
    assert set(rated) == set(versions) and all(g >= 2 for g in rated.values()), rated
    ((loose,),) = cluster.query(
        "SELECT count(*) FROM matches_match WHERE kind = 'ladder' AND tournament_id IS NOT NULL"
    )
    assert loose == 0

    # A new version: the ladder's next matches are its games.
    upload = cluster.shell(NEW_VERSION)
    fresh = upload["version"]
    wait_for(lambda: per_version().get(fresh, 0) >= 2, 90, "the new version's first ladder games", every=0.5)
    lineups: dict[int, set[int]] = {}
    for match_id, version in cluster.query(
        "SELECT s.match_id, s.bot_version_id FROM matches_matchseat s JOIN matches_match m ON m.id = s.match_id"
        " WHERE m.kind = 'ladder' AND m.id > %s ORDER BY m.id",
        [upload["last_match"]],
    ):
        lineups.setdefault(match_id, set()).add(version)
    # Every match created after it, until the newcomer has caught up, has the new version.
    first_new = list(lineups.values())[:2]
    assert len(first_new) == 2 and all(fresh in ids for ids in first_new), lineups
    assert all(versions[0] not in ids for ids in lineups.values()), lineups

    # A tournament takes over: while its matches wait, the ladder adds none.
    tid = cluster.shell(TOURNAMENT)["tid"]

    def tournament_done() -> bool:
        return cluster.query("SELECT status FROM competitions_tournament WHERE id = %s", [tid])[0][0] == "finished"

    wait_for(tournament_done, 180, "the tournament to finish beside the ladder", every=0.5)
    ((started, last_claim),) = cluster.query(
        "SELECT t.started, max(m.claimed_at) FROM competitions_tournament t JOIN matches_match m"
        " ON m.tournament_id = t.id WHERE t.id = %s GROUP BY t.started",
        [tid],
    )
    assert last_claim - started > timedelta(seconds=3), "the tournament was too short to show anything"
    # A top-up that counted the queue just before the tournament committed may still land in the first moments.
    ((during,),) = cluster.query(
        "SELECT count(*) FROM matches_match WHERE kind = 'ladder' AND created > %s AND created < %s",
        [started + timedelta(seconds=2), last_claim],
    )
    assert during == 0
    # ... and the ladder resumes once the tournament queue is empty.
    wait_for(
        lambda: cluster.scalar(
            "SELECT count(*) FROM matches_match WHERE kind = 'ladder' AND created > %s", [last_claim]
        ),
        30,
        "ladder games after the tournament",
        every=0.5,
    )
