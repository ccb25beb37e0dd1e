"""Work that was done is answered as done: a tournament made while the broker is down, and a client's retry.

Our own Redis is killed; a client creates and starts a tournament: the
database commits it and the answer is 201 (the dispatcher announces its
matches once the broker is back).  The client, unsure, sends the same POST
again with the same ``Idempotency-Key``: it gets the first answer back and
no second tournament is made.  Redis comes back empty, a worker plays the
tournament through.
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

import pytest

from tests.faults.harness import FAST_SETTINGS, Cluster, have_sandbox
from tests.live import Api, random_bot
from tests.live.fixtures import LiveFactory

pytestmark = [pytest.mark.services, pytest.mark.slow]


@pytest.fixture
def cluster(live_processes: LiveFactory) -> Cluster:
    have_sandbox()
    env = {**FAST_SETTINGS, "ARBITER_HEALTH_SANDBOX": "0"}
    return live_processes(redis="private", env=env, supervise=True, tag="faults", set_class=Cluster)


def _signed_in(cluster: Cluster, username: str = "ada") -> Api:
    api = cluster.api()
    api.post_json("/api/users/", {"username": username, "password": "a-long-password-1"})
    form = urllib.parse.urlencode({"username": username, "password": "a-long-password-1"}).encode()
    token = api.call("POST", "/api/auth/token/", form, "application/x-www-form-urlencoded")["token"]
    return cluster.api(token)


def _post(api: Api, path: str, data: dict[str, Any], key: str) -> tuple[int, Any, Any]:
    headers = {"Content-Type": "application/json", "Idempotency-Key": key}
    code, answer_headers, body = api.raw("POST", path, json.dumps(data).encode(), headers)
    return code, answer_headers, json.loads(body)


def test_tournament_made_while_the_broker_is_down_is_201_and_a_retry_makes_no_second(cluster: Cluster) -> None:
    cluster.web()
    cluster.wait_ready()
    api = _signed_in(cluster)
    # Two owners: one owner's bots never rate each other, and this match must be rated.
    owners = [api, _signed_in(cluster, "bea")]
    bots = [owners[i].upload_bot("gamesup", f"r{i}", "random_bot.py", random_bot() + b"#" * i)["id"] for i in range(2)]

    cluster.kill("redis")
    request = {"game": "gamesup", "participants": bots, "games_per_pairing": 2, "move_ms": 1000, "start": True}
    code, headers, first = _post(api, "/api/tournaments/", request, "make-it-once")
    assert code == 201, first
    assert first["status"] == "running" and headers.get("Idempotent-Replayed") is None
    code, headers, again = _post(api, "/api/tournaments/", request, "make-it-once")
    assert (code, headers.get("Idempotent-Replayed")) == (201, "true")
    assert again == first
    # The same key for another request is refused; a new key makes a new tournament.
    code, _, refused = _post(api, "/api/challenges/", {"bot": bots[0], "opponent": bots[1]}, "make-it-once")
    assert code == 422 and refused["error"]["code"] == "idempotency_key_reused"
    assert cluster.scalar("SELECT count(*) FROM competitions_tournament") == 1

    cluster.restart("redis")
    cluster.scheduler()
    cluster.worker("w1", queues=[cluster.queue])
    cluster.wait_finished(first["id"], 180)
    cluster.assert_counted_once(first["id"], 2)
    cluster.assert_rebuild_agrees()
