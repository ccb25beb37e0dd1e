"""Fixtures for the page tests: users and the games synced from the engines."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from tests.pages.browser import chromium
from tournaments.games.services import game_sync


@pytest.fixture
def games(db: None) -> None:
    game_sync()


@pytest.fixture
def alice(db: None) -> Any:
    return get_user_model().objects.create_user(username="alice", password="alice-pw")


@pytest.fixture
def bob(db: None) -> Any:
    return get_user_model().objects.create_user(username="bob", password="bob-pw")


@pytest.fixture
def staff(db: None) -> Any:
    return get_user_model().objects.create_user(username="root", password="root-pw", is_staff=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium per test module; skips (fails under CI) without Playwright or Chromium."""
    with chromium() as browser:
        yield browser


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    """A fresh browser context on the live server; any JavaScript error fails the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_server.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"
