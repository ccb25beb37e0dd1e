"""Deployment tests reuse the service suite's fixtures (bots, played matches)."""

from tests.service.conftest import make_bot, play, user  # noqa: F401
