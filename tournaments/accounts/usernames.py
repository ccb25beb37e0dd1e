# ruff: noqa: RUF001, RUF002 - this module is a table of lookalike letters
"""Usernames compared as a reader sees them: NFKC, case-folded, lookalike letters folded together.

``username_skeleton`` maps every name to a key that two names share when a
reader could mistake one for the other: ``Ada``, ``ada`` and ``аda`` (Cyrillic
``а``) have one skeleton.  The table covers the Cyrillic and Greek letters that
look like Latin ones, and the digits that look like letters; it is a small,
deliberate subset of what Unicode's confusables list holds, enough for the
scripts usernames are written in here.
"""

from __future__ import annotations

import unicodedata

# Lowercase lookalikes (the input is case-folded first), mapped to the Latin letter they pass for.
_LOOKALIKES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ү": "y", "ɡ": "g", "ӏ": "l", "ь": "b", "п": "n", "г": "r", "з": "3", "ԍ": "g",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϲ": "c", "ϳ": "j", "ζ": "z", "μ": "u", "σ": "o", "ς": "c",
    # Latin lookalikes of other Latin letters, and digits read as letters
    "ı": "i", "ł": "l", "ƚ": "l", "0": "o", "1": "l", "|": "l", "5": "s", "ß": "ss",
}  # fmt: skip
_TABLE = str.maketrans(_LOOKALIKES)


def username_normalise(name: str) -> str:
    """The form a username is stored in: NFKC (full-width and compatibility letters become plain ones)."""
    return unicodedata.normalize("NFKC", name).strip()


def username_skeleton(name: str) -> str:
    """The key two usernames share when a reader could take one for the other.

    Case-folded, stripped of combining marks (``é`` reads as ``e``), lookalikes folded; the
    letter ``i`` is folded into ``l`` since a capital ``I`` and a lowercase ``l`` look the same
    in most fonts.
    """
    folded = username_normalise(name).casefold()
    bare = "".join(ch for ch in unicodedata.normalize("NFD", folded) if not unicodedata.combining(ch))
    skeleton = bare.translate(_TABLE).replace("i", "l")
    # rn reads as m at a glance; vv as w.
    return skeleton.replace("rn", "m").replace("vv", "w")
