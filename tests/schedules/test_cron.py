"""Next runs of daily, weekly and cron schedules: pure functions, no database."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from tournaments.competitions.services.schedules import cron_next, cron_parse, schedule_next_run
from tournaments.errors import ServiceError


def at(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_daily_is_today_if_still_ahead_else_tomorrow() -> None:
    assert schedule_next_run(kind="daily", at_time=time(3, 0), after=at(2026, 11, 22, 2, 59)) == at(2026, 11, 22, 3)
    assert schedule_next_run(kind="daily", at_time=time(3, 0), after=at(2026, 11, 22, 3, 0)) == at(2026, 11, 23, 3)
    # Year end.
    assert schedule_next_run(kind="daily", at_time=time(0, 0), after=at(2026, 12, 31, 12)) == at(2027, 1, 1)


def test_weekly_finds_the_weekday() -> None:
    # 2026-11-22 is a Sunday (weekday 6).
    assert at(2026, 11, 22).weekday() == 6
    assert schedule_next_run(kind="weekly", weekday=0, at_time=time(20), after=at(2026, 11, 22, 21)) == at(
        2026, 11, 23, 20
    )
    assert schedule_next_run(kind="weekly", weekday=6, at_time=time(20), after=at(2026, 11, 22, 19)) == at(
        2026, 11, 22, 20
    )
    assert schedule_next_run(kind="weekly", weekday=6, at_time=time(20), after=at(2026, 11, 22, 20)) == at(
        2026, 11, 29, 20
    )
    with pytest.raises(ServiceError):
        schedule_next_run(kind="weekly", weekday=None, at_time=time(20), after=at(2026, 11, 22))


def test_cron_fields_and_day_rule() -> None:
    after = at(2026, 11, 22, 10, 17, 30)
    assert schedule_next_run(kind="cron", cron="* * * * *", after=after) == at(2026, 11, 22, 10, 18)
    assert schedule_next_run(kind="cron", cron="*/15 * * * *", after=after) == at(2026, 11, 22, 10, 30)
    assert schedule_next_run(kind="cron", cron="0 3 * * *", after=after) == at(2026, 11, 23, 3)
    # Monday to Friday at 18:30; the 22nd is a Sunday.
    assert schedule_next_run(kind="cron", cron="30 18 * * mon-fri", after=after) == at(2026, 11, 23, 18, 30)
    # Day 7 is Sunday as well as day 0.
    assert schedule_next_run(kind="cron", cron="0 12 * * 7", after=after) == at(2026, 11, 22, 12)
    # Both day fields restricted: either matches (the 1st of the month or a Friday).
    assert schedule_next_run(kind="cron", cron="0 0 1 * 5", after=after) == at(2026, 11, 27)
    assert schedule_next_run(kind="cron", cron="0 0 1 12 *", after=after) == at(2026, 12, 1)
    # Only on 29 February: the next leap year.
    assert schedule_next_run(kind="cron", cron="0 0 29 2 *", after=after) == at(2028, 2, 29)


@pytest.mark.parametrize("bad", ["", "* * * *", "61 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *", "x * * * *"])
def test_malformed_cron_is_refused(bad: str) -> None:
    with pytest.raises(ServiceError):
        cron_parse(bad)


def test_cron_that_never_matches() -> None:
    assert cron_next(cron_parse("0 0 31 2 *"), after=at(2026, 1, 1)) is None
    with pytest.raises(ServiceError):
        schedule_next_run(kind="cron", cron="0 0 30 2 *", after=at(2026, 1, 1))
