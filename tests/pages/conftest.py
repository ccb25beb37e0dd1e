"""Fixtures for the page tests: users and the games synced from the engines."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

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


@pytest.fixture
def context_of(browser: Any, live_server: Any) -> Iterator[Callable[..., Any]]:
    """Browser contexts on the live server: ``context_of(user)`` signed in as ``user`` (its session
    cookie), ``context_of(None)`` anonymous; 1280x800 unless a size is given.  Closed after the test."""
    contexts: list[Any] = []

    def make(user: Any, width: int = 1280, height: int = 800) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, base_url=live_server.url)
        if user is not None:
            client = Client()
            client.force_login(user)
            cookie = client.cookies["sessionid"].value
            context.add_cookies([{"name": "sessionid", "value": cookie, "url": live_server.url}])
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
