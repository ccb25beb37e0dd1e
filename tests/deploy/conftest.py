"""Deployment tests reuse the service suite's fixtures (a fresh PostgreSQL database, bots, played matches)."""

from tests.service.conftest import database, make_bot, play, user  # noqa: F401
