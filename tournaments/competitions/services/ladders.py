"""The ladder: rated matches that keep idle workers busy, chosen by the database.

A beat task calls ``ladders_top_up`` every few seconds.  While other work
(tournaments, challenges, version tests) is queued it does nothing; when
that queue is empty (or low, see ``ARBITER_LADDER_OTHER_QUEUED_MAX``) it
keeps ``queued_target`` ladder matches waiting per enabled ladder.  Only a
handful of ladder matches ever wait, so a tournament started later waits
for at most those before its own matches run.

Who plays (``ladder_pick``): the bot with the fewest recent ladder games
plays first, so a new version gets its games at once and nobody falls
behind; its opponents are drawn at random, weighted towards a near rating,
among bots not more than ``LEVEL_SLACK`` games ahead of it, and not from
its previous match when there is anyone else.  The weight of an
opponent ``d`` points away is ``exp(-(d / scale)^2)``.  Because every match
includes the least-played bot and nobody more than ``LEVEL_SLACK`` ahead
of it, once the counts are level they stay within ``LEVEL_SLACK + 1`` of
each other.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from engines import get_engine
from tournaments.competitions.models import Ladder
from tournaments.competitions.selectors.ladders import (
    LadderCandidate,
    ladder_candidates,
    ladder_queued_count,
    other_work_queued_count,
)
from tournaments.dbclock import db_clock
from tournaments.errors import ServiceError
from tournaments.games.config import game_config_check
from tournaments.games.models import Game
from tournaments.matches.clocks import clock_check
from tournaments.matches.life import Lineup, MatchConfig, matches_create, matches_enqueue
from tournaments.matches.models import Match
from tournaments.matches.seeds import seed_draw

logger = logging.getLogger(__name__)

# Opponents may be at most this many recent ladder games ahead of the first pick.
LEVEL_SLACK = 2
MAX_QUEUED_TARGET = 50


def ladder_clean(*, ladder: Ladder) -> None:
    """Check a ladder and derive its rating pool from game, options and seats; ServiceError names a bad field."""
    game = Game.objects.filter(id=ladder.game_id, available=True).first()
    if game is None:
        raise ServiceError(f"Unknown game {ladder.game_id!r}.", code="unknown_game", fields={"game": ["unknown"]})
    config = game_config_check(engine=get_engine(game.id), seats=ladder.seats or None, options=ladder.options)
    ladder.seats, ladder.options, ladder.pool = config.seats, config.options, config.pool
    clock_check(ladder.clock)
    if not 1 <= ladder.queued_target <= MAX_QUEUED_TARGET:
        raise ServiceError(f"queued_target is 1 to {MAX_QUEUED_TARGET}.", fields={"queued_target": ["out of range"]})
    clash = Ladder.objects.filter(game_id=ladder.game_id, pool=ladder.pool).exclude(pk=ladder.pk).exists()
    if clash:
        raise ServiceError(f"There is already a ladder for {ladder.pool}.", fields={"options": ["ladder exists"]})


def ladder_save(*, ladder: Ladder) -> Ladder:
    """Validate and save a new or edited ladder."""
    ladder_clean(ladder=ladder)
    ladder.save()
    return ladder


def ladder_pick(
    *,
    candidates: Sequence[LadderCandidate],
    teams: int,
    rng: random.Random,
    rating_scale: float = 200.0,
) -> list[int] | None:
    """Version ids for one ladder match, one per team in seat order; None if too few bots.

    Pure: the caller supplies the counts, so a simulation can call it
    thousands of times without a database.
    """
    if teams < 2 or len(candidates) < teams:
        return None
    first = min(candidates, key=lambda c: (c.recent, c.total, rng.random()))
    chosen = [first]
    rest = [c for c in candidates if c is not first]
    while len(chosen) < teams:
        needed = teams - len(chosen)
        pool = rest
        # Keeping the counts level comes first: nobody more than LEVEL_SLACK
        # games ahead of the first pick or, when too few are that close (a
        # new bot catching up), of the least-played of the rest.
        kth = sorted(c.recent for c in pool)[needed - 1]
        floor = first.recent if kth <= first.recent + LEVEL_SLACK else kth
        pool = [c for c in pool if c.recent <= floor + LEVEL_SLACK]
        fresh = [c for c in pool if c.version_id not in first.last_opponents]
        if len(fresh) >= needed:
            pool = fresh  # then: no immediate rematch while anyone else can play
        taken = {c.owner for c in chosen if c.owner is not None}
        strangers = [c for c in pool if c.owner is None or c.owner not in taken]
        if strangers:
            pool = strangers  # and never two bots of one owner (their game would not be rated)
        anchor = sum(c.elo for c in chosen) / len(chosen)
        weights = [math.exp(-(((c.elo - anchor) / rating_scale) ** 2)) for c in pool]
        pick = rng.choices(pool, weights=weights)[0]
        chosen.append(pick)
        rest.remove(pick)
    # Who sits first (and so moves first) is drawn too.
    rng.shuffle(chosen)
    return [c.version_id for c in chosen]


def ladder_top_up(*, ladder_id: int, now: datetime | None = None, rng: random.Random | None = None) -> list[int]:
    """Bring one enabled ladder's queued matches up to its target; returns the new match ids.

    The conditional UPDATE on the ladder row is the lock: a second top-up of
    the same ladder waits for this transaction, then counts what it queued.
    """
    now = now or db_clock()
    rng = rng or random.Random()
    created: list[int] = []
    with transaction.atomic():
        if not Ladder.objects.filter(pk=ladder_id, enabled=True).update(topped_up_at=now):
            return []
        ladder = Ladder.objects.get(pk=ladder_id)
        wanted = ladder.queued_target - ladder_queued_count(ladder=ladder)
        if wanted <= 0:
            return []
        teams = get_engine(ladder.game_id).teams(ladder.seats, ladder.options)
        config = MatchConfig(
            kind=Match.Kind.LADDER,
            game_id=ladder.game_id,
            options=ladder.options,
            seats=ladder.seats,
            teams=teams,
            rating_pool=ladder.pool,
            rated=True,
            clock=ladder.clock,
            owner_id=None,  # the service's own: run when nobody else waits
        )
        since = now - timedelta(hours=settings.ARBITER_LADDER_WINDOW_H)
        candidates = ladder_candidates(ladder=ladder, since=since)
        by_version = {c.version_id: c for c in candidates}
        for _ in range(wanted):
            lineup = ladder_pick(
                candidates=candidates, teams=len(teams), rng=rng, rating_scale=settings.ARBITER_LADDER_RATING_SCALE
            )
            if lineup is None:
                break
            # ``rng`` picks who plays (tests fix it); the seed is a secret draw all the same.
            created += matches_create(config=config, lineups=[Lineup(versions=tuple(lineup), seed=seed_draw())])
            # Count the new match before the next pick, as the database would.
            for version_id in lineup:
                entry = by_version[version_id]
                entry.recent += 1
                entry.total += 1
                entry.last_opponents = frozenset(set(lineup) - {version_id})

        matches_enqueue(match_ids=created)
    if created:
        logger.info("ladder %s queued matches %s", ladder_id, created)
    return created


def ladders_top_up(*, now: datetime | None = None, rng: random.Random | None = None) -> list[int]:
    """Top up every enabled ladder, but only while other work is scarce; returns the new match ids."""
    if other_work_queued_count() > settings.ARBITER_LADDER_OTHER_QUEUED_MAX:
        return []
    created: list[int] = []
    for ladder_id in Ladder.objects.filter(enabled=True).order_by("id").values_list("id", flat=True):
        created += ladder_top_up(ladder_id=ladder_id, now=now, rng=rng)
    return created


def ladder_match_ended(match: Match) -> None:
    """A ladder match ended: top its ladder up now rather than at the next beat (after commit)."""
    ladder_id = (
        Ladder.objects.filter(game_id=match.game_id, pool=match.rating_pool, enabled=True)
        .values_list("id", flat=True)
        .first()
    )
    if ladder_id is not None and other_work_queued_count() <= settings.ARBITER_LADDER_OTHER_QUEUED_MAX:
        ladder_top_up(ladder_id=ladder_id)
