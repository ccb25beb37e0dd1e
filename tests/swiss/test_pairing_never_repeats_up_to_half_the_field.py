"""The pairing alone: up to half the field in rounds, no two players meet twice, whatever the results."""

from __future__ import annotations

import random

from tournaments.competitions.swiss import SwissPlayer, swiss_pair, swiss_rounds_most


def _play_out(count: int, seed: int) -> list[set[int]]:
    """Every round a field of ``count`` may play, results drawn at random; each player's opponents."""
    rng = random.Random(seed)
    score, balance, byes = [0.0] * count, [0] * count, [0] * count
    met: list[set[int]] = [set() for _ in range(count)]
    for number in range(1, swiss_rounds_most(count) + 1):
        field = [SwissPlayer(score[i], frozenset(met[i]), balance[i], byes[i]) for i in range(count)]
        paired = swiss_pair(field, round_number=number)
        seated = [p for pair in paired.pairs for p in pair]
        assert sorted([*seated, *([paired.bye] if paired.bye is not None else [])]) == list(range(count))
        assert (paired.bye is None) == (count % 2 == 0)
        if paired.bye is not None:
            assert byes[paired.bye] == 0, "a second bye"
            byes[paired.bye] += 1
            score[paired.bye] += 1.0
        for a, b in paired.pairs:
            assert b not in met[a], f"round {number}: {a} and {b} met before"
            met[a].add(b)
            met[b].add(a)
            balance[a] += 1
            balance[b] -= 1
            score[rng.choice((a, b))] += 1.0
    return met


def test_pairing_never_repeats_up_to_half_the_field() -> None:
    for count in (2, 3, 4, 5, 8, 9, 12, 15, 16, 21):
        for seed in range(20):
            met = _play_out(count, seed)
            # Everyone played every round but the one it sat out.
            rounds = swiss_rounds_most(count)
            assert all(len(m) in (rounds, rounds - 1) for m in met)
