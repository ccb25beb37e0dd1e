"""What each kind of match does when one of its matches ends or comes back.

Competitions sit above matches (they create them), so instead of being
imported by ``matches.life`` they register their hooks per ``Match.Kind``
when their app starts (``competitions/apps.py``).  ``matches.life`` calls
:func:`match_ended` inside the recording transaction, after the ratings, and
:func:`match_requeued` inside the transaction that puts an ERRORED match back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
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


_HOOKS: dict[str, KindHooks] = {}


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
