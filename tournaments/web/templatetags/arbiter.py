"""One format per quantity on every page: Elo with one decimal, changes with their sign, booleans as true/false."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments.ratings.pools import pool_in_words, pool_is_public

register = template.Library()

NONE = "\u2013"  # an en dash stands for "no value", as elsewhere on the pages


@register.filter
def elo(value: Any) -> str:
    """A rating with one decimal ("1523.4"); a dash when there is none."""
    if value is None or value == "":
        return NONE
    return f"{float(value):.1f}"


@register.filter
def elo_change(value: Any) -> str:
    """A rating change with one decimal and its sign ("+12.3", "-4.0", "±0.0")."""
    if value is None or value == "":
        return NONE
    rounded = round(float(value), 1)
    if rounded == 0:
        return "±0.0"
    return f"{rounded:+.1f}"


@register.filter
def plain(value: Any) -> Any:
    """Booleans as the API writes them (true / false); anything else unchanged."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


@register.filter
def pool_words(pool: str) -> str:
    """A rating pool as a person reads it ("12 players in 3 teams"), marked when it is an organiser's own."""
    words = pool_in_words(pool)
    return words if pool_is_public(pool) else f"{words} (own pool)"
