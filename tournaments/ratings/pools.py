"""Rating pools: which pool a game is rated in, and what a pool's key says (docs/ratings.md).

A pool's key starts with the game's own pool, the engine's ``rating_pool``
(``"gamesup"``, ``"sequence:seats=4,teams=2,advanced=false"``).  That key alone
is a **public** pool: the leaderboards everyone sees, fed only by games the
service chose (the ladder) or staff ran.  ``"<game pool>@<user id>"`` is an
**organiser's** pool: every game of the tournaments and challenges that user
asks for, their own bots' games against each other included.  Whoever plays
in their own pool can only fool themselves there, so nothing a user arranges
reaches a public rank.

With ``ARBITER_RATINGS_ALL_PUBLIC`` (a private deployment whose users trust
each other) every game is rated in the public pools, as before organiser
pools existed; the same-owner rule (``selectors.lineups_sharing_an_owner``)
is then all that stands between an owner and their own ratings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

# Engine pool keys are letters, digits, ':', ',' and '='; '@' never occurs in them.
ORGANISER_MARK = "@"


@dataclass(frozen=True)
class PoolKey:
    """A pool key read back: the game's pool and, for an organiser's pool, whose it is."""

    base: str
    organiser_id: int | None

    @property
    def public(self) -> bool:
        return self.organiser_id is None

    @property
    def game_id(self) -> str:
        return self.base.split(":", 1)[0]


def pool_key_read(pool: str) -> PoolKey:
    """Split a pool key into the game's pool and the organiser (None: a public pool)."""
    base, mark, owner = pool.rpartition(ORGANISER_MARK)
    if mark and base and owner.isdigit():
        return PoolKey(base=base, organiser_id=int(owner))
    return PoolKey(base=pool, organiser_id=None)


def organiser_pool(*, base: str, organiser_id: int) -> str:
    """The key of ``organiser_id``'s own pool for the game's pool ``base``."""
    return f"{pool_key_read(base).base}{ORGANISER_MARK}{organiser_id}"


def rating_pool_choose(*, base: str, organiser: Any) -> str:
    """The pool the games someone asks for are rated in.

    ``organiser`` is the user who chose the lineups (a tournament's owner, a
    challenger); None means the service chose them (the ladder).  Staff-run
    tournaments, the service's games and, with ARBITER_RATINGS_ALL_PUBLIC,
    everyone's games go to the public pool ``base``; any other user's go to
    their own pool.
    """
    base = pool_key_read(base).base
    if organiser is None or getattr(organiser, "is_staff", False) or settings.ARBITER_RATINGS_ALL_PUBLIC:
        return base
    return organiser_pool(base=base, organiser_id=organiser.pk)


def pool_is_public(pool: str) -> bool:
    """Whether a pool key names a public pool (not an organiser's)."""
    return pool_key_read(pool).public


def pool_in_words(pool: str) -> str:
    """A pool's options as a person reads them ("12 players in 3 teams, advanced: no"); "standard" if none.

    The game's name and the organiser are left to the caller.
    """
    _, _, options = pool_key_read(pool).base.partition(":")
    values = dict(part.partition("=")[::2] for part in options.split(",") if part)
    words = []
    seats, teams = values.pop("seats", None), values.pop("teams", None)
    if seats is not None:
        words.append(f"{seats} players" if teams in (None, seats) else f"{seats} players in {teams} teams")
    for key, value in values.items():
        name = key.replace("_", " ")
        words.append(
            f"{name}: {'yes' if value == 'true' else 'no'}" if value in ("true", "false") else f"{name} {value}"
        )
    return ", ".join(words) or "standard"
