"""The same task delivered twice at the same time.

Every match's run_next message is in the queue three times, copies side by
side, before any worker starts; then two workers with two processes each
start together, so copies are taken by different processes at the same
moment and race for the same fairest match.  Exactly one claim wins each
match; the extra copies find nothing left to do.  One result, one rating
change per bot per match.
(No beat here: nothing else sends messages, so the count is exact.)
"""

from __future__ import annotations

import re

import pytest

from tests.faults.harness import Cluster

pytestmark = [pytest.mark.services, pytest.mark.slow]

COPIES = 3

SEND = """
import json
from tournaments.matches.models import Match
from tournaments.matches.life import matches_wake
ids = list(Match.objects.filter(tournament_id={tid}).order_by("index").values_list("id", flat=True))
matches_wake(count={copies} * len(ids))
print(json.dumps(ids))
"""


def test_duplicate_deliveries_count_once(cluster: Cluster) -> None:
    # Set up with a broker that drops everything: no message yet.
    t = cluster.tournament(bots=4, delay=0.1, games_per_pairing=1, max_plies=12, broker="memory://")
    assert t["matches"] == 6
    ids = cluster.shell(SEND.format(tid=t["id"], copies=COPIES))
    assert len(ids) == 6
    cluster.worker("w1", concurrency=2)
    cluster.worker("w2", concurrency=2)

    cluster.wait_finished(t["id"], 120)
    matches = cluster.assert_counted_once(t["id"], 6)
    assert {attempt for _, attempt, _ in matches.values()} == {1}, "a match was claimed twice"
    # Every copy was delivered and run, and the tasks played each match once between them: a task
    # that played several says how many ("3 finished, 1 nothing queued"), one match "finished".
    logs = cluster.log()
    runs = re.findall(r"run_next\[[^\]]+\] succeeded in [0-9.]+s: '([^']*)'", logs)
    assert len(runs) == len(ids) * COPIES, runs  # other tasks (a performance refit) are not counted
    played = runs.count("finished") + sum(int(n) for run in runs for n in re.findall(r"(\d+) finished", run))
    assert played == len(ids)
    assert "dropping result" not in logs  # the losing copies never got as far as a result
    cluster.assert_rebuild_agrees()
