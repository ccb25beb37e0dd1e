"""A version test's page: status, LLR chart between its bounds, estimate with interval and LOS, counts, cancel."""

from __future__ import annotations

from typing import Any

from django.test import Client

from tests.version_tests.conftest import queued
from tournaments.competitions.models import VersionTest
from tournaments.competitions.services.version_tests import version_test_create


def test_a_version_tests_page_shows_its_sprt_and_its_owner_cancels_it(
    user: Any, other: Any, two_versions: Any, play_score: Any
) -> None:
    test = version_test_create(user=user, bot_id=two_versions.id, baseline_number=1, elo1=15)
    for score in (1, 1, 1, 0.5):
        play_score(queued(test)[0], test, score)
    test.refresh_from_db()
    url = f"/bots/{two_versions.id}/tests/{test.id}/"
    assert f'href="{url}"' in Client().get(f"/bots/{two_versions.id}/").content.decode()  # linked from the bot
    assert f'href="{url}"' in Client().get(f"/bots/{two_versions.id}/tests/").content.decode()

    page = Client().get(url).content.decode()
    assert 'data-status="running"' in page and 'http-equiv="refresh"' in page
    chart = page.split('<svg class="llr-chart"')[1].split("</svg>")[0]
    assert chart.count("<polyline") == 3  # the LLR and the two bounds
    assert 'data-series="LLR"' in chart and "pairs: 2" in chart
    assert f"{test.llr:.2f}" in page and f"{test.lower:.2f}" in page and f"{test.upper:.2f}" in page
    elo = page.split('id="estimate-elo">')[1].split("</dd>")[0]
    assert "95%:" in elo and "≥" in elo  # two won pairs: no finite upper end, shown as "at least"
    assert page.split('id="estimate-los">')[1].split("</dd>")[0].endswith("%")
    assert [c.split("<")[0] for c in page.split('class="num penta">')[1:]] == ["0", "0", "0", "1", "1"]
    assert 'id="cancel-test"' not in page  # not for a visitor

    stranger = Client()
    stranger.force_login(other)
    assert stranger.post(f"{url}cancel/").status_code == 302
    assert VersionTest.objects.get(id=test.id).status == VersionTest.Status.RUNNING  # refused: not theirs
    owner = Client()
    owner.force_login(user)
    assert 'id="cancel-test"' in owner.get(url).content.decode()
    owner.post(f"{url}cancel/")
    assert VersionTest.objects.get(id=test.id).status == VersionTest.Status.CANCELLED
    assert 'http-equiv="refresh"' not in owner.get(url).content.decode()
