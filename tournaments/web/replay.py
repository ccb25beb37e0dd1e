"""A finished match replayed with its engine: one observation per ply, for the replay viewer.

The page embeds what spectators may see (``public_observation``) at every
ply.  Hands of hidden-information games are added only for the seats the
viewer may look at (a seat's owner, or staff), from ``observation(seat)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines import IllegalMoveError, InvalidOptionsError, InvalidStateError, UnknownEngineError, get_engine
from tournaments.matches.models import Match

# Keys a seat's own observation adds to the public one: the only secrets embedded.
PRIVATE_KEYS = ("hand",)


@dataclass
class ReplayData:
    """Everything the viewer needs, ready for ``json_script``."""

    game: str
    seats: int
    # Keys whose value never changes during the match (a board layout): sent once.
    constant: dict[str, Any] = field(default_factory=dict)
    plies: list[dict[str, Any]] = field(default_factory=list)
    # seat -> that seat's hand at every ply (only seats the viewer may see).
    hands: dict[int, list[Any]] = field(default_factory=dict)
    problem: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seats": self.seats,
            "constant": self.constant,
            "plies": self.plies,
            "hands": {str(seat): hand for seat, hand in self.hands.items()},
            "problem": self.problem,
        }


def _moves(match: Match) -> list[dict[str, Any]]:
    """The recorded moves as dicts (seat, move, ms), whatever shape an old row has."""
    out = []
    for entry in match.moves or []:
        if isinstance(entry, dict):
            out.append({"seat": entry.get("seat"), "move": str(entry.get("move", "")), "ms": entry.get("ms")})
        else:
            out.append({"seat": None, "move": str(entry), "ms": None})
    return out


def replay_build(*, match: Match, visible_seats: set[int]) -> ReplayData:
    """Replay ``match`` with its engine; observations at every ply plus the hands of ``visible_seats``.

    A match recorded with another engine version, or a move the engine
    refuses, ends the replay there with ``problem`` saying why: the page
    still shows what could be replayed.
    """
    data = ReplayData(game=match.game_id, seats=match.seats)
    try:
        engine = get_engine(match.game_id)
        # The rules of the version that played it: an engine keeps its older versions for replays.
        state = engine.new_state_for_version(
            match.engine_version or engine.version, match.options, seed=match.seed, seats=match.seats
        )
    except (UnknownEngineError, InvalidOptionsError, InvalidStateError) as exc:
        data.problem = f"cannot replay: {exc}"
        return data
    hidden = engine.hidden_information
    seats = sorted(s for s in visible_seats if 0 <= s < match.seats) if hidden else []
    observations: list[dict[str, Any]] = []
    hands: dict[int, list[Any]] = {s: [] for s in seats}

    def snapshot() -> None:
        observations.append(state.public_observation())
        for s in seats:
            own = state.observation(s)
            hands[s].append({k: own[k] for k in PRIVATE_KEYS if k in own})

    snapshot()
    moves = _moves(match)
    played: list[dict[str, Any]] = [{"seat": None, "move": None, "ms": None}]
    for number, entry in enumerate(moves, start=1):
        try:
            state.apply(entry["move"])
        except IllegalMoveError as exc:
            data.problem = f"move {number} ({entry['move']!r}) is not legal for the engine: {exc}"
            break
        played.append(entry)
        snapshot()
    # Hoist what never changes (Sequence's layout, the board geometry) out of every ply.
    first = observations[0]
    constant_keys = [k for k in first if all(k in o and o[k] == first[k] for o in observations[1:])]
    # Always keep the per-ply essentials in the ply, even if they happen not to change.
    constant_keys = [k for k in constant_keys if k not in ("ply", "to_move", "last_move")]
    data.constant = {k: first[k] for k in constant_keys}
    data.plies = [
        {**played[i], "obs": {k: v for k, v in obs.items() if k not in data.constant}}
        for i, obs in enumerate(observations)
    ]
    data.hands = hands
    return data
