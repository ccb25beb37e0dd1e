"""The API's list, the tournament list page and the admin's list count each tournament's errored matches in the
list's own query: as many queries for thirty tournaments as for three."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.api.conftest import client_for
from tests.errored import started_tournament

MANY = 30


def _queries(fetch: Callable[[], Any]) -> tuple[int, Any]:
    with CaptureQueriesContext(connection) as ctx:
        result = fetch()
    return len(ctx.captured_queries), result


def test_a_list_of_many_tournaments_costs_the_queries_of_a_few(staff: Any, make_bot: Any) -> None:
    staff.is_superuser = True  # the admin's list needs the model's permissions
    staff.save()
    bots = [make_bot(owner="new") for _ in range(2)]  # 2 games a pairing: 2 matches each
    api = client_for(staff)
    browser = Client()
    browser.force_login(staff)

    def lists() -> dict[str, tuple[int, Any]]:
        return {
            "api": _queries(lambda: api.get("/api/tournaments/?errored=true").json()),
            "page": _queries(lambda: browser.get("/tournaments/?errored=yes").content.decode()),
            "admin": _queries(lambda: browser.get("/admin/competitions/tournament/?errored=yes").content.decode()),
        }

    made = [started_tournament(owner=staff, bots=bots, name=f"t{n}", errored=1 + n % 2) for n in range(3)]
    few = lists()
    made += [started_tournament(owner=staff, bots=bots, name=f"t{n}", errored=1 + n % 2) for n in range(3, MANY)]
    many = lists()

    assert {t["id"]: t["errored_matches"] for t in many["api"][1]["results"]} == {
        t.id: 1 + n % 2 for n, t in enumerate(made)
    }
    for t in made:  # every row on the page and in the admin, with its count
        assert f'<tr data-tournament="{t.id}">' in many["page"][1]
        assert f'href="/tournaments/{t.id}/#requeue-errored"' in many["admin"][1]
    assert {name: n for name, (n, _) in many.items()} == {name: n for name, (n, _) in few.items()}
