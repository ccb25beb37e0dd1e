"""Code that several tests run in a live set's ``manage.py shell`` (``tests.live`` ``shell``)."""

from __future__ import annotations


def owner_with_bots(*, username: str, bots: int) -> str:
    """Shell code that syncs the games and makes ``user`` with ``bots`` random Games Up bots (``bots``).

    Each bot's package differs by its number of trailing ``#`` (a version of its own).
    """
    return f"""
from django.contrib.auth import get_user_model
from tournaments.bots.services import bot_create
from tournaments.games.services import game_sync
game_sync()
user = get_user_model().objects.create_user(username="{username}", password="{username}-pass-1")
code = open("kit/bots/random_bot.py", "rb").read()
bots = [bot_create(owner=user, game_id="gamesup", name=f"b{{i}}", package=code + b"#" * i, filename="r.py").bot
        for i in range({bots})]
"""
