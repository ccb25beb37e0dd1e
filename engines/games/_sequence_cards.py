"""The cards of a ``sequence`` game: the deal, drawing with reshuffles, re-dealing what a seat cannot see.

Kept apart to keep the engine module short.  Only the state of the random
stream is kept on a position, not a Random object: clones then share an
immutable tuple, and a Random is rebuilt just for the rare reshuffle.

The deal shuffles from the match seed.  Under rules version 3 every
reshuffle has a random stream of its own, keyed by a SHA-512 of the seed
and the ply: the cards a seat sees over a long game never add up to enough
of one stream to solve for it (docs/rules/sequence.md, "The seed is
secret").  Versions 1 and 2 went on with the deal's stream, and replay so.
"""

from __future__ import annotations

import hashlib
import random
from typing import TYPE_CHECKING

from engines.games._sequence_board import FULL_DECK, deal_size

if TYPE_CHECKING:
    from engines.games.sequence import SequenceState

# The rules versions whose reshuffles went on with the deal's random stream.
STREAM_RESHUFFLES = ("1", "2")


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
        rng = _reshuffle_stream(state)
        rng.shuffle(gathered)
        state.rng_state = rng.getstate()
        state.pile = pile = gathered
        state.discards = [[] for _ in range(state.seats)]
    state.hands[seat].append(pile.pop())


def _reshuffle_stream(state: SequenceState) -> random.Random:
    """The random stream of a reshuffle now: its own (rules 3), or the deal's, continued (rules 1 and 2)."""
    if state.rules in STREAM_RESHUFFLES:
        rng = random.Random()
        rng.setstate(state.rng_state)
        return rng
    # One draw a ply at most, so the seed and the ply name each reshuffle once.
    return random.Random(hashlib.sha512(f"arbiter:sequence:reshuffle:{state.seed}:{state.ply}".encode()).digest())


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
    # The future reshuffles are unknown to the seat as well: they follow from the new seed.
    copy.seed = seed
    copy.rng_state = rng.getstate()
    copy._acts = None
    return copy
