"""``/metrics`` in the Prometheus text format, computed from the database at scrape time.

Why from the database: matches are played by Celery worker processes on many
machines, and the web runs as several gunicorn processes; counters kept in
process memory would need prometheus_client's multi-process mode, shared
directories and clean-up of dead pids, and would still miss other machines.
Every number here is already in PostgreSQL, so any web process answers for the
whole deployment, restarts lose nothing, and counters only go down when rows
are deleted (which Arbiter never does to played matches).

Exported families (all prefixed ``arbiter_``):

* ``matches{status}`` (gauge): matches per status, ``queued`` is the backlog.
* ``matches_finished_total`` (counter): matches played to a result.
* ``match_duration_seconds`` (histogram): claim to finish of finished matches.
* ``seat_results_total{status}`` (counter): seats of recorded matches by how the
  bot ended, ``ok`` or a forfeit status (``timeout``, ``crash``, ...).
* ``forfeits_total{status}`` (counter): the same without ``ok``.
* ``rating_updates_total`` (counter): rating changes applied (one per rated bot per match).
* ``tournaments{status}`` (gauge), ``bots`` (gauge, active bots).
* ``broker_queue_messages{queue}`` (gauge): messages waiting in each Celery queue,
  -1 when the broker cannot be asked.
* ``broker_quarantined_files`` (gauge, embedded broker only): message files that did not
  parse, kept in ``var/broker/quarantine/`` (workers/broker_files.py).
* ``sweep_age_seconds`` (gauge): since beat's lease sweeper last ran, -1 when it never has.
* ``lease_expiries_total`` (counter): running attempts the sweeper ended because their lease expired.
* ``match_reruns_total{cause}`` (counter): attempts the service ended and ran again, by cause:
  ``worker_lost``, ``database``, ``slot``, ``outside_kill``, ``worker`` (matches/marks.py).
* ``worker_unfit{worker, problem}`` (gauge): 1 for each worker whose self-check failed
  in the last five minutes (it takes no matches), with what is wrong.
* ``trash_undeleted_total`` (counter): entries of bots' copies on disk that a worker's trash
  thread could not delete (workers/sandbox/trash.py); ``trash_restarts_total`` (counter):
  times such a thread had died and was started again.

``ARBITER_METRICS_TOKEN``, when set, is required as ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from datetime import timedelta

from django.conf import settings
from django.db.models import Count, DurationField, ExpressionWrapper, F, Model, Q, Sum
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric

from tournaments.bots.models import Bot
from tournaments.competitions.models import Tournament
from tournaments.matches.marks import EXPIRED, TRASH_RESTARTS, TRASH_UNDELETED, recovery_marks, reruns_by_cause
from tournaments.matches.models import Match, MatchSeat
from tournaments.ops.health import sweep_age_s, unfit_workers
from tournaments.ratings.models import RatingChange
from workers.broker_files import quarantined_files
from workers.celery_app import queue_depths

# Seconds; matches last from well under a second (tiny ply caps) to many minutes.
DURATION_BUCKETS = (0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)


def _status_counts(model: type[Model], statuses: list[str]) -> dict[str, int]:
    counts = dict.fromkeys(statuses, 0)
    for row in model._default_manager.values("status").annotate(n=Count("id")).order_by():
        counts[row["status"]] = row["n"]
    return counts


def _duration_histogram() -> tuple[list[tuple[str, float]], float]:
    """Cumulative bucket counts and the sum of seconds, in one aggregate query."""
    duration = ExpressionWrapper(F("finished_at") - F("claimed_at"), output_field=DurationField())
    finished = Match.objects.filter(
        status=Match.Status.FINISHED, finished_at__isnull=False, claimed_at__isnull=False
    ).annotate(duration=duration)
    aggregates = {
        f"le{i}": Count("id", filter=Q(duration__lte=timedelta(seconds=b))) for i, b in enumerate(DURATION_BUCKETS)
    }
    row = finished.aggregate(total=Count("id"), seconds=Sum("duration"), **aggregates)
    buckets = [(repr(b), float(row[f"le{i}"])) for i, b in enumerate(DURATION_BUCKETS)]
    buckets.append(("+Inf", float(row["total"])))
    total = row["seconds"]
    return buckets, total.total_seconds() if total is not None else 0.0


def _queue_names() -> list[str]:
    queues = settings.CELERY_TASK_QUEUES
    names = [q.name for q in queues]
    return names or [settings.CELERY_TASK_DEFAULT_QUEUE]


def _broker_depths() -> dict[str, int]:
    """Messages waiting per Celery queue; -1 for every queue when the broker cannot be asked."""
    names = _queue_names()
    depths = queue_depths(names)
    # The broker is down: say so in the value, and keep the other metrics.
    return depths if depths is not None else dict.fromkeys(names, -1)


class DatabaseCollector:
    """A prometheus_client collector that reads every value from the database when scraped."""

    def collect(self) -> Iterator[Metric]:
        match_counts = _status_counts(Match, [s.value for s in Match.Status])
        gauge = GaugeMetricFamily("arbiter_matches", "Matches per status.", labels=["status"])
        for status, n in sorted(match_counts.items()):
            gauge.add_metric([status], n)
        yield gauge
        yield CounterMetricFamily(
            "arbiter_matches_finished", "Matches played to a result.", value=match_counts[Match.Status.FINISHED]
        )

        buckets, seconds = _duration_histogram()
        yield HistogramMetricFamily(
            "arbiter_match_duration_seconds",
            "Time from claim to result of finished matches.",
            buckets=buckets,
            sum_value=seconds,
        )

        seats = CounterMetricFamily(
            "arbiter_seat_results", "Seats of recorded matches by how the bot ended.", labels=["status"]
        )
        forfeits = CounterMetricFamily("arbiter_forfeits", "Seats forfeited, by forfeit status.", labels=["status"])
        rows = MatchSeat.objects.exclude(status="").values("status").annotate(n=Count("id")).order_by("status")
        for row in rows:
            seats.add_metric([row["status"]], row["n"])
            if row["status"] != "ok":
                forfeits.add_metric([row["status"]], row["n"])
        yield seats
        yield forfeits

        yield CounterMetricFamily(
            "arbiter_rating_updates", "Rating changes applied (one per rated bot per match).",
            value=RatingChange.objects.count(),
        )  # fmt: skip

        tournaments = GaugeMetricFamily("arbiter_tournaments", "Tournaments per status.", labels=["status"])
        for status, n in sorted(_status_counts(Tournament, [s.value for s in Tournament.Status]).items()):
            tournaments.add_metric([status], n)
        yield tournaments
        yield GaugeMetricFamily("arbiter_bots", "Active bots.", value=Bot.objects.filter(active=True).count())

        broker = GaugeMetricFamily(
            "arbiter_broker_queue_messages", "Messages waiting in the Celery queue (-1: broker unreachable).",
            labels=["queue"],
        )  # fmt: skip
        for queue, depth in sorted(_broker_depths().items()):
            broker.add_metric([queue], depth)
        yield broker
        quarantine = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("quarantine_folder")
        if quarantine:
            yield GaugeMetricFamily(
                "arbiter_broker_quarantined_files", "Message files the embedded broker could not parse (quarantined).",
                value=quarantined_files(quarantine),
            )  # fmt: skip
        yield from _recovery()


def _recovery() -> Iterator[Metric]:
    """The sweeper's age, lease expiries and re-runs by cause."""
    age = sweep_age_s()
    yield GaugeMetricFamily(
        "arbiter_sweep_age_seconds", "Seconds since the lease sweeper last ran (-1: never).",
        value=-1.0 if age is None else age,
    )  # fmt: skip
    marks = recovery_marks()
    expired, _ = marks.get(EXPIRED, (0, None))
    yield CounterMetricFamily("arbiter_lease_expiries", "Attempts ended because their lease expired.", value=expired)
    yield CounterMetricFamily(
        "arbiter_trash_undeleted", "Entries of bots' copies on disk the workers' trash could not delete.",
        value=marks.get(TRASH_UNDELETED, (0, None))[0],
    )  # fmt: skip
    yield CounterMetricFamily(
        "arbiter_trash_restarts", "Times a worker's trash thread had died and was started again.",
        value=marks.get(TRASH_RESTARTS, (0, None))[0],
    )  # fmt: skip
    reruns = CounterMetricFamily(
        "arbiter_match_reruns", "Attempts the service ended and ran again, by cause.", labels=["cause"]
    )
    for cause, n in sorted(reruns_by_cause().items()):
        reruns.add_metric([cause], n)
    yield reruns
    unfit = GaugeMetricFamily(
        "arbiter_worker_unfit", "Workers whose self-check failed lately (they take no matches).",
        labels=["worker", "problem"],
    )  # fmt: skip
    for node, problem in sorted(unfit_workers().items()):
        unfit.add_metric([node, problem[:200]], 1)
    yield unfit


def render_metrics() -> bytes:
    """The current metrics in the text exposition format."""
    # A registry per scrape: nothing is kept between scrapes, and no global registration can clash.
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DatabaseCollector())
    return generate_latest(registry)


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus scrape endpoint (token-protected when ``ARBITER_METRICS_TOKEN`` is set)."""
    token = settings.ARBITER_METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return HttpResponse("metrics need the bearer token\n", status=401, content_type="text/plain")
    return HttpResponse(render_metrics(), content_type=CONTENT_TYPE_LATEST)
