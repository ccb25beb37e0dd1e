"""Start times and recurring schedules against the database, without a worker."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any

import pytest

from tests.service.conftest import RANDOM_BOT
from tournaments.bots.services import bot_create, bot_deactivate, bot_version_create
from tournaments.competitions.models import Participant, Tournament, TournamentSchedule
from tournaments.competitions.services.schedules import (
    schedule_run,
    schedule_save,
    schedules_run_due,
    tournament_start_scheduled,
    tournaments_start_due,
)
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.dbclock import db_clock
from tournaments.errors import ServiceError
from tournaments.matches.models import Match

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("games")]


def test_tournament_starts_itself_when_due_and_only_once(user: Any, make_bot: Any) -> None:
    bots = [make_bot() for _ in range(3)]
    now = db_clock()
    later = tournament_create(
        owner=user, game_id="gamesup", name="later", bot_ids=[b.id for b in bots], start_at=now + timedelta(hours=1)
    )
    due = tournament_create(
        owner=user, game_id="gamesup", name="due", bot_ids=[b.id for b in bots], start_at=now - timedelta(seconds=1)
    )
    plain = tournament_create(owner=user, game_id="gamesup", name="by hand", bot_ids=[b.id for b in bots])

    assert tournaments_start_due(now=now) == [due.id]
    assert tournaments_start_due(now=now) == []
    assert tournament_start_scheduled(tournament_id=due.id, now=now) is False
    due.refresh_from_db()
    assert due.status == "running" and due.started is not None
    assert Match.objects.filter(tournament=due).count() == 3 * 2
    assert set(Match.objects.filter(tournament=due).values_list("kind", flat=True)) == {"tournament"}
    for t in (later, plain):
        t.refresh_from_db()
        assert t.status == "draft" and not t.matches.exists()

    # Started by hand before its time: the beat leaves it alone.
    tournament_start(tournament=later, user=user)
    assert tournaments_start_due(now=now + timedelta(hours=2)) == []
    assert Match.objects.filter(tournament=later).count() == 6


def test_all_active_participants_are_taken_at_start(user: Any, other: Any, make_bot: Any) -> None:
    a, b, c = make_bot(), make_bot(), make_bot()
    make_bot(game="pileup")  # another game
    hidden = make_bot(owner=other, visibility="private")
    mine_private = make_bot(visibility="private")
    tournament = tournament_create(
        owner=user, game_id="gamesup", name="everyone", bot_ids=[], all_active=True, start_at=db_clock()
    )
    assert not Participant.objects.filter(tournament=tournament).exists()
    # Between creation and start: a new bot, a new version, a retired bot.
    d = make_bot(owner=other)
    newer = bot_version_create(bot=a, user=user, package=RANDOM_BOT + b"# v2\n", filename="random_bot.py")
    bot_deactivate(bot=c, user=user)

    assert tournaments_start_due() == [tournament.id]
    entered = set(Participant.objects.filter(tournament=tournament).values_list("bot_version_id", flat=True))
    latest = {bot.versions.order_by("-number").first().id for bot in (b, d, mine_private)}
    assert entered == latest | {newer.id}
    assert hidden.versions.first().id not in entered
    tournament.refresh_from_db()
    assert tournament.status == "running" and tournament.matches.count() == 2 * 6  # C(4, 2) pairings x 2


def test_all_active_refuses_a_participant_list(user: Any, make_bot: Any) -> None:
    with pytest.raises(ServiceError):
        tournament_create(owner=user, game_id="gamesup", name="x", bot_ids=[make_bot().id], all_active=True)


def test_scheduled_tournament_with_nobody_to_play_finishes_empty(user: Any) -> None:
    # Nobody to play: it starts, finds no pairings, and finishes empty.
    empty = tournament_create(owner=user, game_id="gamesup", name="nobody", bot_ids=[], all_active=True)
    empty.start_at = db_clock()
    empty.save(update_fields=["start_at"])
    assert tournaments_start_due() == [empty.id]
    empty.refresh_from_db()
    assert empty.status == "finished" and not empty.matches.exists()


def _schedule(user: Any, **fields: Any) -> TournamentSchedule:
    values = {
        "name": "Nightly gamesup",
        "owner": user,
        "game_id": "gamesup",
        "seats": 2,
        "format": "double",
        "games_per_pairing": 1,
        "move_ms": 500,
        "game_ms": 20000,
        "startup_ms": 5000,
        "rated": False,
        "kind": "daily",
        "at_time": time(3, 0),
    }
    values.update(fields)
    return schedule_save(schedule=TournamentSchedule(**values), now=datetime(2026, 11, 21, 12, tzinfo=UTC))


def test_schedule_creates_each_edition_once(user: Any, make_bot: Any) -> None:
    bots = [make_bot() for _ in range(3)]
    schedule = _schedule(user)
    assert schedule.next_run == datetime(2026, 11, 22, 3, tzinfo=UTC)
    assert schedules_run_due(now=datetime(2026, 11, 22, 2, 59, tzinfo=UTC)) == []

    now = datetime(2026, 11, 22, 3, 0, 5, tzinfo=UTC)
    created = schedules_run_due(now=now)
    assert len(created) == 1
    assert schedules_run_due(now=now) == []
    assert schedule_run(schedule_id=schedule.id, now=now) is None
    edition = Tournament.objects.get(id=created[0])
    assert edition.name == "Nightly gamesup 2026-11-22"
    assert edition.schedule_id == schedule.id and edition.all_active
    assert edition.status == "running"
    assert (edition.game_id, edition.seats, edition.format, edition.games_per_pairing, edition.rated) == (
        "gamesup", 2, "double", 1, False,
    )  # fmt: skip
    assert (edition.move_ms, edition.game_ms, edition.startup_ms) == (500, 20000, 5000)
    assert Participant.objects.filter(tournament=edition).count() == len(bots)
    assert edition.matches.count() == 3 * 2
    schedule.refresh_from_db()
    assert schedule.next_run == datetime(2026, 11, 23, 3, tzinfo=UTC)
    assert schedule.last_run == now

    # The beat was down for three days: one edition, then the next run is in the future.
    late = datetime(2026, 11, 26, 9, tzinfo=UTC)
    assert len(schedules_run_due(now=late)) == 1
    schedule.refresh_from_db()
    assert schedule.next_run == datetime(2026, 11, 27, 3, tzinfo=UTC)
    assert schedule.editions.count() == 2
    assert sorted(schedule.editions.values_list("name", flat=True)) == [
        "Nightly gamesup 2026-11-22",
        "Nightly gamesup 2026-11-23",
    ]


def test_disabled_schedule_never_runs_and_editing_recomputes_next_run(user: Any) -> None:
    schedule = _schedule(user, kind="weekly", weekday=4, at_time=time(18, 30))
    assert schedule.next_run == datetime(2026, 11, 27, 18, 30, tzinfo=UTC)
    schedule.enabled = False
    schedule_save(schedule=schedule)
    assert schedule.next_run is None
    assert schedules_run_due(now=datetime(2030, 1, 1, tzinfo=UTC)) == []
    schedule.enabled = True
    schedule.kind = "cron"
    schedule.cron = "0  */6 * * *"
    schedule_save(schedule=schedule, now=datetime(2026, 11, 22, 7, tzinfo=UTC))
    assert schedule.cron == "0 */6 * * *" and schedule.weekday is None
    assert schedule.next_run == datetime(2026, 11, 22, 12, tzinfo=UTC)
    # Several runs a day: the edition's name carries the time too.
    edition = Tournament.objects.get(id=schedules_run_due(now=datetime(2026, 11, 22, 12, 0, 1, tzinfo=UTC))[0])
    assert edition.name == "Nightly gamesup 2026-11-22 12:00"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"kind": "daily", "at_time": None}, "at_time"),
        ({"kind": "weekly", "weekday": None}, "weekday"),
        ({"kind": "cron", "cron": "0 0 30 2 *"}, "cron"),
        ({"options": {"nonsense": 1}}, "options"),
        ({"games_per_pairing": 0}, "games_per_pairing"),
        ({"move_ms": 0}, "move_ms"),
    ],
)
def test_invalid_schedules_are_refused(user: Any, fields: dict[str, Any], field: str) -> None:
    with pytest.raises(ServiceError) as info:
        _schedule(user, **fields)
    assert field in info.value.fields
    assert not TournamentSchedule.objects.exists()


def test_schedule_whose_game_vanished_is_disabled(user: Any) -> None:
    schedule = _schedule(user)
    from tournaments.games.models import Game

    Game.objects.filter(id="gamesup").update(available=False)
    assert schedules_run_due(now=datetime(2026, 11, 23, tzinfo=UTC)) == []
    schedule.refresh_from_db()
    assert not schedule.enabled and schedule.next_run is None


def test_private_bot_of_the_organiser_is_entered(user: Any, other: Any) -> None:
    bot_create(owner=other, game_id="gamesup", name="pub", package=RANDOM_BOT, filename="random_bot.py")
    bot_create(
        owner=user, game_id="gamesup", name="priv", package=RANDOM_BOT, filename="random_bot.py", visibility="private"
    )
    schedule = _schedule(user)
    edition = Tournament.objects.get(id=schedules_run_due(now=schedule.next_run)[0])
    assert edition.entries.count() == 2
