"""Sequence: the card-and-board game for 2 to 12 players in up to three teams.

Rules for bot authors: docs/rules/sequence.md.  The only engine with hidden
information (hands, the draw pile's order) and chance (shuffles from the
match seed).

Rule versions: "2" puts a played card on its discard pile before the draw,
so a reshuffle at that draw includes it, as the rules text orders the turn
("place it face up on a discard pile ... Finally, you draw").  Version "1"
drew first and discarded after.  Version "3" gives every reshuffle a random
stream of its own, keyed by the secret seed (``_sequence_cards``), where
"1" and "2" went on with the deal's.  The older versions are kept,
selectable by version only, so that matches recorded under them replay
move for move.

Internally a square holds a bit mask: 0 empty, ``1 << team`` for a chip and
all team bits for a corner, so "this square counts for team t" is one ``&``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.base import JSON, Engine, IllegalMoveError, InvalidOptionsError, InvalidStateError, Option, Result, State
from engines.games._sequence_board import (
    CARD_SQUARES,
    CORNER,
    CORNERS,
    EMPTY,
    LAYOUT,
    ONE_EYED,
    SQUARE_INDEX,
    SQUARE_NAMES,
    TWO_EYED,
)
from engines.games._sequence_cards import deal, draw, redeal_unseen
from engines.games._sequence_json import dump_state, load_state
from engines.games._sequence_marks import mark, unmark
from engines.games._sequence_moves import DEAD, PASS_KIND, PLACE, Actions, legal_actions
from engines.ranks import team_ranks

# The rules version that discarded a played card only after the draw.
DRAW_THEN_DISCARD = "1"


def _resolve_teams(seats: int, teams: int) -> int:
    """The team count for ``seats`` players given the option value (0 = the rules' default)."""
    if seats <= 3:
        return seats
    if teams == 0:
        return 2 if seats % 2 == 0 else 3
    return teams


class SequenceState(State):
    """One position of a Sequence game, hands and random stream included."""

    __slots__ = (
        "_acts",
        "_result",
        "adv",
        "board",
        "discards",
        "exchanged",
        "hands",
        "last_move",
        "locked",
        "max_plies",
        "n_teams",
        "pile",
        "rng_state",
        "rules",
        "sequences",
        "target",
        "turn",
    )
    _header_keys = ("engine", "version", "seats", "options", "seed", "ply")

    def __init__(
        self, engine: SequenceEngine, options: dict[str, Any], seats: int, seed: int, rules: str | None = None
    ) -> None:
        self._setup(engine, options, seed, seats)
        # The rules version this game is played under (engine.version unless replaying an old match).
        self.rules = engine.version if rules is None else rules
        self.n_teams = options["teams"]
        self.target = 2 if self.n_teams == 2 else 1
        self.adv = options["advanced"]
        self.max_plies = options["max_plies"]
        self.board = [EMPTY] * 100
        for sq in CORNERS:
            self.board[sq] = CORNER
        # How many marked sequences hold each square: nonzero squares are locked.
        self.locked = [0] * 100
        self.sequences: list[tuple[int, tuple[int, ...]]] = []
        self.hands: list[list[str]] = [[] for _ in range(seats)]
        self.discards: list[list[str]] = [[] for _ in range(seats)]
        self.pile: list[str] = []
        self.turn: int | None = 0
        self.exchanged = False
        self.last_move: str | None = None
        self.rng_state: tuple = ()
        self._result: Result | None = None
        self._acts: Actions | None = None

    # -- queries --------------------------------------------------------------

    def to_move(self) -> int | None:
        return self.turn

    def is_terminal(self) -> bool:
        return self._result is not None

    def result(self) -> Result | None:
        return self._result

    def team_of(self, seat: int) -> int:
        """The team index of ``seat``."""
        return seat % self.n_teams

    def sequence_counts(self) -> list[int]:
        """Marked sequences per team."""
        counts = [0] * self.n_teams
        for team, _ in self.sequences:
            counts[team] += 1
        return counts

    def legal_moves(self) -> list[str]:
        acts = self._acts
        if acts is None:
            acts = self._acts = legal_actions(self)
        return list(acts)

    # -- moves --------------------------------------------------------------

    def apply(self, move: str) -> None:
        acts = self._acts
        if acts is None:
            acts = self._acts = legal_actions(self)
        action = acts.get(move) if isinstance(move, str) else None
        if action is None:
            if self._result is not None:
                raise IllegalMoveError(f"the game is over; {move!r} cannot be played")
            raise IllegalMoveError(f"{move!r} is not a legal move here")
        kind, card, sq = action
        seat: int = self.turn  # type: ignore[assignment]
        self._acts = None
        self.ply += 1
        self.last_move = move
        if kind == DEAD:
            self.hands[seat].remove(card)
            self.discards[seat].append(card)
            draw(self, seat)
            self.exchanged = True  # the same seat moves again, without a second exchange
        elif kind == PASS_KIND:
            self._next_turn(seat)
        else:
            self.hands[seat].remove(card)
            team = seat % self.n_teams
            if kind == PLACE:
                self.board[sq] = 1 << team
                completed = mark(self.board, self.locked, self.sequences, sq, team)
                if completed and self.sequence_counts()[team] >= self.target:
                    self.discards[seat].append(card)
                    self._finish_win(team)
                    return
            else:
                self.board[sq] = EMPTY
                if self.locked[sq]:
                    self.sequences = unmark(self.locked, self.sequences, sq)
            if self.rules == DRAW_THEN_DISCARD:
                draw(self, seat)
                self.discards[seat].append(card)
            else:
                # Discard, then draw: a reshuffle at this draw takes the card just played.
                self.discards[seat].append(card)
                draw(self, seat)
            self._next_turn(seat)
        if self.ply >= self.max_plies:
            self._finish_cap()

    def _next_turn(self, seat: int) -> None:
        self.turn = (seat + 1) % self.seats
        self.exchanged = False

    def _scores(self) -> tuple[int, ...]:
        counts = self.sequence_counts()
        return tuple(counts[s % self.n_teams] for s in range(self.seats))

    def _finish_win(self, team: int) -> None:
        self.turn = None
        # Ranks count teams: the winners 1, every other team 2.
        ranks = team_ranks(self._team_of(), [1 if t == team else 0 for t in range(self.n_teams)])
        reason = "two sequences completed" if self.target == 2 else "a sequence completed"
        self._result = Result(ranks=ranks, reason=reason, scores=self._scores())

    def _finish_cap(self) -> None:
        self.turn = None
        ranks = team_ranks(self._team_of(), self.sequence_counts())
        self._result = Result(ranks=ranks, reason="ply limit reached", scores=self._scores())

    def _team_of(self) -> list[int]:
        return [s % self.n_teams for s in range(self.seats)]

    # -- views ----------------------------------------------------------------

    def public_observation(self) -> dict[str, JSON]:
        board = self.board
        chips = {SQUARE_NAMES[sq]: board[sq].bit_length() - 1 for sq in range(100) if board[sq] and board[sq] != CORNER}
        return {
            "seats": self.seats,
            "seat_team": [s % self.n_teams for s in range(self.seats)],
            "chips": chips,
            "sequences": [{"team": t, "squares": [SQUARE_NAMES[s] for s in w]} for t, w in self.sequences],
            "sequence_counts": self.sequence_counts(),
            "discards": [list(d) for d in self.discards],
            "hand_sizes": [len(h) for h in self.hands],
            "draw_pile": len(self.pile),
            "to_move": self.turn,
            "exchanged": self.exchanged,
            "last_move": self.last_move,
            "ply": self.ply,
            "options": dict(self.options),
            "layout": {SQUARE_NAMES[sq]: LAYOUT[sq] for sq in range(100)},
        }

    def observation(self, seat: int) -> dict[str, JSON]:
        obs = self.public_observation()
        obs["seat"] = seat
        obs["hand"] = sorted(self.hands[seat])
        return obs

    def resample_hidden(self, seat: int, seed: int) -> SequenceState:
        """Re-deal every other hand and the draw pile from the cards ``seat`` has not seen."""
        return redeal_unseen(self, seat, seed)

    def clone(self) -> SequenceState:
        other = self._copy_common()
        other.rules = self.rules
        other.n_teams = self.n_teams
        other.target = self.target
        other.adv = self.adv
        other.max_plies = self.max_plies
        other.board = self.board[:]
        other.locked = self.locked[:]
        other.sequences = self.sequences[:]
        other.hands = [h[:] for h in self.hands]
        other.discards = [d[:] for d in self.discards]
        other.pile = self.pile[:]
        other.turn = self.turn
        other.exchanged = self.exchanged
        other.last_move = self.last_move
        other.rng_state = self.rng_state
        other._result = self._result
        # The move table is never mutated after it is built, so sharing is safe.
        other._acts = self._acts
        return other

    def _rules_version(self) -> str:
        return self.rules

    def to_json(self) -> dict[str, JSON]:
        return dump_state(self)


class SequenceEngine(Engine):
    """Sequence with two decks, a 10x10 board and two or three teams."""

    id = "sequence"
    name = "Sequence"
    version = "3"
    legacy_versions = ("2", DRAW_THEN_DISCARD)
    seat_counts = (2, 3, 4, 6, 8, 9, 10, 12)
    options = (
        Option(
            "teams",
            int,
            0,
            "number of teams; 0 means the rules' default (2 where the seat count is even, else 3; "
            "up to 3 players each play alone)",
            choices=(0, 2, 3),
            pool=True,
        ),
        Option(
            "advanced",
            bool,
            False,
            "one-eyed jacks may also remove chips of completed sequences, unmarking them",
            pool=True,
        ),
        Option("max_plies", int, 400, "the game ends after this many plies; more sequences ranks higher", 1, 100000),
    )
    has_chance = True
    hidden_information = True
    rules_doc = "docs/rules/sequence.md"
    example_configs = (
        (2, {}),
        (3, {}),
        (4, {"teams": 2}),
        (6, {"teams": 3}),
        (8, {}),
        (9, {}),
        (10, {}),
        (12, {}),
        (12, {"teams": 3}),
        (2, {"advanced": True}),
        (3, {"advanced": True}),
    )

    def check_option_combination(self, options: dict[str, Any], seats: int) -> None:
        """Check ``teams`` against the seat count and replace 0 by the resolved team count."""
        teams = options["teams"]
        if seats <= 3:
            if teams not in (0, seats):
                raise InvalidOptionsError(
                    f"with {seats} players everyone plays alone, so teams must be {seats} (or 0), not {teams}"
                )
        elif teams and seats % teams:
            raise InvalidOptionsError(f"{seats} players cannot split into {teams} equal teams")
        options["teams"] = _resolve_teams(seats, teams)

    def teams(self, seats: int, options: Mapping[str, Any] | None = None) -> list[list[int]]:
        """Seat ``i`` plays for team ``i mod T``, so team members alternate round the table."""
        n = self.validate_options(options, seats)["teams"]
        return [[s for s in range(seats) if s % n == t] for t in range(n)]

    def new_state(
        self, options: Mapping[str, Any] | None = None, seed: int = 0, seats: int | None = None
    ) -> SequenceState:
        return self.new_state_for_version(self.version, options, seed, seats)

    def new_state_for_version(
        self, version: str, options: Mapping[str, Any] | None = None, seed: int = 0, seats: int | None = None
    ) -> SequenceState:
        if version not in (self.version, *self.legacy_versions):
            raise InvalidStateError(f"sequence cannot play rules version {version!r}")
        seats = self.default_seats() if seats is None else seats
        opts = self.validate_options(options, seats)
        state = SequenceState(self, opts, seats, seed, rules=version)
        deal(state)
        return state

    def state_from_json(self, data: Mapping[str, JSON]) -> SequenceState:
        return self._load_checked(lambda d: load_state(self, d, SequenceState), data)


def card_squares(card: str) -> tuple[str, ...]:
    """The names of the two squares of a non-jack card (for tests and tools)."""
    return tuple(SQUARE_NAMES[sq] for sq in CARD_SQUARES[card])


def square_index(name: str) -> int:
    """The internal index of a square name such as ``"e5"``."""
    return SQUARE_INDEX[name]


ENGINE = SequenceEngine()

__all__ = ["ENGINE", "ONE_EYED", "TWO_EYED", "SequenceEngine", "SequenceState"]
