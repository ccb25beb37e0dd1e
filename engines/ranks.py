"""Ranks from per-seat or per-team values: how every engine turns scores into a :class:`~engines.base.Result`."""

from __future__ import annotations

from collections.abc import Sequence


def ranks_from_scores(values: Sequence[float]) -> tuple[int, ...]:
    """Competition ranks (1 best, ties share) from per-seat values, higher is better.

    Right for games where every seat is its own team; with teams use
    :func:`team_ranks`, which counts teams rather than seats.
    """
    return tuple(1 + sum(1 for other in values if other > v) for v in values)


def team_ranks(team_of: Sequence[int], team_values: Sequence[float]) -> tuple[int, ...]:
    """Each seat's rank from one value per team (higher is better), counted over teams.

    ``team_of[seat]`` is the seat's team index.  A team's rank is 1 + the
    number of teams with a strictly higher value, and every seat of the team
    has it: two teams of two seats give ``(1, 2, 1, 2)``, never ``(1, 3, 1, 3)``.
    """
    by_team = ranks_from_scores(team_values)
    return tuple(by_team[t] for t in team_of)


def renumber_ranks_by_team(ranks: Sequence[int | None], team_of: Sequence[int]) -> list[int | None]:
    """Per-seat ranks in any numbering that keeps their order, renumbered over teams.

    For stored results written when ranks counted seats (a two-team game of
    four seats as ``[1, 3, 1, 3]``): the order of the teams is kept and the
    numbers become :func:`team_ranks`'s (``[1, 2, 1, 2]``).  Ranks already
    counted over teams come back unchanged, so applying it twice is harmless.
    A seat without a rank (None) keeps None and is left out; a team whose
    seats disagree takes its best rank.
    """
    if len(ranks) != len(team_of):
        raise ValueError("one team index per seat")
    best: dict[int, int] = {}
    for rank, team in zip(ranks, team_of, strict=True):
        if rank is not None:
            best[team] = min(rank, best.get(team, rank))
    return [
        None if rank is None else 1 + sum(1 for other in best.values() if other < best[team])
        for rank, team in zip(ranks, team_of, strict=True)
    ]
