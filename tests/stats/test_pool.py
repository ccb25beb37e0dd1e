"""The pool fit behind live-Elo error bars: exact for small pools, linear-time and close for large ones."""

from __future__ import annotations

import math
import random

import pytest

from tests.stats.simulate import round_robin_pairs
from tournaments.ratings.stats import fit
from tournaments.ratings.stats.pool import pool_fit


def _pool(seed: int, players: int, games: int) -> tuple[list[str], list[tuple[str, str, float]]]:
    rng = random.Random(seed)
    truth = {f"v{k}": rng.gauss(0.0, 150.0) for k in range(players)}
    return list(truth), round_robin_pairs(rng, truth, games, first_edge=30.0, draw_share=0.3)


def test_small_pools_get_the_full_fit() -> None:
    names, games = _pool(1, 12, 600)
    small = pool_fit(games, players=names, anchor=1520.0, first_mover=True)
    full = fit(games, players=names, anchor=1520.0, first_mover=True)
    assert [r.rating for r in small.table] == pytest.approx([r.rating for r in full.table])
    assert small.los_matrix().values == full.los_matrix().values


def test_large_pools_match_the_full_fit_closely() -> None:
    names, games = _pool(3, 60, 4000)
    exact = {r.player: r for r in fit(games, players=names, anchor=1500.0).table}
    approx_fit = pool_fit(games, players=[*names, "idle"], anchor=1500.0, first_mover=True, exact_limit=10)
    approx = {r.player: r for r in approx_fit.table}
    # The same maximum (one more player without games leaves the others' centre alone).
    assert max(abs(approx[p].rating - exact[p].rating) for p in names) < 0.05
    # Each version's error alone: within a few percent of the full covariance's here.
    for p in names:
        assert 0.97 < approx[p].stderr / exact[p].stderr < 1.05
    assert approx_fit.first_move_advantage == pytest.approx(30.0, abs=15.0)
    assert approx["idle"].games == 0 and 300.0 < approx["idle"].stderr < 400.0
    assert approx_fit.iterations < 50
    # What a leaderboard needs: error bars around live Elo, LOS between neighbours and in a block.
    bars = approx_fit.error_bars({"v0": 1600.0, "idle": 1500.0})
    assert bars["v0"].high - bars["v0"].low == pytest.approx(2 * 1.959964 * approx["v0"].stderr)
    top = [r.player for r in approx_fit.table[:5]]
    matrix = approx_fit.los_matrix(top)
    assert matrix.values[0][1] == pytest.approx(approx_fit.table[0].los_next)
    assert all(math.isfinite(r.rating) for r in approx_fit.table)
