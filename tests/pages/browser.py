"""Launching Debian's Chromium through Playwright, and what a drawn board should hold.

The browser tests are marked ``slow``.  Without Playwright or
``/usr/bin/chromium`` they skip with the reason, except under CI (``CI``
set), where that is a failure: CI must never pass by skipping.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.ci import unavailable

CHROMIUM = os.environ.get("ARBITER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "pages"


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Debian Chromium driven by Playwright (Playwright's own browsers are never downloaded)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the browser tests need the Python package playwright (pip install playwright)")
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        unavailable(f"the browser tests need Chromium at {CHROMIUM} (apt-get install chromium)")
    # Playwright's sync API keeps an event loop on this thread; the test's own
    # ORM calls between page actions are still plain synchronous code.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                yield browser
            finally:
                browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/pages/ (gitignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def element_screenshot(locator: Any, name: str) -> Path:
    """Save a screenshot of one element under test-artifacts/pages/ (small enough for docs/images/)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    locator.screenshot(path=str(path))
    return path


def _squares(files: str, ranks: int) -> list[str]:
    return [f"{f}{r}" for r in range(1, ranks + 1) for f in files]


def expected_cells(game: str, obs: dict[str, Any]) -> dict[str, str]:
    """What every board cell's ``data-content`` must say for a public observation.

    Written from the rules documents (docs/rules/<game>.md), independently of the JS renderers.
    """
    if game == "gamesup":
        return {sq["square"]: ",".join(f"{p['owner']}:{p['face']}" for p in sq["pieces"]) for sq in obs["board"]}
    if game == "pileup":
        board = obs["board"]
        return {
            sq: ",".join(f"{p['colour'][0]}{p['number']}" for p in board.get(sq, [])) for sq in _squares("abcdefgh", 8)
        }
    if game == "flagstacks":
        squares = obs["squares"]
        return {
            sq: f"{squares[sq]['owner']}:{''.join(squares[sq]['pieces'])}" if sq in squares else ""
            for sq in _squares("abcdefghijklm", 13)
        }
    if game == "hexstacks":
        lengths = obs["board"]["row_lengths"]
        names = [f"r{row}c{c}" for row, n in enumerate(lengths, start=1) for c in range(1, n + 1)]
        return {name: ",".join(str(s) for s in obs["stacks"].get(name, [])) for name in names}
    if game == "sequence":
        chips = obs["chips"]
        return {sq: str(chips[sq]) if sq in chips else "" for sq in _squares("abcdefghij", 10)}
    raise AssertionError(f"no expectation for {game}")


READ_CELLS = """() => {
  const svg = document.querySelector('#board svg');
  const cells = {};
  svg.querySelectorAll('[data-cell]').forEach(e => { cells[e.dataset.cell] = e.dataset.content; });
  return {ply: Number(svg.dataset.ply), cells: cells};
}"""
