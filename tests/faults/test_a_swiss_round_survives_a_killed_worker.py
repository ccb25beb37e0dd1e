"""A Swiss whose worker is killed in the middle of a round: the round completes, the next is paired once.

Two workers play a four-bot Swiss of two rounds (two matches a round) with
slow bots.  One worker is killed with SIGKILL in the middle of a round-1
match; its lease expires, the sweeper re-queues the match, the other worker
plays it, and its recording pairs round 2.  Every match counts exactly once,
no pairing is played twice, and the rebuild agrees with the ratings.
"""

from __future__ import annotations

import signal

import pytest

from tests.faults.harness import Cluster
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_a_swiss_round_survives_a_killed_worker(cluster: Cluster) -> None:
    cluster.scheduler()
    for name in ("killed", "survivor"):
        cluster.worker(name)
    cluster.wait_ready("killed", "survivor")
    t = cluster.tournament(bots=4, delay=0.15, games_per_pairing=1, max_plies=12, swiss_rounds=2, name="swiss")
    assert t["matches"] == 2  # round 1: two pairings of one game

    killed = wait_for(lambda: cluster.running_on(t["id"], "killed@main"), 90, "the doomed worker to start a match")
    cluster.wait_under_way(killed)
    assert cluster.scalar("SELECT current_round FROM competitions_tournament WHERE id = %s", [t["id"]]) == 1
    cluster.signal("killed", signal.SIGKILL)

    cluster.wait_finished(t["id"], 180)
    assert cluster.scalar("SELECT status FROM competitions_tournament WHERE id = %s", [t["id"]]) == "finished"
    matches = cluster.assert_counted_once(t["id"], 4)
    assert matches[killed[0]][1] >= 2, "the killed worker's match was played again"
    rounds = cluster.query(
        "SELECT number, first_index, size FROM competitions_tournamentround WHERE tournament_id = %s ORDER BY number",
        [t["id"]],
    )
    assert rounds == [(1, 0, 2), (2, 2, 2)]
    pairings = cluster.query(
        "SELECT m.index, array_agg(s.bot_version_id ORDER BY s.bot_version_id) FROM matches_match m "
        "JOIN matches_matchseat s ON s.match_id = m.id WHERE m.tournament_id = %s GROUP BY m.index",
        [t["id"]],
    )
    assert len({tuple(bots) for _, bots in pairings}) == 4, f"a pairing was played twice: {pairings}"
    cluster.assert_rebuild_agrees()
