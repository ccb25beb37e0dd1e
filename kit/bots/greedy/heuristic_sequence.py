"""Greedy heuristic for Sequence: judge one move from the observation alone.

The value of a square is read from the windows of five squares through it in
each of the four directions: windows free of opposing chips are our chances,
windows holding only one opponent's chips are threats that a chip of ours
kills.  Jacks are worth more later, so spending one costs a little unless it
buys a lot; exchanging a dead card is free and comes first.

Standard library only.
"""

from __future__ import annotations

FILES = "abcdefghij"
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
CORNERS = {(0, 0), (9, 0), (0, 9), (9, 9)}
# Value of a window holding n of our squares after the move: five completes a sequence.
OWN = (0.0, 1.0, 3.0, 9.0, 27.0, 400.0)
# Value of spoiling an opposing window that holds n of their squares.
BLOCK = (0.0, 0.5, 2.0, 8.0, 120.0, 0.0)
TWO_EYED_COST = 10.0
ONE_EYED_COST = 6.0


def _coords(name: str) -> tuple[int, int]:
    return FILES.index(name[0]), int(name[1:]) - 1


def _windows(f: int, r: int):
    """Every window of five on-board squares holding (f, r), per direction."""
    for df, dr in DIRECTIONS:
        for back in range(5):
            sf, sr = f - back * df, r - back * dr
            window = [(sf + i * df, sr + i * dr) for i in range(5)]
            if all(0 <= x < 10 and 0 <= y < 10 for x, y in window):
                yield window


def _owners(observation: dict) -> dict[tuple[int, int], int]:
    """Chip owner (team) per occupied square."""
    return {_coords(name): team for name, team in observation.get("chips", {}).items()}


def _team_counts(window: list, owners: dict, skip: tuple[int, int]) -> dict[int, int]:
    """Chips per team in ``window``, corners counted as -1, ``skip`` left out."""
    counts: dict[int, int] = {}
    for square in window:
        if square == skip:
            continue
        team = -1 if square in CORNERS else owners.get(square)
        if team is not None:
            counts[team] = counts.get(team, 0) + 1
    return counts


def _place_value(owners: dict, square: tuple[int, int], team: int) -> float:
    """What putting our chip on ``square`` gains: our lines grown, their lines cut."""
    best_own: dict[tuple[int, int], int] = {}
    value = 0.0
    for window in _windows(*square):
        counts = _team_counts(window, owners, square)
        corners = counts.pop(-1, 0)
        others = [t for t in counts if t != team]
        direction = (window[1][0] - window[0][0], window[1][1] - window[0][1])
        if not others:
            mine = counts.get(team, 0) + corners + 1
            best_own[direction] = max(best_own.get(direction, 0), mine)
        elif len(others) == 1 and team not in counts:
            value += BLOCK[min(4, counts[others[0]] + corners)]
    value += sum(OWN[n] for n in best_own.values())
    return value


def _remove_value(owners: dict, square: tuple[int, int], team: int) -> float:
    """What lifting an opposing chip gains: the strongest opposing line it breaks."""
    victim = owners.get(square)
    best = 0.0
    for window in _windows(*square):
        counts = _team_counts(window, owners, square)
        corners = counts.pop(-1, 0)
        if set(counts) <= {victim}:
            best = max(best, BLOCK[min(4, counts.get(victim, 0) + corners + 1)])
    # Reopening the square for us is worth a little too.
    rest = dict(owners)
    rest.pop(square, None)
    return best + 0.25 * _place_value(rest, square, team)


def score(observation: dict, move: str, seat: int) -> float:
    """The value of ``move`` for ``seat``; higher is better."""
    if move == "pass":
        return 0.0
    if move.startswith("dead:"):
        return 10000.0  # a free new card: always take it before playing
    team = observation["seat_team"][seat]
    owners = _owners(observation)
    card, square = move[:2], _coords(move[3:])
    if move[2] == "-":
        return _remove_value(owners, square, team) - ONE_EYED_COST
    value = _place_value(owners, square, team)
    if card in ("JC", "JD"):
        value -= TWO_EYED_COST
    return value
