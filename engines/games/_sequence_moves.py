"""The legal-move table of a ``sequence`` position (kept apart to keep the engine module short).

A position's legal moves map move text to a decoded action ``(kind, card,
square)``, so that applying a listed move never parses text.  The table is
built once per position and never mutated afterwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engines.base import PASS
from engines.games._sequence_board import (
    CARD_SQUARES_BY_NAME,
    CORNER,
    DEAD_TEXT,
    EMPTY,
    NAME_ORDER,
    NON_CORNERS_BY_NAME,
    PLACE_TEXT,
    REMOVE_TEXT,
    TWO_EYED,
)

if TYPE_CHECKING:
    from engines.games.sequence import SequenceState

# Action kinds stored in the legal-move table.
PLACE, REMOVE, DEAD, PASS_KIND = 0, 1, 2, 3
_PASS_ACTION = (PASS_KIND, "", -1)

Actions = dict[str, tuple[int, str, int]]


def legal_actions(state: SequenceState) -> Actions:
    """Legal moves of ``state`` mapped to actions, inserted in sorted order of their text."""
    acts: Actions = {}
    seat = state.turn
    if seat is None:
        return acts
    board = state.board
    bit = 1 << (seat % state.n_teams)
    dead: list[str] = []
    # Card codes are two characters, so sorting by card then by square name
    # sorts the move text; "dead:" and "pass" sort after every card.
    for card in sorted(set(state.hands[seat])):
        if card in PLACE_TEXT:
            texts = PLACE_TEXT[card]
            if card in TWO_EYED:
                for sq in NON_CORNERS_BY_NAME:
                    if board[sq] == EMPTY:
                        acts[texts[sq]] = (PLACE, card, sq)
            else:
                playable = False
                for sq in CARD_SQUARES_BY_NAME[card]:
                    if board[sq] == EMPTY:
                        acts[texts[sq]] = (PLACE, card, sq)
                        playable = True
                if not playable:
                    dead.append(card)
        else:
            texts = REMOVE_TEXT[card]
            locked = state.locked
            adv = state.adv
            for sq in NAME_ORDER:
                v = board[sq]
                if v and not v & bit and v != CORNER and (adv or not locked[sq]):
                    acts[texts[sq]] = (REMOVE, card, sq)
    if dead and not state.exchanged:
        for card in dead:
            acts[DEAD_TEXT[card]] = (DEAD, card, -1)
    if not acts:
        acts[PASS] = _PASS_ACTION
    return acts
