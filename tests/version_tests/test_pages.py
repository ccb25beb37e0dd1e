"""The bot page lists the bot's version tests with their LLR and bounds."""

from __future__ import annotations

from typing import Any

from django.test import Client

from tests.version_tests.conftest import queued
from tournaments.competitions.services.version_tests import version_test_create


def test_bot_page_lists_version_tests(user: Any, two_versions: Any, play_score: Any) -> None:
    page = Client().get(f"/bots/{two_versions.id}/").content.decode()
    assert "Version tests" not in page  # no section without a test
    test = version_test_create(user=user, bot_id=two_versions.id, baseline_number=1, elo1=15)
    for score in (1, 1, 1, 0.5):
        play_score(queued(test)[0], test, score)
    test.refresh_from_db()
    page = Client().get(f"/bots/{two_versions.id}/").content.decode()
    assert "Version tests" in page and f'data-test="{test.id}"' in page
    row = page.split(f'data-test="{test.id}"')[1].split("</tr>")[0]
    assert "v2 vs v1" in row and "Running" in row
    assert f"{test.llr:.2f}" in row and f"{test.lower:.2f}" in row and f"{test.upper:.2f}" in row
    assert ">0 / 15<" in row
    cells = [c.split(">", 1)[1].split("<", 1)[0] for c in row.split("<td")[1:]]
    assert cells[2:6] == ["4 of ≤2000", "3", "1", "0"]  # games, W, D, L
