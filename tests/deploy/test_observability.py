"""/healthz, /metrics and the JSON log formatter, in-process against the test database.

The sandbox check runs the real bubblewrap self-test; its failure case uses a
bwrap that is not installed, which is how a machine without bubblewrap looks.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client, override_settings
from prometheus_client.parser import text_string_to_metric_families

from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.dbclock import db_clock
from tournaments.games.services import game_sync
from tournaments.matches.marks import EXPIRED, OUTSIDE_KILL, RERUN_PREFIX, SWEEP, WORKER_LOST, recovery_mark
from tournaments.matches.models import Match, MatchSeat
from tournaments.ops import health
from tournaments.ops.logs import JsonFormatter
from tournaments.ratings.models import RatingChange
from workers.sandbox import start


@pytest.fixture(autouse=True)
def _fresh_sandbox_check() -> Iterator[None]:
    health._sandbox_cache.clear()
    yield
    health._sandbox_cache.clear()
    start._checked.clear()


def _healthz(client: Client) -> tuple[int, dict[str, Any]]:
    response = client.get("/healthz")
    assert response["Content-Type"] == "application/json"
    return response.status_code, response.json()


@pytest.mark.django_db
def test_healthz_ok_and_sandbox_result_cached(client: Client) -> None:
    code, body = _healthz(client)
    assert code == 200, body
    assert body["status"] == "ok"
    assert {k: v["ok"] for k, v in body["checks"].items()} == {
        "database": True, "broker": True, "sandbox": True, "sweeper": True, "workers": True,
        "runtimes": True,
    }  # fmt: skip
    assert "cached" not in body["checks"]["sandbox"]
    code, body = _healthz(client)
    assert code == 200 and body["checks"]["sandbox"]["cached"] is True


@pytest.mark.django_db
def test_healthz_503_when_the_broker_is_down(client: Client) -> None:
    # Port 1 on loopback: nothing listens, the connection is refused at once.
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:1/0", CELERY_BROKER_TRANSPORT_OPTIONS={}):
        code, body = _healthz(client)
        depths = _scrape(client)["arbiter_broker_queue_messages"]
    assert code == 503
    assert depths and set(depths.values()) == {-1}
    assert body["status"] == "failing"
    assert body["checks"]["broker"]["ok"] is False and body["checks"]["broker"]["detail"]
    assert body["checks"]["database"]["ok"] is True


@pytest.mark.django_db
def test_healthz_503_without_bubblewrap(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(start, "BWRAP", "bwrap-not-installed-here")
    monkeypatch.delenv("ARBITER_ALLOW_UNSANDBOXED", raising=False)
    code, body = _healthz(client)
    assert code == 503
    assert body["checks"]["sandbox"]["ok"] is False
    assert "bubblewrap" in body["checks"]["sandbox"]["detail"]
    # A failure is remembered only briefly, but it is remembered: the next probe is cheap.
    monkeypatch.setattr(start, "BWRAP", "bwrap")
    code, body = _healthz(client)
    assert code == 503 and body["checks"]["sandbox"]["cached"] is True
    health._sandbox_cache.clear()
    assert _healthz(client)[0] == 200


@pytest.mark.django_db
def test_healthz_can_leave_the_sandbox_out(client: Client, monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    settings.ARBITER_HEALTH_SANDBOX = False
    monkeypatch.setattr(start, "BWRAP", "bwrap-not-installed-here")
    code, body = _healthz(client)
    assert code == 200 and body["checks"]["sandbox"]["skipped"] is True


def _scrape(client: Client, **headers: str) -> dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]]:
    response = client.get("/metrics", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    families = {}
    for family in text_string_to_metric_families(response.content.decode()):
        families[family.name] = {(s.name, tuple(sorted(s.labels.items()))): s.value for s in family.samples}
    return families


@pytest.mark.django_db
def test_metrics_count_what_the_database_holds(
    client: Client, user: Any, make_bot: Callable[..., Any], play: Callable[..., bool]
) -> None:
    game_sync()
    tournament = tournament_create(
        owner=user,
        game_id="gamesup",
        name="m",
        bot_ids=[make_bot(owner="new").id, make_bot(owner="new").id],
        games_per_pairing=3,
    )
    tournament_start(tournament=tournament, user=user)
    first, second, _third = Match.objects.filter(tournament=tournament).order_by("index")
    assert play(first, [1, 2])
    assert play(second, [2, 1], ["timeout", "ok"])

    m = _scrape(client)
    assert m["arbiter_matches"][("arbiter_matches", (("status", "finished"),))] == 2
    assert m["arbiter_matches"][("arbiter_matches", (("status", "queued"),))] == 1
    assert m["arbiter_matches_finished"][("arbiter_matches_finished_total", ())] == 2
    assert m["arbiter_forfeits"] == {("arbiter_forfeits_total", (("status", "timeout"),)): 1}
    assert m["arbiter_seat_results"][("arbiter_seat_results_total", (("status", "ok"),))] == 3
    assert m["arbiter_rating_updates"][("arbiter_rating_updates_total", ())] == RatingChange.objects.count() == 4
    histogram = m["arbiter_match_duration_seconds"]
    assert histogram[("arbiter_match_duration_seconds_count", ())] == 2
    assert histogram[("arbiter_match_duration_seconds_bucket", (("le", "+Inf"),))] == 2
    assert m["arbiter_tournaments"][("arbiter_tournaments", (("status", "running"),))] == 1
    # The in-memory test broker answers; its queue is empty.
    assert set(m["arbiter_broker_queue_messages"].values()) == {0}
    assert MatchSeat.objects.filter(status="timeout").count() == 1


@pytest.mark.django_db
def test_metrics_count_the_embedded_brokers_quarantined_files(client: Client, settings: Any, tmp_path: Any) -> None:
    assert "arbiter_broker_quarantined_files" not in _scrape(client)  # Redis, or here the in-memory broker
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"quarantine_folder": str(tmp_path)}
    for name in ("1_a.celery.msg", "2_b.celery.msg"):
        (tmp_path / name).write_text('{"bo')
    sample = ("arbiter_broker_quarantined_files", ())
    assert _scrape(client)["arbiter_broker_quarantined_files"] == {sample: 2}


@pytest.mark.django_db
def test_metrics_token(client: Client, settings: Any) -> None:
    settings.ARBITER_METRICS_TOKEN = "s3cret-scrape-token"
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert "arbiter_matches" in _scrape(client, HTTP_AUTHORIZATION="Bearer s3cret-scrape-token")


@pytest.mark.django_db
def test_late_sweeper_degrades_health_and_shows_in_metrics(client: Client, settings: Any) -> None:
    settings.ARBITER_SWEEP_EVERY_S = 5
    settings.ARBITER_HEALTH_SANDBOX = False
    code, body = _healthz(client)
    assert (code, body["status"]) == (200, "ok")  # never swept, but nothing waits: nothing to watch
    assert _scrape(client)["arbiter_sweep_age_seconds"] == {("arbiter_sweep_age_seconds", ()): -1.0}

    recovery_mark(name=SWEEP, add=1, at=db_clock() - timedelta(seconds=14))
    code, body = _healthz(client)
    assert (code, body["status"], body["checks"]["sweeper"]["ok"]) == (200, "ok", True)
    recovery_mark(name=SWEEP, at=db_clock() - timedelta(seconds=16))  # three intervals and a bit
    code, body = _healthz(client)
    assert (code, body["status"], body["checks"]["sweeper"]["ok"]) == (200, "degraded", False)
    assert "is beat running?" in body["checks"]["sweeper"]["detail"]

    recovery_mark(name=EXPIRED, add=3)
    recovery_mark(name=RERUN_PREFIX + WORKER_LOST, add=2)
    recovery_mark(name=RERUN_PREFIX + OUTSIDE_KILL, add=1)
    m = _scrape(client)
    assert m["arbiter_sweep_age_seconds"][("arbiter_sweep_age_seconds", ())] >= 16
    assert m["arbiter_lease_expiries"] == {("arbiter_lease_expiries_total", ()): 3}
    reruns = {dict(labels)["cause"]: v for (_, labels), v in m["arbiter_match_reruns"].items()}
    assert reruns == {"worker_lost": 2, "outside_kill": 1, "database": 0, "slot": 0, "worker": 0}


def test_json_log_lines() -> None:
    formatter = JsonFormatter()
    logger = logging.getLogger("tournaments.test")
    try:
        raise ValueError("bad\nthing")
    except ValueError:
        record = logger.makeRecord(
            "tournaments.test", logging.ERROR, __file__, 1, "match %s failed", (7,), sys.exc_info(),
            extra={"match_id": 7, "worker": "w1", "odd": object()},
        )  # fmt: skip
    line = formatter.format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["level"] == "ERROR" and entry["logger"] == "tournaments.test"
    assert entry["message"] == "match 7 failed"
    assert entry["match_id"] == 7 and entry["worker"] == "w1" and entry["odd"].startswith("<object")
    assert entry["ts"].endswith("Z") and "ValueError: bad" in entry["exc"]
