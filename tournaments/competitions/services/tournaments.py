"""Tournaments: creation, participants, the schedule of matches, start and cancel (their end: ``endings.py``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from engines import get_engine
from tournaments.bots.models import Bot
from tournaments.bots.selectors import versions_current
from tournaments.competitions.models import Participant, Tournament
from tournaments.competitions.plans import round_robin_plan
from tournaments.competitions.services.entrants import bot_may_enter, entrants_choose
from tournaments.competitions.services.gauntlets import (
    TWO_SIDES,
    gauntlet_field_fill_all_active,
    gauntlet_lineups,
    gauntlet_shape_check,
    gauntlet_size_check,
)
from tournaments.competitions.services.limits import (
    knockout_fit,
    queue_check,
    round_robin_check,
    round_robin_fit,
    round_robin_shape_check,
    swiss_fit,
    tournament_rate_check,
)
from tournaments.competitions.tasks import tournament_fill
from tournaments.dbclock import db_clock
from tournaments.errors import ConflictError, ForbiddenError, ServiceError
from tournaments.games.config import game_config_check
from tournaments.games.models import Game
from tournaments.matches.clocks import clock_check
from tournaments.matches.life import Lineup, MatchConfig, matches_cancel, matches_create, matches_enqueue
from tournaments.matches.models import Match
from tournaments.matches.seeds import seed_draw
from tournaments.ratings.pools import rating_pool_choose
from workers.match import Clock

logger = logging.getLogger(__name__)


def tournament_create(
    *,
    owner: Any,
    game_id: str,
    name: str,
    bot_ids: Sequence[int],
    options: dict[str, Any] | None = None,
    seats: int | None = None,
    format: str = Tournament.Format.SINGLE,
    games_per_pairing: int = 2,
    move_ms: int = 1000,
    game_ms: int = 60000,
    startup_ms: int = 10000,
    rated: bool = True,
    start_at: Any = None,
    all_active: bool = False,
    schedule: Any = None,
    version_ids: Sequence[int] = (),
    challenger_id: int | None = None,
    rounds: int = 0,
    seeding: str = Tournament.Seeding.RATING,
) -> Tournament:
    """A DRAFT round robin (or Swiss of ``rounds`` rounds; 0: from the field; or knockout) of ``bot_ids``' versions.

    A Swiss or knockout is seeded at its start as ``seeding`` says (by rating, or a random draw).

    ``version_ids`` pins some participants to other versions of their bots.
    With ``all_active`` the participants are instead every active bot of the
    game, taken when it starts (``bot_ids`` stays empty); with ``start_at``
    the beat starts it at that time (services/schedules.py).  A gauntlet
    (format ``gauntlet``) plays the bot ``challenger_id`` (its current
    version, or the one pinned in ``version_ids``) against the field
    ``bot_ids`` (or every other active bot), in games between two sides.
    """
    game = Game.objects.filter(id=game_id, available=True).first()
    if game is None:
        raise ServiceError(f"Unknown game {game_id!r}.", code="unknown_game", fields={"game": ["unknown game"]})
    gauntlet = format == Tournament.Format.GAUNTLET
    if challenger_id is not None and not gauntlet:
        raise ServiceError("Only a gauntlet has a challenger.", fields={"challenger": ["not a gauntlet"]})
    config = game_config_check(
        engine=get_engine(game.id), seats=seats, options=options, two_sides=TWO_SIDES if gauntlet else ""
    )
    seats, options, pool, teams = config.seats, config.options, config.pool, config.teams
    clock_check(Clock(move_ms=move_ms, game_ms=game_ms, startup_ms=startup_ms))
    if seeding not in Tournament.Seeding.values:
        raise ServiceError(
            f"Seeding is one of {', '.join(Tournament.Seeding.values)}.", fields={"seeding": ["invalid choice"]}
        )
    if gauntlet:
        if rounds:
            raise ServiceError("Only a Swiss tournament has rounds.", fields={"rounds": ["not a Swiss"]})
        gauntlet_shape_check(
            challenger_id=challenger_id, bot_ids=bot_ids, games_per_pairing=games_per_pairing, all_active=all_active
        )
        bot_ids = [challenger_id, *bot_ids] if challenger_id is not None else bot_ids
    else:
        round_robin_shape_check(
            game_id=game.id,
            seats=seats,
            teams=len(teams),
            format=format,
            games_per_pairing=games_per_pairing,
            bot_ids=bot_ids,
            all_active=all_active,
            rounds=rounds,
        )
    if schedule is None:
        tournament_rate_check(owner=owner)
    versions = entrants_choose(bot_ids=bot_ids, game=game, user=owner, version_ids=version_ids)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            game=game,
            name=name or f"{game.name} {'gauntlet' if gauntlet else 'round robin'}",
            owner=owner,
            options=options,
            seats=seats,
            format=format,
            games_per_pairing=games_per_pairing,
            move_ms=move_ms,
            game_ms=game_ms,
            startup_ms=startup_ms,
            rated=rated,
            rating_pool=rating_pool_choose(base=pool, organiser=owner),
            start_at=start_at,
            all_active=all_active,
            schedule=schedule,
            # The challenger is entered first: participant number 0.
            challenger_id=versions[0] if gauntlet else None,
            rounds=rounds,
            seeding=seeding,
        )
        Participant.objects.bulk_create(
            [Participant(tournament=tournament, bot_version_id=v, number=i) for i, v in enumerate(versions)]
        )
    return tournament


def _participants_fill_all_active(*, tournament: Tournament) -> int:
    """Enter the current version of every active bot of the game; returns how many.

    Public bots, plus the organiser's own private ones.  Called by
    ``tournament_start`` inside its transaction, holding the tournament's lock.
    """
    if tournament.format == Tournament.Format.GAUNTLET:
        return gauntlet_field_fill_all_active(tournament=tournament)
    bots = Bot.objects.filter(game_id=tournament.game_id, active=True).filter(
        Q(visibility=Bot.Visibility.PUBLIC) | Q(owner_id=tournament.owner_id)
    )
    current = versions_current(bot_ids=bots.values_list("id", flat=True))
    versions = [current[bot_id] for bot_id in sorted(current)]
    teams = len(get_engine(tournament.game_id).teams(tournament.seats, tournament.options))
    if tournament.format in (Tournament.Format.KNOCKOUT, Tournament.Format.DOUBLE_ELIMINATION):
        fit = knockout_fit(
            available=len(versions),
            double=tournament.format == Tournament.Format.DOUBLE_ELIMINATION,
            games_per_pairing=tournament.games_per_pairing,
        )
    elif tournament.format == Tournament.Format.SWISS:
        fit = swiss_fit(
            available=len(versions), rounds=tournament.rounds, games_per_pairing=tournament.games_per_pairing
        )
    else:
        fit = round_robin_fit(
            available=len(versions), teams=teams, games_per_pairing=tournament.games_per_pairing, legs=_legs(tournament)
        )
    if len(versions) > fit:
        # The limits on participants and matches decide how many enter: the lowest bot ids.
        logger.warning("tournament %s: %d active bots, entering the first %d", tournament.pk, len(versions), fit)
        versions = versions[:fit]
    Participant.objects.filter(tournament=tournament).delete()
    Participant.objects.bulk_create(
        [Participant(tournament=tournament, bot_version_id=v, number=i) for i, v in enumerate(versions)]
    )
    return len(versions)


def _legs(tournament: Tournament) -> int:
    return 2 if tournament.format == Tournament.Format.DOUBLE else 1


def _matches_schedule(*, tournament: Tournament) -> tuple[list[int], int]:
    """Check the round robin against the limits and insert its matches if small; (match ids, planned size).

    A round robin of more than ARBITER_TOURNAMENT_INLINE_MATCHES matches is
    only counted here: the caller sets ``planned`` and a task inserts it in
    batches (services/filling.py), so the starting request stays short.
    Call inside the transaction that starts the tournament.
    """
    if tournament.format == Tournament.Format.SWISS:
        # rounds.py builds on this module, so it is imported where it is needed.
        from tournaments.competitions.services.rounds import swiss_start

        ids = swiss_start(tournament=tournament)
        return ids, len(ids)
    if tournament.format in (Tournament.Format.KNOCKOUT, Tournament.Format.DOUBLE_ELIMINATION):
        from tournaments.competitions.services.knockouts import knockout_start

        ids = knockout_start(tournament=tournament)
        return ids, len(ids)
    teams = get_engine(tournament.game_id).teams(tournament.seats, tournament.options)
    if tournament.format == Tournament.Format.GAUNTLET:
        entries = list(tournament.entries.values_list("bot_version_id", flat=True))
        size = gauntlet_size_check(tournament=tournament, entries=entries)
    else:
        size = round_robin_check(
            participants=tournament.entries.count(),
            teams=len(teams),
            games_per_pairing=tournament.games_per_pairing,
            legs=_legs(tournament),
        )
    if not tournament.owner.is_staff:
        queue_check(owner_id=tournament.owner_id, adding=size)
    if size > settings.ARBITER_TOURNAMENT_INLINE_MATCHES:
        return [], size
    return tournament_matches_insert(tournament=tournament, start=0, stop=size), size


def tournament_matches_insert(*, tournament: Tournament, start: int, stop: int) -> list[int]:
    """Insert the matches ``start`` to ``stop - 1`` of the tournament's plan (its order), each with a new seed.

    The plan is a pure function of the entries and the format, so any slice
    can be inserted at any time and the whole is the same as in one go; the
    seeds are secret draws, a function of nothing (matches/seeds.py).
    """
    teams = get_engine(tournament.game_id).teams(tournament.seats, tournament.options)
    versions = list(tournament.entries.order_by("number").values_list("bot_version_id", flat=True))
    config = tournament_match_config(tournament=tournament, teams=teams)
    return matches_create(config=config, lineups=_lineups(tournament, versions, len(teams), start, stop))


def tournament_match_config(*, tournament: Tournament, teams: list[list[int]]) -> MatchConfig:
    """What every match of the tournament shares, whatever its format."""
    return MatchConfig(
        kind=Match.Kind.TOURNAMENT,
        tournament_id=tournament.pk,
        game_id=tournament.game_id,
        options=tournament.options,
        seats=tournament.seats,
        teams=teams,
        rating_pool=tournament.rating_pool,
        # Participants are distinct versions, so no version sits on two teams.
        rated=tournament.rated,
        clock=tournament.clock,
        owner_id=tournament.owner_id,
        priority=tournament.priority,
    )


def _lineups(tournament: Tournament, versions: list[int], teams: int, start: int, stop: int) -> list[Lineup]:
    if tournament.format == Tournament.Format.GAUNTLET:
        return gauntlet_lineups(tournament=tournament, entries=versions, start=start, stop=stop)
    plan = round_robin_plan(
        participants=len(versions), teams=teams, games_per_group=tournament.games_per_pairing, legs=_legs(tournament)
    )
    return [
        Lineup(versions=tuple(versions[p] for p in plan[index]), seed=seed_draw(), index=index)
        for index in range(start, min(stop, len(plan)))
    ]


def _participants_recheck(*, tournament: Tournament) -> list[str]:
    """Drop the entries whose bot may no longer play; returns their names.

    An entry was checked when the tournament was created, but a draft can wait:
    by the start its bot may be deactivated, made private by someone other than
    the organiser, or (after an admin's edit) of another game.
    """
    entries = list(
        Participant.objects.filter(tournament=tournament)
        .select_related("bot_version__bot")
        .defer("bot_version__package")
    )
    gone = [
        e
        for e in entries
        if not e.bot_version.bot.active
        or e.bot_version.bot.game_id != tournament.game_id
        or not bot_may_enter(e.bot_version.bot, owner_id=tournament.owner_id)
    ]
    if gone:
        Participant.objects.filter(id__in=[e.id for e in gone]).delete()
        logger.info("tournament %s: %d withdrawn participant(s) dropped at start", tournament.pk, len(gone))
    return [e.bot_version.bot.name for e in gone]


def tournament_start(*, tournament: Tournament, user: Any) -> Tournament:
    """Schedule every match and hand them to the workers once committed.

    Participants are checked again first: one withdrawn since the draft was made
    (deactivated, made private, another game) is dropped, not entered.
    """
    if tournament.owner_id != user.id and not user.is_staff:
        raise ForbiddenError("Only the tournament's owner can start it.")
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().select_related("owner").get(pk=tournament.pk)
        if locked.status != Tournament.Status.DRAFT:
            raise ConflictError(f"The tournament is {locked.status}, not draft.", code="not_draft")
        if locked.all_active:
            _participants_fill_all_active(tournament=locked)
        else:
            _participants_recheck(tournament=locked)
        # The pool is settled now, by the rule in force (a draft may be older than it): the owner's own, or public.
        locked.rating_pool = rating_pool_choose(base=locked.rating_pool, organiser=locked.owner)
        match_ids, planned = _matches_schedule(tournament=locked)
        locked.planned = planned
        locked.status = Tournament.Status.RUNNING if planned else Tournament.Status.FINISHED
        locked.started = db_clock()  # a value: the caller reads the tournament back
        if not planned:
            locked.finished = locked.started
        locked.save(update_fields=["status", "started", "finished", "planned", "rating_pool"])
        matches_enqueue(match_ids=match_ids)
        if planned > len(match_ids):
            tournament_id = locked.pk
            transaction.on_commit(lambda: _fill_later(tournament_id))
    logger.info("tournament %s started: %d matches planned, %d inserted", locked.pk, planned, len(match_ids))
    return locked


def _fill_later(tournament_id: int) -> None:
    try:
        tournament_fill.apply_async(args=(tournament_id,), queue=settings.ARBITER_BEAT_QUEUE)
    except Exception:  # the broker is down: the beat's check for unfilled tournaments sends it later
        logger.warning("could not send the fill of tournament %s; the beat sends it", tournament_id)


def tournament_cancel(*, tournament: Tournament, user: Any) -> Tournament:
    """Cancel a draft or running tournament and its matches: queued ones, and running ones (their bots are stopped).

    Nothing of a cancelled match is rated or counted; the workers playing one
    stop it within ``ARBITER_CANCEL_CHECK_S`` (``matches.runner``).
    """
    if tournament.owner_id != user.id and not user.is_staff:
        raise ForbiddenError("Only the tournament's owner can cancel it.")
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.status not in (Tournament.Status.DRAFT, Tournament.Status.RUNNING):
            raise ConflictError(f"The tournament is already {locked.status}.", code="not_cancellable")
        now = db_clock()  # a value: the cancelled tournament is returned with its finish time
        # The tournament's row is locked first, as a recording does: a result being written waits, then is refused.
        matches_cancel(matches=Match.objects.filter(tournament=locked), at=now)
        locked.status = Tournament.Status.CANCELLED
        locked.finished = now
        locked.save(update_fields=["status", "finished"])
    return locked


def tournament_priority_set(*, tournament: Tournament, user: Any, priority: int) -> Tournament:
    """Staff move a tournament's queued matches ahead of everyone's (higher first) or back to a fair share (0)."""
    if not user.is_staff:
        raise ForbiddenError("Only staff change a tournament's priority.")
    if not -100 <= priority <= 100:
        raise ServiceError("priority is -100 to 100.", fields={"priority": ["out of range"]})
    with transaction.atomic():
        Tournament.objects.filter(pk=tournament.pk).update(priority=priority)
        Match.objects.filter(tournament_id=tournament.pk, status=Match.Status.QUEUED).update(priority=priority)
    tournament.priority = priority
    return tournament
