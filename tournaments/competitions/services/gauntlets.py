"""Gauntlets: one bot version, the challenger, against a field, each pairing played in pairs with the seats swapped.

A gauntlet is a ``Tournament`` of format ``gauntlet`` with its ``challenger``
set.  The challenger is also its participant number 0 and the field numbers 1
onwards, so everything a round robin has (start, cancel, withdrawals, the fair
share, standings, the match pages) works on it unchanged.  What differs lives
here: the checks at creation, an all-active gauntlet's field, and the lineups,
in which both games of a pair share one seed (one deal, each side moving first
once).  Its report is ``tournaments.competitions.selectors.gauntlets``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.db.models import Q

from tournaments.bots.models import Bot
from tournaments.bots.selectors import versions_current
from tournaments.competitions.models import Participant, Tournament
from tournaments.competitions.plans import gauntlet_paired, gauntlet_plan
from tournaments.competitions.services.limits import gauntlet_check, gauntlet_fit
from tournaments.errors import ServiceError
from tournaments.matches.life import Lineup
from tournaments.matches.models import Match
from tournaments.matches.seeds import seed_draw

# What the two-sides check calls a gauntlet in its refusal.
TWO_SIDES = "A gauntlet"


def gauntlet_shape_check(
    *, challenger_id: int | None, bot_ids: Sequence[int], games_per_pairing: int, all_active: bool
) -> None:
    """Raise ServiceError unless a challenger and a field (listed, or all active) make a gauntlet within the limits.

    The game's two sides are checked by the caller (``game_config_check`` with ``two_sides``).
    """
    if challenger_id is None:
        raise ServiceError("A gauntlet needs a challenger.", fields={"challenger": ["required"]})
    if not 1 <= games_per_pairing <= 100:
        raise ServiceError("games_per_pairing is 1 to 100.", fields={"games_per_pairing": ["out of range"]})
    if len(set(bot_ids)) != len(bot_ids):
        raise ServiceError("A bot is listed twice.", fields={"participants": ["duplicate bot"]})
    if challenger_id in bot_ids:
        raise ServiceError(
            "The challenger's bot cannot be in its own field (a version test compares two versions of a bot).",
            fields={"participants": ["the challenger's bot"]},
        )
    if all_active:
        if bot_ids:
            raise ServiceError(
                "List the field or take all active bots, not both.", fields={"participants": ["with all_active"]}
            )
        return
    if not bot_ids:
        raise ServiceError("A gauntlet needs at least one bot in its field.", fields={"participants": ["empty field"]})
    gauntlet_check(field=len(bot_ids), games_per_pairing=games_per_pairing)


def gauntlet_field_fill_all_active(*, tournament: Tournament) -> int:
    """Enter every active bot of the game but the challenger's as the field (numbers 1 on); returns how many.

    Public bots and the organiser's own private ones, their current versions,
    as for a round robin; only as many as the limits allow, the lowest bot ids.
    Called by ``tournament_start`` inside its transaction, holding the tournament's lock.
    """
    bots = (
        Bot.objects.filter(game_id=tournament.game_id, active=True)
        .filter(Q(visibility=Bot.Visibility.PUBLIC) | Q(owner_id=tournament.owner_id))
        .exclude(versions=tournament.challenger_id)
    )
    current = versions_current(bot_ids=bots.values_list("id", flat=True))
    versions = [current[bot_id] for bot_id in sorted(current)]
    fit = gauntlet_fit(available=len(versions), games_per_pairing=tournament.games_per_pairing)
    if len(versions) > fit:
        logging.getLogger(__name__).warning(
            "gauntlet %s: %d active bots, entering the first %d", tournament.pk, len(versions), fit
        )
        versions = versions[:fit]
    Participant.objects.filter(tournament=tournament).exclude(bot_version_id=tournament.challenger_id).delete()
    Participant.objects.bulk_create(
        [Participant(tournament=tournament, bot_version_id=v, number=i) for i, v in enumerate(versions, start=1)]
    )
    return len(versions)


def gauntlet_size_check(*, tournament: Tournament, entries: Sequence[int]) -> int:
    """The started gauntlet's planned matches (ServiceError over a limit, or when its challenger was withdrawn)."""
    if tournament.challenger_id not in entries:
        raise ServiceError(
            "The challenger may no longer play (deactivated, or made private by someone else).",
            fields={"challenger": ["withdrawn"]},
        )
    return gauntlet_check(field=len(entries) - 1, games_per_pairing=tournament.games_per_pairing)


def gauntlet_lineups(*, tournament: Tournament, entries: Sequence[int], start: int, stop: int) -> list[Lineup]:
    """The lineups ``start`` to ``stop - 1`` of the gauntlet's plan: challenger and field member per team.

    Both games of a pair get one new secret seed; a slice that begins with a
    pair's second game takes the seed of the first, already inserted.
    ``entries`` are the participants' versions in entry order.
    """
    order: list[Any] = [tournament.challenger_id, *(v for v in entries if v != tournament.challenger_id)]
    field = len(order) - 1
    plan = gauntlet_plan(field=field, games_per_pairing=tournament.games_per_pairing)
    paired = gauntlet_paired(field=field, games_per_pairing=tournament.games_per_pairing)
    seeds: dict[int, int] = {}
    if start % 2 and start < paired:
        first = Match.objects.filter(tournament=tournament, index=start - 1).values_list("seed", flat=True).first()
        seeds[start - 1] = first if first is not None else seed_draw()
    lineups = []
    for index in range(start, min(stop, len(plan))):
        second = index < paired and index % 2 == 1
        seed = seeds[index - 1] if second else seeds.setdefault(index, seed_draw())
        lineups.append(Lineup(versions=tuple(order[p] for p in plan[index]), seed=seed, index=index))
    return lineups
