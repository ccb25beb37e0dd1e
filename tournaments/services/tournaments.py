"""Tournaments: creation, the round-robin schedule, start and cancel."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from engines import get_engine
from tournaments.models import Bot, BotVersion, Game, Match, MatchSeat, Participant, Tournament
from tournaments.scheduling import match_seed, round_robin_plan
from tournaments.services.errors import ConflictError, ForbiddenError, ServiceError
from tournaments.services.match_config import clocks_check, game_config_check
from tournaments.services.queue import tournament_send

logger = logging.getLogger(__name__)

BATCH_SIZE = 1000
MAX_PARTICIPANTS = 200


def _latest_versions(*, bot_ids: Sequence[int], game: Game, user: Any) -> list[BotVersion]:
    """The latest version of each bot, checking the user may enter it."""
    bots = {b.id: b for b in Bot.objects.filter(id__in=bot_ids)}
    missing = [i for i in bot_ids if i not in bots]
    if missing:
        raise ServiceError(f"Unknown bot id(s): {missing}.", fields={"participants": ["unknown bot"]})
    latest: dict[int, BotVersion] = {}
    for version in BotVersion.objects.filter(bot_id__in=bot_ids).order_by("bot_id", "number"):
        latest[version.bot_id] = version
    out = []
    for bot_id in bot_ids:
        bot = bots[bot_id]
        if bot.game_id != game.id:
            raise ServiceError(
                f"Bot {bot.name!r} plays {bot.game_id}, not {game.id}.", fields={"participants": ["wrong game"]}
            )
        if not bot.active:
            raise ServiceError(f"Bot {bot.name!r} is deactivated.", fields={"participants": ["inactive bot"]})
        if bot.visibility != Bot.Visibility.PUBLIC and bot.owner_id != user.id and not user.is_staff:
            raise ServiceError(f"Unknown bot id(s): [{bot_id}].", fields={"participants": ["unknown bot"]})
        if bot_id not in latest:
            raise ServiceError(f"Bot {bot.name!r} has no version.", fields={"participants": ["no version"]})
        out.append(latest[bot_id])
    return out


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
) -> Tournament:
    """A DRAFT round robin between the latest versions of ``bot_ids``.

    With ``all_active`` the participants are instead every active bot of the
    game, taken when it starts (``bot_ids`` stays empty); with ``start_at``
    the beat starts it at that time (services/schedules.py).
    """
    game = Game.objects.filter(id=game_id, available=True).first()
    if game is None:
        raise ServiceError(f"Unknown game {game_id!r}.", code="unknown_game", fields={"game": ["unknown game"]})
    config = game_config_check(engine=get_engine(game.id), seats=seats, options=options)
    seats, options, pool, teams = config.seats, config.options, config.pool, config.teams
    if format not in Tournament.Format.values:
        raise ServiceError("Format is 'single' or 'double'.", fields={"format": ["invalid choice"]})
    if not 1 <= games_per_pairing <= 100:
        raise ServiceError("games_per_pairing is 1 to 100.", fields={"games_per_pairing": ["out of range"]})
    clocks_check(move_ms=move_ms, game_ms=game_ms, startup_ms=startup_ms)
    if len(set(bot_ids)) != len(bot_ids):
        raise ServiceError("A bot is listed twice.", fields={"participants": ["duplicate bot"]})
    if all_active and bot_ids:
        raise ServiceError(
            "List participants or take all active bots, not both.", fields={"participants": ["with all_active"]}
        )
    if not all_active and not len(teams) <= len(bot_ids) <= MAX_PARTICIPANTS:
        raise ServiceError(
            f"A round robin of {game.id} with {seats} seats needs {len(teams)} to {MAX_PARTICIPANTS} bots.",
            fields={"participants": ["wrong number of bots"]},
        )
    versions = _latest_versions(bot_ids=bot_ids, game=game, user=owner)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            game=game,
            name=name or f"{game.name} round robin",
            owner=owner,
            options=options,
            seats=seats,
            format=format,
            games_per_pairing=games_per_pairing,
            move_ms=move_ms,
            game_ms=game_ms,
            startup_ms=startup_ms,
            rated=rated,
            rating_pool=pool,
            start_at=start_at,
            all_active=all_active,
            schedule=schedule,
        )
        Participant.objects.bulk_create(
            [Participant(tournament=tournament, bot_version=v, number=i) for i, v in enumerate(versions)]
        )
    return tournament


def matches_schedule(*, tournament: Tournament) -> int:
    """Insert every match and seat of the tournament's round robin; returns the match count.

    Call inside the transaction that starts the tournament.  Bulk inserts in
    batches keep a 100-bot round robin (4,950 pairings) to a few seconds.
    """
    engine = get_engine(tournament.game_id)
    teams = engine.teams(tournament.seats, tournament.options)
    versions = list(tournament.entries.order_by("number").values_list("bot_version_id", flat=True))
    legs = 2 if tournament.format == Tournament.Format.DOUBLE else 1
    plan = round_robin_plan(
        participants=len(versions), teams=len(teams), games_per_group=tournament.games_per_pairing, legs=legs
    )
    matches = [
        Match(
            tournament=tournament,
            index=index,
            game_id=tournament.game_id,
            engine_version=engine.version,
            options=tournament.options,
            seats=tournament.seats,
            seed=match_seed(tournament_id=tournament.id, index=index),
            rating_pool=tournament.rating_pool,
            # Participants are distinct versions, so no version sits on two teams.
            rated=tournament.rated,
            move_ms=tournament.move_ms,
            game_ms=tournament.game_ms,
            startup_ms=tournament.startup_ms,
        )
        for index in range(len(plan))
    ]
    Match.objects.bulk_create(matches, batch_size=BATCH_SIZE)
    seats = []
    for match, lineup in zip(matches, plan, strict=True):
        for team, team_seats in enumerate(teams):
            for seat in team_seats:
                seats.append(MatchSeat(match=match, seat=seat, team=team, bot_version_id=versions[lineup[team]]))
    MatchSeat.objects.bulk_create(seats, batch_size=BATCH_SIZE)
    return len(matches)


def tournament_start(*, tournament: Tournament, user: Any) -> Tournament:
    """Schedule every match and hand them to the workers once committed."""
    if tournament.owner_id != user.id and not user.is_staff:
        raise ForbiddenError("Only the tournament's owner can start it.")
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.status != Tournament.Status.DRAFT:
            raise ConflictError(f"The tournament is {locked.status}, not draft.", code="not_draft")
        if locked.all_active:
            from tournaments.services.schedules import participants_fill_all_active

            participants_fill_all_active(tournament=locked)
        count = matches_schedule(tournament=locked)
        locked.status = Tournament.Status.RUNNING if count else Tournament.Status.FINISHED
        locked.started = timezone.now()
        if not count:
            locked.finished = locked.started
        locked.save(update_fields=["status", "started", "finished"])
        if count:
            transaction.on_commit(lambda: tournament_send(tournament_id=locked.pk))
    logger.info("tournament %s started with %d matches", locked.pk, count)
    return locked


def tournament_cancel(*, tournament: Tournament, user: Any) -> Tournament:
    """Cancel a draft or running tournament; queued matches are cancelled, running ones finish."""
    if tournament.owner_id != user.id and not user.is_staff:
        raise ForbiddenError("Only the tournament's owner can cancel it.")
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.status not in (Tournament.Status.DRAFT, Tournament.Status.RUNNING):
            raise ConflictError(f"The tournament is already {locked.status}.", code="not_cancellable")
        now = timezone.now()
        Match.objects.filter(tournament=locked, status=Match.Status.QUEUED).update(
            status=Match.Status.CANCELLED, finished_at=now
        )
        locked.status = Tournament.Status.CANCELLED
        locked.finished = now
        locked.save(update_fields=["status", "finished"])
    return locked


def tournament_finish_if_done(*, tournament_id: int) -> bool:
    """Mark a running tournament FINISHED when none of its matches is queued or running.

    Callers hold the tournament's row lock, so two last matches finishing at
    once cannot both miss each other.
    """
    pending = Match.objects.filter(
        tournament_id=tournament_id, status__in=[Match.Status.QUEUED, Match.Status.RUNNING]
    ).exists()
    if pending:
        return False
    return bool(
        Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.RUNNING).update(
            status=Tournament.Status.FINISHED, finished=timezone.now()
        )
    )
