"""What an organiser does in a real browser against the real service (one web server and worker, shared).

An owner uploads two versions of a bot, starts a version test from the browser,
watches its page to a decision and reads the estimate and the LLR chart; a
second user who asked to be asked accepts a challenge sent from the browser,
it plays, and each side reads its own score; a staff user creates a cron
schedule after seeing its next runs.  Screenshots go under test-artifacts/pages/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.live import greedy_zip, random_bot
from tests.live.fixtures import LiveFactory
from tests.pages.browser import screenshot
from tests.waiting import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.services, pytest.mark.django_db(transaction=False)]

WAIT_S = 180  # a version test or a challenge, on a busy machine
DESKTOP = {"width": 1280, "height": 800}
STAFF = """
from django.contrib.auth import get_user_model
get_user_model().objects.create_user(username="root", password="staff-pw-4321", is_staff=True)
print(1)
"""


def _signed_up(browser: Any, base: str, name: str) -> Any:
    page = browser.new_context(viewport=DESKTOP, base_url=base).new_page()
    page.goto("/signup/")
    page.fill("#id_username", name)
    page.fill("#id_password", f"{name}-horse-battery")
    page.click("form.form button[type=submit]")
    page.wait_for_url("**/me/bots/")
    return page


def _upload(page: Any, name: str, filename: str, data: bytes) -> int:
    page.goto("/bots/new/")
    page.select_option("#id_game", "gamesup")
    page.fill("#id_name", name)
    page.set_input_files("#id_package", {"name": filename, "mimeType": "application/octet-stream", "buffer": data})
    page.click("form.form button[type=submit]")
    page.wait_for_url("**/bots/*/")
    return int(re.findall(r"/bots/(\d+)/", page.url)[-1])


def _reloaded_until(page: Any, selector: str, wanted: str, what: str) -> None:
    def done() -> bool:
        page.reload()
        return page.inner_text(selector).strip() == wanted

    wait_for(done, WAIT_S, what, every=1.0)


def _wdl(page: Any, row: str) -> list[int]:
    return [int(page.inner_text(f"{row} td.{k}")) for k in ("wins", "draws", "losses")]


def test_an_organiser_in_the_browser(browser: Any, live_processes: LiveFactory) -> None:
    procs = live_processes(web="runserver", workers=1, concurrency=2, tag="organiser")

    # A version test from the browser, watched to its decision: greedy (v2) against random (v1).
    ada = _signed_up(browser, procs.url, "ada")
    bot = _upload(ada, "evolving", "random_bot.py", random_bot())
    ada.goto(f"/bots/{bot}/versions/new/")
    ada.set_input_files("#id_package", {"name": "greedy.zip", "mimeType": "application/zip", "buffer": greedy_zip()})
    ada.click("form.form button[type=submit]")
    ada.wait_for_url(f"**/bots/{bot}/")
    ada.click("#new-version-test")
    ada.select_option("#id_candidate", "2")
    ada.select_option("#id_baseline", "1")
    ada.fill("#id_elo1", "200")
    screenshot(ada, "organiser-version-test-new")
    ada.click("form.form button[type=submit]")
    ada.wait_for_url(f"**/bots/{bot}/tests/*/")
    assert ada.locator("#test-status").get_attribute("data-status") == "running"
    screenshot(ada, "organiser-version-test-running")
    ada.wait_for_selector("#test-status:not([data-status=running])", timeout=WAIT_S * 1000)  # the page reloads
    assert ada.locator("#test-status").get_attribute("data-status") == "h1"
    assert "95%" in ada.inner_text("#estimate-elo") and ada.inner_text("#estimate-los").endswith("%")
    assert ada.locator("svg.llr-chart polyline[data-series=LLR]").count() == 1
    assert ada.locator("svg.llr-chart polyline").count() == 3
    screenshot(ada, "organiser-version-test-decided")

    # A challenge to a bot whose owner asked to be asked: sent, accepted, played, scored from each side.
    bob = _signed_up(browser, procs.url, "bob")
    target = _upload(bob, "wary", "random_bot.py", random_bot())
    bob.check("#challenges-ask")
    bob.click("form[action$='/settings/'] button[type=submit]")
    bob.wait_for_selector("text=others' challenges wait for your answer")
    ada.goto(f"/bots/{target}/")
    ada.click("#challenge-bot")
    ada.select_option("#id_bot", str(bot))
    ada.fill("#id_games", "2")
    ada.click("#send-challenge")
    ada.wait_for_url("**/challenges/")
    assert ada.inner_text("#outgoing td.status").strip() == "pending"
    screenshot(ada, "organiser-challenge-sent")
    bob.goto("/challenges/")
    screenshot(bob, "organiser-challenge-to-answer")
    bob.click("#incoming button.accept")
    bob.wait_for_selector("text=Accepted")
    _reloaded_until(bob, "#incoming td.status", "finished", "the challenge's games")
    ada.reload()
    mine, theirs = _wdl(ada, "#outgoing tbody tr"), _wdl(bob, "#incoming tbody tr")
    assert sum(mine) == 2 and mine == theirs[::-1], (mine, theirs)
    screenshot(ada, "organiser-challenge-challenger")
    screenshot(bob, "organiser-challenge-challenged")

    # A cron schedule by staff: its next runs seen before saving.
    assert procs.shell(STAFF) == 1
    root = browser.new_context(viewport=DESKTOP, base_url=procs.url).new_page()
    root.goto("/login/")
    root.fill("#id_username", "root")
    root.fill("#id_password", "staff-pw-4321")
    root.click("form.form button[type=submit]")
    root.wait_for_url(lambda url: "/login/" not in url)
    root.goto("/schedules/new/")
    root.fill("#id_name", "Weekday mornings")
    root.select_option("#id_game", "gamesup")
    root.select_option("#id_kind", "cron")
    root.fill("#id_cron", "30 6 * * 1-5")
    root.click("#preview-runs")
    runs = root.locator("#next-runs li").all_inner_texts()
    assert len(runs) == 5 and all(r.endswith("06:30") and r[:3] in {"Mon", "Tue", "Wed", "Thu", "Fri"} for r in runs)
    screenshot(root, "organiser-schedule-preview")
    root.click("#save-schedule")
    root.wait_for_url("**/schedules/")
    assert "Weekday mornings" in root.inner_text("#schedules")
    screenshot(root, "organiser-schedules")
