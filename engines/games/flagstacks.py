"""Stacks, the 13x13 flag game (Steve Wannall, Game Rules Guru, 2009).

Rules, with every reading spelled out: ``docs/rules/flagstacks.md``.

Representation (chosen for playout speed):

* ``board[sq]`` is the stack on a square as a string of kind letters, bottom
  to top (``""`` when empty); a square never holds both players' pieces, so
  one ``owner[sq]`` per square is enough;
* ``owner[sq]`` is -1 (empty), the seat (0/1), or ``2 + seat`` for an owned
  target, which is out of play for good: encoding it apart from ordinary
  squares lets move generation treat it as a wall with one comparison;
* ``occ[seat]`` is the set of squares with that seat's movable material, so
  move generation never scans empty squares;
* legal moves are produced as a dict text -> decoded action and cached until
  the next :meth:`apply`, which then needs no parsing.  The cache is never
  mutated, so clones share it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.base import (
    JSON,
    PASS,
    Engine,
    IllegalMoveError,
    Option,
    Result,
    State,
)
from engines.games._flagstacks_load import load_state
from engines.games._flagstacks_tables import (
    ENTER,
    ENTRIES,
    FLAG,
    HOME,
    KIND_INDEX,
    MOVERS,
    OFF_STEPS,
    PASS_ACT,
    PASS_ACTION,
    RAYS,
    SQUARE_NAMES,
    SQUARES,
    TARGET_SET,
    TARGETS,
    WHOLE,
    profile,
    start_squares,
)

REASON_TARGETS = "owns two target squares"
REASON_CAP = "ply cap reached"
REASON_PASSES = "both players passed in a row"


class FlagStacksState(State):
    """One position of Stacks (13x13).  Mutated in place by :meth:`apply`."""

    __slots__ = (
        "_moves",
        "board",
        "last_move",
        "max_plies",
        "occ",
        "owner",
        "passes",
        "reserve",
        "winner",
    )
    _header_keys = ("game", "version", "seats", "seed", "options", "ply")

    def __init__(self, engine: FlagStacksEngine, options: dict[str, Any], seed: int) -> None:
        self._setup(engine, options, seed)
        self.max_plies: int = options["max_plies"]
        self.board: list[str] = [""] * SQUARES
        self.owner: list[int] = [-1] * SQUARES
        self.occ: list[set[int]] = [set(), set()]
        self.reserve: list[list[int]] = [[0, 0, 0], [0, 0, 0]]
        self.passes = 0
        self.last_move: str | None = None
        self.winner: int | None = None  # set only by owning two targets
        self._moves: dict[str, tuple[int, int, int, str]] | None = None

    # -- queries -------------------------------------------------------------

    def is_terminal(self) -> bool:
        """True after two owned targets, at the ply cap, or after two passes in a row."""
        return self.winner is not None or self.ply >= self.max_plies or self.passes >= 2

    def to_move(self) -> int | None:
        """Seat 0 on even plies, seat 1 on odd ones; None once the game is over."""
        return None if self.is_terminal() else self.ply & 1

    def owned_targets(self) -> dict[int, int]:
        """{target square: owning seat} for every owned target."""
        return {t: self.owner[t] - 2 for t in TARGETS if self.owner[t] >= 2}

    def targets_owned(self, seat: int) -> int:
        """How many targets ``seat`` owns."""
        code = 2 + seat
        return sum(1 for t in TARGETS if self.owner[t] == code)

    def legal_moves(self) -> list[str]:
        """Sorted notation strings; ``pass`` only when nothing else is legal."""
        if self.is_terminal():
            return []
        moves = self._moves
        if moves is None:
            moves = self._moves = self._generate()
        return sorted(moves)

    def _generate(self) -> dict[str, tuple[int, int, int, str]]:
        """Every legal move of the side to move, as text -> action."""
        p = self.ply & 1
        q = 1 - p
        board = self.board
        owner = self.owner
        acts: dict[str, tuple[int, int, int, str]] = {}
        for sq in self.occ[p]:
            stack = board[sq]
            whole, offs, carries_flag = profile(stack)
            rays = RAYS[sq]
            for d, reach in whole:
                for t, text, act in rays[d][:reach]:
                    there = board[t]
                    if not there:
                        acts[text] = act
                        continue
                    o = owner[t]
                    if o == q or (o == p and not (carries_flag and FLAG in there)):
                        acts[text] = act
                    break  # no jumping; an owned target (o >= 2) is a wall
            if offs:
                steps = OFF_STEPS[sq]
                for kind in offs:
                    # A single non-flag piece carries no flag: any square but an
                    # owned target will do (own pieces stack, enemy ones are taken).
                    for t, text, act in steps[kind]:
                        if owner[t] < 2:
                            acts[text] = act
        entries = ENTRIES[p]
        for i, n in enumerate(self.reserve[p]):
            if n:
                for _t, text, act in entries[MOVERS[i]]:
                    acts[text] = act
        if not acts:
            acts[PASS] = PASS_ACTION
        return acts

    # -- playing -------------------------------------------------------------

    def apply(self, move: str) -> None:
        """Play a listed move; anything else raises IllegalMoveError and changes nothing."""
        if self.is_terminal():
            raise IllegalMoveError(f"the game is over; {move!r} cannot be played")
        moves = self._moves
        if moves is None:
            moves = self._moves = self._generate()
        try:
            act = moves.get(move)
        except TypeError:  # unhashable junk
            act = None
        if act is None:
            raise IllegalMoveError(f"{move!r} is not a legal move here")
        # Everything below is legal by construction: the action came from the generator.
        self._moves = None
        p = self.ply & 1
        kind, src, dst, piece = act
        if kind == PASS_ACT:
            self.passes += 1
        else:
            self.passes = 0
            board = self.board
            if kind == ENTER:
                self.reserve[p][KIND_INDEX[piece]] -= 1
                moving = piece
            else:
                stack = board[src]
                if kind == WHOLE:
                    if src == HOME[p] and stack.count(FLAG) >= 2:
                        # Both flags at home: the stack takes exactly one of them.
                        moving = stack.replace(FLAG, "", 1)
                        rest = FLAG
                    else:
                        moving, rest = stack, ""
                else:  # OFF: lift the topmost piece of that kind
                    i = stack.rindex(piece)
                    moving, rest = piece, stack[:i] + stack[i + 1 :]
                if rest:
                    board[src] = rest
                    if rest == FLAG and src in TARGET_SET:
                        # A lone flag on a target: owned for good, out of play.
                        self.owner[src] = 2 + p
                        self.occ[p].discard(src)
                        if self.targets_owned(p) >= 2:
                            self.winner = p
                else:
                    board[src] = ""
                    self.owner[src] = -1
                    self.occ[p].discard(src)
            self._land(moving, p, dst)
        self.last_move = move
        self.ply += 1

    def _land(self, moving: str, p: int, t: int) -> None:
        """Put ``moving`` (seat ``p``'s pieces) on square ``t``: stack or capture."""
        board, owner = self.board, self.owner
        there = board[t]
        if not there:
            board[t] = moving
            owner[t] = p
            self.occ[p].add(t)
            return
        q = owner[t]
        if q == p:
            board[t] = there + moving
            return
        # Capture: the enemy's non-flag pieces go to its reserve, the movers stand
        # there alone, and any captured flag goes home (which may undo the move).
        res = self.reserve[q]
        flags = 0
        for c in there:
            if c == FLAG:
                flags += 1
            else:
                res[KIND_INDEX[c]] += 1
        board[t] = moving
        owner[t] = p
        self.occ[q].discard(t)
        self.occ[p].add(t)
        if flags:
            self._send_home(q, flags)

    def _send_home(self, q: int, flags: int) -> None:
        """Return ``flags`` of seat ``q`` to its home and clear that square.

        Everything on the home square but ``q``'s own flags leaves it: non-flag
        pieces go to their owner's reserve (``q``'s own included, as the rules
        say "everything"), and a flag of the other seat goes to its own home,
        which is cleared the same way.
        """
        h = HOME[q]
        board, owner = self.board, self.owner
        there = board[h]
        keep = 0
        chained = 0
        if there:
            o = owner[h]
            res = self.reserve[o]
            for c in there:
                if c == FLAG:
                    if o == q:
                        keep += 1
                    else:
                        chained += 1
                else:
                    res[KIND_INDEX[c]] += 1
            self.occ[o].discard(h)
        board[h] = FLAG * (keep + flags)
        owner[h] = q
        self.occ[q].add(h)
        if chained:
            self._send_home(1 - q, chained)

    # -- results -------------------------------------------------------------

    def result(self) -> Result | None:
        """Ranks, reason and targets owned per seat once the game is over."""
        if not self.is_terminal():
            return None
        owned = (self.targets_owned(0), self.targets_owned(1))
        if self.winner is not None:
            w = self.winner
            return Result(ranks=(1, 2) if w == 0 else (2, 1), reason=f"seat {w} {REASON_TARGETS}", scores=owned)
        why = REASON_CAP if self.ply >= self.max_plies else REASON_PASSES
        if owned[0] != owned[1]:
            w = 0 if owned[0] > owned[1] else 1
            return Result(ranks=(1, 2) if w == 0 else (2, 1), reason=f"{why}; seat {w} owns more targets", scores=owned)
        kept = (sum(self.reserve[0]), sum(self.reserve[1]))
        if kept[0] != kept[1]:
            w = 0 if kept[0] < kept[1] else 1
            return Result(
                ranks=(1, 2) if w == 0 else (2, 1),
                reason=f"{why}; targets equal, seat {w} has fewer pieces in reserve",
                scores=owned,
            )
        return Result(ranks=(1, 1), reason=f"{why}; targets and reserves equal: draw", scores=owned)

    # -- views ---------------------------------------------------------------

    def public_observation(self) -> dict[str, JSON]:
        """The whole position (documented field by field in docs/rules/flagstacks.md)."""
        squares: dict[str, JSON] = {}
        for sq in range(SQUARES):
            stack = self.board[sq]
            if stack:
                squares[SQUARE_NAMES[sq]] = {"owner": self.owner[sq] & 1, "pieces": list(stack)}
        owned = self.owned_targets()
        return {
            "squares": squares,
            "reserves": [{k: self.reserve[s][KIND_INDEX[k]] for k in MOVERS} for s in (0, 1)],
            "targets": {SQUARE_NAMES[t]: owned.get(t) for t in TARGETS},
            "targets_owned": [self.targets_owned(0), self.targets_owned(1)],
            "homes": [SQUARE_NAMES[h] for h in HOME],
            "to_move": self.to_move(),
            "last_move": self.last_move,
            "ply": self.ply,
            "passes": self.passes,
            "options": dict(self.options),
        }

    def observation(self, seat: int) -> dict[str, JSON]:
        """The same as :meth:`public_observation`: nothing is hidden."""
        # Perfect information: every seat sees exactly what spectators see.
        return self.public_observation()

    def to_json(self) -> dict[str, JSON]:
        """Everything needed to restore the state; owned targets and the winner are derived on load."""
        return {
            **self._header(),
            "passes": self.passes,
            "last_move": self.last_move,
            "squares": {SQUARE_NAMES[sq]: [self.owner[sq] & 1, s] for sq, s in enumerate(self.board) if s},
            "reserves": [list(r) for r in self.reserve],
        }

    def clone(self) -> FlagStacksState:
        """An independent copy (flat lists copied, immutable parts shared)."""
        other = self._copy_common()
        other.max_plies = self.max_plies
        other.board = self.board[:]
        other.owner = self.owner[:]
        other.occ = [set(self.occ[0]), set(self.occ[1])]
        other.reserve = [self.reserve[0][:], self.reserve[1][:]]
        other.passes = self.passes
        other.last_move = self.last_move
        other.winner = self.winner
        other._moves = self._moves  # immutable once built: safe to share
        return other


class FlagStacksEngine(Engine):
    """Stacks on a 13x13 board: carry a flag onto two of three targets."""

    id = "flagstacks"
    name = "Stacks (13x13 flag game)"
    version = "1"
    seat_counts = (2,)
    options = (
        Option(
            "max_plies",
            int,
            600,
            "ply cap: the game then ends, more targets wins, then fewer pieces in reserve",
            minimum=1,
            maximum=100_000,
        ),
    )
    rules_doc = "docs/rules/flagstacks.md"
    example_configs = ((2, {}), (2, {"max_plies": 80}))

    def new_state(self, options: Mapping[str, Any] | None = None, seed: int = 0, seats: int | None = None) -> State:
        """The start position; the seed is kept but unused (no chance in this game)."""
        full = self.validate_options(options, seats)
        state = FlagStacksState(self, full, seed)
        for sq, (seat, stack) in start_squares().items():
            state.board[sq] = stack
            state.owner[sq] = seat
            state.occ[seat].add(sq)
        return state

    def state_from_json(self, data: Mapping[str, JSON]) -> State:
        """Load what :meth:`FlagStacksState.to_json` wrote; InvalidStateError if inconsistent."""
        return load_state(self, data, FlagStacksState)


ENGINE = FlagStacksEngine()
