"""Four worker processes on a 200-match round robin: the live ratings equal the rebuild.

Four separate Celery workers (one process each) share the matches of one
tournament between five bots; ratings of the same bots move in many
processes at once.  Afterwards every match has counted once, and replaying
the history in finish order gives exactly the live numbers.
"""

from __future__ import annotations

import pytest

from tests.faults.harness import Cluster

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_four_workers_two_hundred_matches(cluster: Cluster) -> None:
    t = cluster.tournament(bots=5, delay=0.0, games_per_pairing=10, double=True, max_plies=10)
    assert t["matches"] == 200
    for n in range(4):
        cluster.worker(f"w{n}")

    cluster.wait_finished(t["id"], 400)
    matches = cluster.assert_counted_once(t["id"], 200)
    assert {attempt for _, attempt, _ in matches.values()} == {1}
    workers = cluster.query(
        "SELECT split_part(worker, ':', 1), count(*) FROM matches_match WHERE tournament_id = %s GROUP BY 1",
        [t["id"]],
    )
    assert len(workers) == 4, f"not every worker took part: {workers}"
    report = cluster.assert_rebuild_agrees()
    assert "200 match(es) replayed, 5 rating(s) compared" in report
