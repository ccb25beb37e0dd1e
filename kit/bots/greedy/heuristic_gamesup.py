"""Greedy heuristic for The Game's Up! (`gamesup`): one move ahead on the score.

Standard library only: the bot runs in the sandbox without the project.
The move is simulated on the observation (invert the top piece, put the whole
stack or piece on top of the target square) and judged by this seat's score
minus the opponent's afterwards.  A move that reaches the target wins outright.
"""

WIN = 1_000_000.0


def _scores(board: list) -> list:
    """Both seats' scores: every stack's face total goes to its top piece's owner."""
    scores = [0, 0]
    for pieces in board:
        if len(pieces) >= 2:
            scores[pieces[-1][0]] += sum(face for _, face in pieces)
    return scores


def score(observation: dict, move: str, seat: int) -> float:
    """Value of ``move`` for ``seat``: its score lead after the move, a huge value if it wins."""
    if move == "pass" or "-" not in move:
        return 0.0
    # Square name -> list of (owner, face), bottom first.
    board = {sq["square"]: [(p["owner"], p["face"]) for p in sq["pieces"]] for sq in observation["board"]}
    frm, to = move.split("-", 1)
    moving = board.get(frm)
    if not moving or to not in board:
        return 0.0
    owner, face = moving[-1]
    # Every move turns the top piece over before it moves.
    board[to] = board[to] + moving[:-1] + [(owner, 7 - face)]
    board[frm] = []
    scores = _scores(list(board.values()))
    mine, theirs = scores[seat], scores[1 - seat]
    target = observation.get("options", {}).get("target", 21)
    if mine >= target:
        return WIN + mine - theirs
    return float(mine - theirs)
