"""The cards of a ``sequence`` game: the deal, drawing with reshuffles, re-dealing what a seat cannot see.

Kept apart to keep the engine module short.  Only the state of the random
stream is kept on a position, not a Random object: clones then share an
immutable tuple, and a Random is rebuilt just for the rare reshuffle.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from engines.games._sequence_board import FULL_DECK, deal_size

if TYPE_CHECKING:
    from engines.games.sequence import SequenceState


def deal(state: SequenceState) -> None:
    """Shuffle two decks from the match seed and deal every hand of the start position."""
    rng = random.Random(state.seed)
    pile = list(FULL_DECK)
    rng.shuffle(pile)
    for _ in range(deal_size(state.seats)):
        for hand in state.hands:
            hand.append(pile.pop())
    state.pile = pile
    state.rng_state = rng.getstate()


def draw(state: SequenceState, seat: int) -> None:
    """Draw one card for ``seat``, first reshuffling every discard pile into an empty draw pile."""
    pile = state.pile
    if not pile:
        gathered = [card for discard in state.discards for card in discard]
        if not gathered:
            return  # nothing anywhere to draw: the hand just shrinks
        rng = random.Random()
        rng.setstate(state.rng_state)
        rng.shuffle(gathered)
        state.rng_state = rng.getstate()
        state.pile = pile = gathered
        state.discards = [[] for _ in range(state.seats)]
    state.hands[seat].append(pile.pop())


def redeal_unseen(state: SequenceState, seat: int, seed: int) -> SequenceState:
    """A copy of ``state`` with every other hand and the draw pile re-dealt from the cards ``seat`` has not seen."""
    copy = state.clone()
    rng = random.Random(seed)
    unseen = [card for s, hand in enumerate(state.hands) if s != seat for card in hand] + list(state.pile)
    rng.shuffle(unseen)
    for s in range(state.seats):
        if s != seat:
            n = len(state.hands[s])
            copy.hands[s] = unseen[:n]
            del unseen[:n]
    copy.pile = unseen
    # The future reshuffles are unknown to the seat as well.
    copy.rng_state = rng.getstate()
    copy._acts = None
    return copy
