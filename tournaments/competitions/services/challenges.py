"""Challenges: games a user asks for between their bot and another public bot.

A challenge of N games creates N matches outside any tournament, rated in
the challenger's own pool (``ratings.pools``: the public pool only with
ARBITER_RATINGS_ALL_PUBLIC or for staff);
with ``swap_seats`` the two bots change sides every game, so in an even
series each moves first equally often.  A user may create at most
``ARBITER_CHALLENGES_PER_DAY`` challenges per UTC day.  The challenger may
cancel the games not yet played out (``challenge_cancel``).

An opponent whose owner asked to be asked (``Bot.challenges_ask``) gets
another user's challenge as ``pending``, with no match yet: its owner
accepts it (the matches are made then) or declines it (``challenge_answer``).
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from engines import get_engine
from tournaments.bots.models import Bot, BotVersion
from tournaments.bots.selectors import version_current
from tournaments.competitions.models import Challenge, ChallengeMatch
from tournaments.dbclock import db_clock
from tournaments.errors import ConflictError, ForbiddenError, ServiceError
from tournaments.games.config import game_config_check
from tournaments.matches.clocks import clock_check
from tournaments.matches.life import Lineup, MatchConfig, matches_cancel, matches_create, matches_enqueue
from tournaments.matches.models import Match
from tournaments.matches.seeds import seed_draw
from tournaments.ratings.pools import rating_pool_choose
from workers.match import Clock


class ChallengeLimitError(ServiceError):
    """The user's challenges for today are used up."""

    status_code = 429

    def __init__(self, message: str, *, code: str = "challenge_limit", fields: dict[str, Any] | None = None) -> None:
        super().__init__(message, code=code, fields=fields)


def _current_version(*, bot: Bot, field: str) -> BotVersion:
    version = version_current(bot_id=bot.id)
    if version is None:
        raise ServiceError(f"Bot {bot.name!r} has no active version.", fields={field: ["no active version"]})
    return version


def _day_start(now: datetime) -> datetime:
    return datetime.combine(now.date(), time.min, tzinfo=now.tzinfo)


def challenges_left_today(*, user: Any, now: datetime | None = None) -> int:
    """How many more challenges ``user`` may create before the UTC day ends."""
    now = now or db_clock()  # a value: the UTC day is taken from it
    used = Challenge.objects.filter(challenger_id=user.id, created__gte=_day_start(now)).count()
    return max(0, settings.ARBITER_CHALLENGES_PER_DAY - used)


def challenge_create(
    *,
    challenger: Any,
    bot_id: int,
    opponent_id: int,
    games: int = 1,
    swap_seats: bool = True,
    seats: int | None = None,
    options: dict[str, Any] | None = None,
    move_ms: int = 1000,
    game_ms: int = 60000,
    startup_ms: int = 10000,
) -> Challenge:
    """Create a challenge and its matches (rated in the challenger's own pool), queued once committed;
    or, against another user's bot whose owner asked to be asked, a pending challenge with none yet.

    ``bot_id`` must be the challenger's own active bot; ``opponent_id`` any
    active bot of the same game that the challenger may see (public, or
    their own).  Each plays its newest version that is not retired.
    """
    bot, opponent = _challenge_sides(challenger=challenger, bot_id=bot_id, opponent_id=opponent_id)
    if not 1 <= games <= settings.ARBITER_CHALLENGE_MAX_GAMES:
        limit = settings.ARBITER_CHALLENGE_MAX_GAMES
        raise ServiceError(f"games is 1 to {limit}.", fields={"games": ["out of range"]})
    clock_check(Clock(move_ms=move_ms, game_ms=game_ms, startup_ms=startup_ms))
    engine = get_engine(bot.game_id)
    checked = game_config_check(engine=engine, seats=seats, options=options, two_sides="A challenge")
    seats, options = checked.seats, checked.options
    mine = _current_version(bot=bot, field="bot")
    theirs = _current_version(bot=opponent, field="opponent")
    with transaction.atomic():
        # Lock the challenger so two requests at once cannot both take the last challenge of the day.
        get_user_model().objects.select_for_update().filter(pk=challenger.pk).first()
        if challenges_left_today(user=challenger) <= 0:
            raise ChallengeLimitError(
                f"You have used your {settings.ARBITER_CHALLENGES_PER_DAY} challenges for today (UTC)."
            )
        ask = opponent.challenges_ask and opponent.owner_id != challenger.id
        challenge = Challenge.objects.create(
            answer=Challenge.Answer.PENDING if ask else Challenge.Answer.NOT_ASKED,
            challenger=challenger,
            game_id=bot.game_id,
            bot_version=mine,
            opponent_version=theirs,
            games=games,
            swap_seats=swap_seats,
            options=options,
            seats=seats,
            move_ms=move_ms,
            game_ms=game_ms,
            startup_ms=startup_ms,
        )
        if not ask:
            _challenge_matches_create(challenge=challenge)
    return challenge


def challenge_answer(*, challenge: Challenge, user: Any, accept: bool) -> Challenge:
    """The opponent's owner accepts (its matches are made and queued) or declines a pending challenge.

    ForbiddenError for anyone else; ConflictError when it was already answered.
    """
    if challenge.opponent_version.bot.owner_id != user.id:
        raise ForbiddenError("Only the challenged bot's owner can answer a challenge.")
    with transaction.atomic():
        answer = Challenge.Answer.ACCEPTED if accept else Challenge.Answer.DECLINED
        # The conditional UPDATE is the lock: a second answer finds nothing pending.
        if not Challenge.objects.filter(pk=challenge.pk, answer=Challenge.Answer.PENDING).update(answer=answer):
            raise ConflictError("The challenge was already answered, or never asked.", code="already_answered")
        challenge.answer = answer
        if accept:
            _challenge_matches_create(challenge=challenge)
    return challenge


def _challenge_sides(*, challenger: Any, bot_id: int, opponent_id: int) -> tuple[Bot, Bot]:
    """The challenger's own active bot and an active opponent of the same game it may see."""
    bot = Bot.objects.filter(id=bot_id).first()
    if bot is None:
        raise ServiceError(f"Unknown bot id {bot_id}.", fields={"bot": ["unknown bot"]})
    if bot.owner_id != challenger.id:
        raise ForbiddenError("Challenge with a bot of your own.", fields={"bot": ["not your bot"]})
    opponent = Bot.objects.filter(id=opponent_id).first()
    if opponent is None or (opponent.visibility != Bot.Visibility.PUBLIC and opponent.owner_id != challenger.id):
        raise ServiceError(f"Unknown bot id {opponent_id}.", fields={"opponent": ["unknown bot"]})
    if opponent.id == bot.id:
        raise ServiceError("A bot cannot challenge itself.", fields={"opponent": ["same bot"]})
    if opponent.game_id != bot.game_id:
        raise ServiceError(
            f"{bot.name!r} plays {bot.game_id} but {opponent.name!r} plays {opponent.game_id}.",
            fields={"opponent": ["wrong game"]},
        )
    for name, b in (("bot", bot), ("opponent", opponent)):
        if not b.active:
            raise ServiceError(f"Bot {b.name!r} is deactivated.", fields={name: ["inactive bot"]})
    return bot, opponent


def _challenge_matches_create(*, challenge: Challenge) -> None:
    """The challenge's matches (inside its transaction), queued once committed."""
    checked = game_config_check(engine=get_engine(challenge.game_id), seats=challenge.seats, options=challenge.options)
    config = MatchConfig(
        kind=Match.Kind.CHALLENGE,
        game_id=challenge.game_id,
        options=checked.options,
        seats=checked.seats,
        teams=checked.teams,
        # Rated in the challenger's own pool (docs/ratings.md): they chose the opponent.
        rating_pool=rating_pool_choose(base=checked.pool, organiser=challenge.challenger),
        rated=True,
        clock=challenge.clock,
        owner_id=challenge.challenger_id,
    )
    mine, theirs = challenge.bot_version_id, challenge.opponent_version_id
    # With swap_seats the two bots change sides every game.
    sides = [(theirs, mine) if challenge.swap_seats and n % 2 == 1 else (mine, theirs) for n in range(challenge.games)]
    match_ids = matches_create(
        config=config,
        lineups=[Lineup(versions=side, seed=seed_draw(), index=n) for n, side in enumerate(sides)],
    )
    ChallengeMatch.objects.bulk_create(
        [ChallengeMatch(challenge=challenge, match_id=m, number=n + 1) for n, m in enumerate(match_ids)]
    )
    matches_enqueue(match_ids=match_ids)


def challenge_cancel(*, challenge: Challenge, user: Any) -> int:
    """Cancel the challenge's queued and running games (running ones have their bots stopped); returns how many.

    Only the challenger (or staff) may; a challenge with no game left to play
    is a ConflictError.  The games already played keep their results.
    """
    if challenge.challenger_id != user.id and not user.is_staff:
        raise ForbiddenError("Only the challenger can cancel a challenge.")
    # No lock but the matches': nothing that records a challenge's game locks anything of the challenge.
    cancelled = matches_cancel(matches=Match.objects.filter(challenge_link__challenge_id=challenge.pk))
    if not cancelled:
        raise ConflictError("The challenge has no game left to play.", code="not_cancellable")
    return cancelled
