"""What the apps above matches do when a match is made, ends or comes back.

Ratings and competitions sit above matches (they read matches; competitions
create them), so instead of being imported by ``matches.life`` they register
here when their app starts: the ratings once (``ratings/apps.py``), the
competitions per ``Match.Kind`` (``competitions/apps.py``).  ``matches.life``
asks the ratings which new lineups may be rated and has them apply recorded
results (one applier per pool: ``ratings/applier.py``); it calls
:func:`match_ended` inside the recording transaction, then :func:`match_tallied`
with the tournament's count of ended matches (``matches.tally``) as its last
step, and :func:`match_requeued` inside the transaction that puts an ERRORED
match back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db import transaction

from tournaments.matches.models import Match

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class KindHooks:
    """What a kind of match does when one of its matches ends or comes back."""

    #: Inside the recording transaction, after the ratings: (match) -> None.
    ended: Callable[[Match], None] | None = None
    #: After that transaction commits: (match) -> None.  Must not raise.
    committed: Callable[[Match], None] | None = None
    #: Inside the transaction that puts an ERRORED match back in the queue: (match) -> None.
    requeued: Callable[[Match], None] | None = None
    #: Last in the recording transaction of a tournament's match that ended: (match, how many of
    #: the tournament's matches have ended, ``matches.tally``) -> None.  Decides whether it is finished.
    tallied: Callable[[Match, int], None] | None = None


@dataclass(frozen=True)
class RatingHooks:
    """What the ratings do for matches: which lineups may be rated, and a result applied."""

    #: (rating pool, lineups: bot version ids per team) -> positions of the lineups that must not be rated.
    unrated_lineups: Callable[[str, Sequence[Sequence[int]]], set[int]]
    #: At the end of a rated match's recording transaction: (rating pool) -> whether the pool's
    #: pending matches (this one among them) were applied; False when another run holds the pool.
    apply_now: Callable[[str], bool]
    #: After that transaction commits, when ``apply_now`` could not: (rating pool) -> None.
    #: Asks the pool's applier to run soon; must not raise.
    apply_later: Callable[[str], None]


_HOOKS: dict[str, KindHooks] = {}
_RATINGS: list[RatingHooks] = []


def match_ratings_register(hooks: RatingHooks) -> None:
    """Register what the ratings do (once, from the ratings app's ``ready``)."""
    _RATINGS[:] = [hooks]


def match_ratings() -> RatingHooks:
    """The ratings' hooks; an installation without the ratings app cannot record a rated match."""
    if not _RATINGS:
        raise RuntimeError("the ratings app is not installed: no rating hooks registered")
    return _RATINGS[0]


def match_kind_register(kind: str, hooks: KindHooks) -> None:
    """Register the hooks of one kind of match (once per kind, from its app's ``ready``)."""
    _HOOKS[kind] = hooks


def match_ended(match: Match) -> None:
    """Run the ``ended`` hook of the match's kind now and its ``committed`` hook after commit."""
    hooks = _HOOKS.get(match.kind)
    if hooks is None:
        return
    if hooks.ended is not None:
        hooks.ended(match)
    committed = hooks.committed
    if committed is not None:
        transaction.on_commit(lambda: _safely(committed, match))


def match_tallied(match: Match, ended: int) -> None:
    """Run the ``tallied`` hook of the match's kind: its tournament's count of ended matches is now ``ended``."""
    hooks = _HOOKS.get(match.kind)
    if hooks is not None and hooks.tallied is not None:
        hooks.tallied(match, ended)


def match_requeued(match: Match) -> None:
    """Run the ``requeued`` hook of the match's kind (inside the requeueing transaction)."""
    hooks = _HOOKS.get(match.kind)
    if hooks is not None and hooks.requeued is not None:
        hooks.requeued(match)


def _safely(hook: Callable[[Match], None], match: Match) -> None:
    # The result is committed; a failed follow-up is caught up by the next match or a read.
    try:
        hook(match)
    except Exception:
        logger.exception("after match %s was recorded, %s failed", match.pk, getattr(hook, "__name__", hook))
