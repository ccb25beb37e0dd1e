"""What one user may ask of the service at once: the size of a round robin, its queue, how often.

Every check here runs before anything is written, so a refused request leaves
no row behind; each message names the setting that sets the limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings

from tournaments.competitions.brackets import knockout_size
from tournaments.competitions.models import Tournament
from tournaments.competitions.plans import gauntlet_size, round_robin_size
from tournaments.competitions.swiss import swiss_rounds_most, swiss_size
from tournaments.dbclock import db_now
from tournaments.errors import LimitError, ServiceError
from tournaments.matches.models import Match


def _field_check(*, count: int, setting: str, what: str) -> None:
    """ServiceError (400) when ``count`` bots are more than the named setting allows ``what`` (e.g. "A Swiss")."""
    most = getattr(settings, setting)
    if count > most:
        raise ServiceError(
            f"{what} takes at most {most} bots ({setting}); {count} listed.",
            code="too_many_participants",
            fields={"participants": ["too many bots"]},
        )


def _matches_check(*, size: int, what: str, advice: str, fields: Sequence[str]) -> int:
    """``size``, or ServiceError (400) when it is over ARBITER_TOURNAMENT_MAX_MATCHES; ``what`` leads the message."""
    most = settings.ARBITER_TOURNAMENT_MAX_MATCHES
    if size > most:
        raise ServiceError(
            f"{what} {size} matches; at most {most} are allowed (ARBITER_TOURNAMENT_MAX_MATCHES). {advice}",
            code="too_many_matches",
            fields={name: ["too many matches"] for name in fields},
        )
    return size


def round_robin_check(*, participants: int, teams: int, games_per_pairing: int, legs: int) -> int:
    """The number of matches a round robin of this shape plans; ServiceError (400) when over a limit."""
    _field_check(count=participants, setting="ARBITER_TOURNAMENT_MAX_PARTICIPANTS", what="A round robin")
    return _matches_check(
        size=round_robin_size(participants=participants, teams=teams, games_per_group=games_per_pairing, legs=legs),
        what="This round robin would plan",
        advice="Enter fewer bots or play fewer games per pairing.",
        fields=("games_per_pairing", "participants"),
    )


def round_robin_shape_check(
    *,
    game_id: str,
    seats: int,
    teams: int,
    format: str,
    games_per_pairing: int,
    bot_ids: Sequence[int],
    all_active: bool,
    rounds: int = 0,
) -> None:
    """Raise ServiceError unless the format, games per pairing and entrants make a round robin (or a Swiss)."""
    if format not in Tournament.Format.values:
        raise ServiceError(
            f"Format is one of {', '.join(Tournament.Format.values)}.", fields={"format": ["invalid choice"]}
        )
    swiss = format == Tournament.Format.SWISS
    knockout = format in (Tournament.Format.KNOCKOUT, Tournament.Format.DOUBLE_ELIMINATION)
    if (swiss or knockout) and teams != 2:
        label = "A Swiss tournament" if swiss else "A knockout"
        raise ServiceError(
            f"{label} pairs two sides a game; {game_id} with {seats} seats has {teams}. Play it as a round robin.",
            code="format_needs_two_teams",
            fields={"format": ["needs two teams"]},
        )
    if not swiss and rounds:
        raise ServiceError("Only a Swiss tournament has rounds.", fields={"rounds": ["not a Swiss"]})
    if not 1 <= games_per_pairing <= 100:
        raise ServiceError("games_per_pairing is 1 to 100.", fields={"games_per_pairing": ["out of range"]})
    if len(set(bot_ids)) != len(bot_ids):
        raise ServiceError("A bot is listed twice.", fields={"participants": ["duplicate bot"]})
    if all_active:
        if bot_ids:
            raise ServiceError(
                "List participants or take all active bots, not both.", fields={"participants": ["with all_active"]}
            )
        return
    if len(bot_ids) < teams:
        raise ServiceError(
            f"A round robin of {game_id} with {seats} seats needs at least {teams} bots.",
            fields={"participants": ["wrong number of bots"]},
        )
    if swiss:
        swiss_check(participants=len(bot_ids), rounds=rounds, games_per_pairing=games_per_pairing)
        return
    if knockout:
        knockout_check(
            participants=len(bot_ids),
            double=format == Tournament.Format.DOUBLE_ELIMINATION,
            games_per_pairing=games_per_pairing,
        )
        return
    legs = 2 if format == Tournament.Format.DOUBLE else 1
    round_robin_check(participants=len(bot_ids), teams=teams, games_per_pairing=games_per_pairing, legs=legs)


def gauntlet_check(*, field: int, games_per_pairing: int) -> int:
    """The number of matches a gauntlet against ``field`` bots plans; ServiceError (400) when over a limit.

    The field counts like a round robin's participants (the challenger is not
    counted), and the matches against the same ARBITER_TOURNAMENT_MAX_MATCHES.
    """
    _field_check(count=field, setting="ARBITER_TOURNAMENT_MAX_PARTICIPANTS", what="A gauntlet's field")
    return _matches_check(
        size=gauntlet_size(field=field, games_per_pairing=games_per_pairing),
        what="This gauntlet would plan",
        advice="Choose a smaller field or play fewer games per pairing.",
        fields=("games_per_pairing", "participants"),
    )


def swiss_check(*, participants: int, rounds: int, games_per_pairing: int) -> int:
    """The most matches a Swiss of this shape plans; ServiceError (400) when over a limit."""
    _field_check(count=participants, setting="ARBITER_SWISS_MAX_PARTICIPANTS", what="A Swiss")
    if rounds > swiss_rounds_most(participants):
        raise ServiceError(
            f"{participants} bots play at most {swiss_rounds_most(participants)} Swiss rounds "
            "(half the field: more cannot always be paired without meeting twice).",
            code="too_many_rounds",
            fields={"rounds": ["too many rounds"]},
        )
    return _matches_check(
        size=swiss_size(participants=participants, rounds=rounds, games_per_pairing=games_per_pairing),
        what="This Swiss would plan up to",
        advice="Enter fewer bots, play fewer rounds or fewer games per pairing.",
        fields=("games_per_pairing", "rounds"),
    )


def knockout_check(*, participants: int, double: bool, games_per_pairing: int) -> int:
    """The most matches a knockout of this shape plays; ServiceError (400) when over a limit.

    Its field is limited like a Swiss's (ARBITER_SWISS_MAX_PARTICIPANTS); the
    most it plays is every pairing with all its deciders.
    """
    _field_check(count=participants, setting="ARBITER_SWISS_MAX_PARTICIPANTS", what="A knockout")
    return _matches_check(
        size=knockout_size(participants=participants, double=double, games_per_pairing=games_per_pairing),
        what="This knockout could play up to",
        advice="Enter fewer bots or play fewer games per pairing.",
        fields=("games_per_pairing", "participants"),
    )


def knockout_fit(*, available: int, double: bool, games_per_pairing: int) -> int:
    """How many of ``available`` bots an all-active knockout can enter within the limits."""
    count = min(available, settings.ARBITER_SWISS_MAX_PARTICIPANTS)
    most = settings.ARBITER_TOURNAMENT_MAX_MATCHES
    while count > 2 and knockout_size(participants=count, double=double, games_per_pairing=games_per_pairing) > most:
        count -= 1
    return count


def gauntlet_fit(*, available: int, games_per_pairing: int) -> int:
    """How many of ``available`` bots an all-active gauntlet's field can take within the limits."""
    most = settings.ARBITER_TOURNAMENT_MAX_MATCHES // games_per_pairing
    return min(available, settings.ARBITER_TOURNAMENT_MAX_PARTICIPANTS, most)


def swiss_fit(*, available: int, rounds: int, games_per_pairing: int) -> int:
    """How many of ``available`` bots an all-active Swiss can enter within the limits."""
    count = min(available, settings.ARBITER_SWISS_MAX_PARTICIPANTS)
    most = settings.ARBITER_TOURNAMENT_MAX_MATCHES
    while count > 2 and swiss_size(participants=count, rounds=rounds, games_per_pairing=games_per_pairing) > most:
        count -= 1
    return count


def round_robin_fit(*, available: int, teams: int, games_per_pairing: int, legs: int) -> int:
    """How many of ``available`` bots an all-active round robin can enter within the limits."""
    count = min(available, settings.ARBITER_TOURNAMENT_MAX_PARTICIPANTS)
    most = settings.ARBITER_TOURNAMENT_MAX_MATCHES
    while count > teams and (
        round_robin_size(participants=count, teams=teams, games_per_group=games_per_pairing, legs=legs) > most
    ):
        count -= 1
    return count


def tournament_rate_check(*, owner: Any) -> None:
    """LimitError (429) when a user (not staff) has made ARBITER_TOURNAMENTS_PER_HOUR tournaments this past hour."""
    if getattr(owner, "is_staff", False):
        return
    most = settings.ARBITER_TOURNAMENTS_PER_HOUR
    since = db_now() - timedelta(hours=1)  # in the query: no round trip for the clock
    made = Tournament.objects.filter(owner_id=owner.id, created__gte=since, schedule__isnull=True).count()
    if made >= most:
        raise LimitError(
            f"You have created {made} tournaments in the past hour; the limit is {most} "
            "(ARBITER_TOURNAMENTS_PER_HOUR). Try again later.",
            code="tournament_limit",
        )


def queue_check(*, owner_id: int, adding: int) -> None:
    """LimitError (429) when ``adding`` matches would put a user over ARBITER_QUEUED_MATCHES_PER_USER queued."""
    most = settings.ARBITER_QUEUED_MATCHES_PER_USER
    if adding == 0:
        return
    queued = Match.objects.filter(owner_id=owner_id, status=Match.Status.QUEUED).count()
    if queued + adding > most:
        raise LimitError(
            f"You have {queued} matches queued and this would add {adding}; at most {most} may wait at once "
            "(ARBITER_QUEUED_MATCHES_PER_USER). Wait for some to be played.",
            code="queue_limit",
        )
