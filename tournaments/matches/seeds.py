"""Match seeds: secret random numbers, and when one may be shown.

A game with chance (Sequence's shuffles) plays its deal from the match's
seed, and a bot has the engines in its sandbox: a seat that knew or could
guess the seed would know every other hand and every card to come.  So each
match's seed is 63 bits from the operating system's secure source, drawn
when the match is made and kept in its row (every run of the match plays
the same deal), and no bot, page or API answer shows it before the end.

When the end has come: a match's seed is shown once it has finished, and,
for a game whose seed decides something (hidden information or chance),
only when no match with the same seed may still be played.  Only version
tests and gauntlets share a seed on purpose (a pair plays one deal twice,
seats swapped);
a match that errored may be queued again, so it keeps its seed hidden too.
Staff read every seed in the admin.  The argument that a seat cannot find
the seed is in docs/rules/sequence.md; the API field is in docs/api.md.
"""

from __future__ import annotations

import secrets

from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q

from engines import all_engines
from tournaments.matches.models import Match

# A seed fits the signed 64-bit column as a non-negative number.
SEED_BITS = 63
# Matches that may still play their seed: queued or running, or errored (staff may queue it again).
IN_PLAY = (Match.Status.QUEUED, Match.Status.RUNNING, Match.Status.ERRORED)


def seed_draw() -> int:
    """A new match seed: ``SEED_BITS`` bits from the operating system's secure random source."""
    return secrets.randbits(SEED_BITS)


def games_with_secret_seeds() -> list[str]:
    """The games whose seed decides something a seat cannot see or foresee (hidden information or chance)."""
    return sorted(e.id for e in all_engines() if e.hidden_information or e.has_chance)


def seed_shown() -> ExpressionWrapper:
    """A boolean expression over a match row: may its seed be shown to users? (``.annotate(seed_shown=...)``)

    True for a finished match, unless its game keeps seeds secret and another
    match of that game with the same seed may still be played.
    """
    twin_in_play = Exists(
        Match.objects.filter(seed=OuterRef("seed"), game_id=OuterRef("game_id"), status__in=IN_PLAY).exclude(
            pk=OuterRef("pk")
        )
    )
    ended = Q(status=Match.Status.FINISHED)
    return ExpressionWrapper(
        ended & (~Q(game_id__in=games_with_secret_seeds()) | ~twin_in_play), output_field=BooleanField()
    )
