"""A bot author's whole path in a real browser against the real service.

A web server, a Celery worker and the sandbox (tests/live) run the matches;
Chromium signs up, uploads two bots (a file and an archive), creates and
starts a round robin from the form, watches it finish, opens a replay, steps
to its end, downloads it, and makes and revokes an API token.  Every page on
the way is saved at 1280x800 and 390x844 under test-artifacts/pages/.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.live import greedy_zip, random_bot
from tests.live.fixtures import LiveFactory
from tests.pages.browser import READ_CELLS, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.services, pytest.mark.django_db(transaction=False)]

WAIT_MS = 180_000  # the whole round robin, on a busy machine
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def _both_sizes(page: Any, name: str) -> None:
    """Screenshots at the phone size and the desktop size; the page is left at the desktop size."""
    page.set_viewport_size(PHONE)
    screenshot(page, f"path-{name}-390x844")
    page.set_viewport_size(DESKTOP)
    screenshot(page, f"path-{name}-1280x800")


def _api_status(base: str, token: str) -> int:
    request = urllib.request.Request(f"{base}/api/users/me/", headers={"Authorization": f"Token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def _upload(page: Any, name: str, filename: str, data: bytes) -> None:
    page.goto("/bots/new/")
    page.select_option("#id_game", "gamesup")
    page.fill("#id_name", name)
    page.set_input_files("#id_package", {"name": filename, "mimeType": "application/octet-stream", "buffer": data})
    page.click("form.form button[type=submit]")
    page.wait_for_url("**/bots/*/")
    assert f"Uploaded {name} v1" in page.inner_text(".messages")


def test_a_bot_author_in_the_browser(browser: Any, live_processes: LiveFactory) -> None:
    procs = live_processes(web="runserver", workers=1, concurrency=2, tag="webpath")
    context = browser.new_context(viewport=DESKTOP, base_url=procs.url, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)

    # Sign up: signed in at once, on "My bots".
    page.goto("/signup/")
    _both_sizes(page, "signup")
    page.fill("#id_username", "ada")
    page.fill("#id_password", "correct-horse-battery")
    page.click("form.form button[type=submit]")
    page.wait_for_url("**/me/bots/")
    assert "Welcome, ada" in page.inner_text(".messages")

    # Two bots: a single file and a zip archive.
    _upload(page, "random", "random_bot.py", random_bot())
    _upload(page, "greedy", "greedy.zip", greedy_zip())
    _both_sizes(page, "bot")
    page.goto("/me/bots/")
    assert page.locator("#my-bots tbody tr").count() == 2
    _both_sizes(page, "my-bots")

    # A round robin: both bots, double, 1 game per pairing: the page says 2 matches before creating.
    page.goto("/tournaments/new/?game=gamesup")
    page.fill("#id_name", "browser round robin")
    page.fill("#id_option_target", "13")
    page.fill("#id_option_max_plies", "30")
    for box in page.locator("#participants input[type=checkbox]").all():
        box.check()
    page.select_option("#id_format", "double")
    page.fill("#id_games_per_pairing", "1")
    page.fill("#id_move_ms", "1000")
    page.fill("#id_game_ms", "20000")
    page.locator("#id_games_per_pairing").dispatch_event("change")
    page.wait_for_function("document.querySelector('#match-count strong')?.textContent === '2'")
    _both_sizes(page, "tournament-new")
    page.click("button[name=create]")
    page.wait_for_url("**/tournaments/*/")
    assert "and started it" in page.inner_text(".messages")

    # Watch it finish: the page refreshes itself.
    page.wait_for_selector(".live-body[data-status=finished]", timeout=WAIT_MS)
    assert page.locator("#progress").get_attribute("value") == "2"
    assert page.locator("#live button:has-text('Cancel')").count() == 0  # the live part dropped it
    _both_sizes(page, "tournament-finished")

    # A replay, stepped to its end: the last move framed, a legend for both seats.
    page.locator("table.matches tr:has(.status-finished) a[href^='/matches/']").first.click()
    page.wait_for_selector("#board svg")
    total = page.locator("#move-list li").count()
    assert total > 0
    page.click("[data-step=last]")
    assert page.evaluate(READ_CELLS)["ply"] == total
    assert page.locator("#board .last-move-mark").count() >= 1 or "pass" in page.inner_text("#ply-info")
    assert page.locator("#seat-legend li").count() == 2
    assert "Game over" in page.inner_text("#ply-info")
    _both_sizes(page, "replay-end")
    with page.expect_download() as download:
        page.click("#download")
    body = json.loads(Path(download.value.path()).read_text())
    assert len(body["moves"]) == total and body["status"] == "finished" and body["result_reason"]

    # A token: made, shown once, working; revoked, refused.
    page.goto("/me/tokens/")
    page.click("text=Make a new token")
    key = page.input_value("#new-token")
    assert len(key) >= 20 and _api_status(procs.url, key) == 200
    _both_sizes(page, "tokens")
    page.click("#tokens button:has-text('Revoke')")
    page.wait_for_selector("text=The token was revoked")
    assert _api_status(procs.url, key) == 401
    # Listed newest first: the one revoked was the new one; the sign-up's own token is left.
    left = page.locator("#tokens tbody").inner_text()
    assert key[:8] not in left and left.count("Revoke") == 1

    # Log out.
    page.click("header button:has-text('Log out')")
    page.wait_for_url("**/games/")
    assert page.locator("header a:has-text('Log in')").count() == 1
    context.close()
    assert not errors, errors
