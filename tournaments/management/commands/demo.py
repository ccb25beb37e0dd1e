"""``manage.py demo``: demo users, the reference bots for every game, and started round robins.

Idempotent: users, bots and tournaments that exist are left alone, and a
bot gets a new version only when its package changed.  Short clocks and
small ply caps let every demo round robin finish within a couple of minutes.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from engines import Engine, all_engines
from kit import REFERENCE_BOTS
from tournaments.accounts.services import token_create
from tournaments.bots.models import Bot, BotVersion
from tournaments.bots.services import bot_create, bot_version_create
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.games.services import game_sync
from workers.match import Clock

DEMO_PLY_CAP = 150
DEMO_CLOCK = Clock(move_ms=1000, game_ms=30000, startup_ms=5000)


def _package_random() -> tuple[bytes, str]:
    path = REFERENCE_BOTS / "random_bot.py"
    return path.read_bytes(), "random_bot.py"


def _package_greedy() -> tuple[bytes, str]:
    """The greedy bot's directory as a zip, byte-for-byte stable so re-runs see the same checksum."""
    root: Path = REFERENCE_BOTS / "greedy"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                info = zipfile.ZipInfo(str(path.relative_to(root)), date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                archive.writestr(info, path.read_bytes(), zipfile.ZIP_DEFLATED)
    return buffer.getvalue(), "greedy.zip"


def _ply_cap_options(engine: Engine) -> dict[str, Any]:
    """Every engine has a ply-cap option; shorten it for the demo."""
    out = {}
    for option in engine.options:
        if option.kind is int and "plies" in option.name:
            value = min(option.default, DEMO_PLY_CAP)
            if option.minimum is not None:
                value = max(value, option.minimum)
            out[option.name] = value
    return out


def _demo_configs(engine: Engine) -> list[tuple[int, dict[str, Any], str]]:
    """(seats, options, rating pool): the default, then one per further rating pool among the
    engine's example configurations of up to four seats (Sequence 3p and 2x2, Diabolical Stacks...)."""
    chosen: list[tuple[int, dict[str, Any], str]] = []
    pools = set()
    for seats, options in [(engine.default_seats(), {}), *engine.configs()]:
        if seats > 4:
            continue
        pool = engine.rating_pool(options, seats)
        if pool in pools:
            continue
        pools.add(pool)
        chosen.append((seats, options, pool))
    return chosen


class Command(BaseCommand):
    help = "Load demo users (demo/demo, admin/admin), the reference bots for every game, and start round robins."

    def handle(self, *args: Any, **options: Any) -> None:
        game_sync()
        users = get_user_model()
        demo, created = users.objects.get_or_create(username="demo")
        if created:
            demo.set_password("demo")
            demo.save()
        admin, created = users.objects.get_or_create(
            username="admin", defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            admin.set_password("admin")
            admin.save()
        _, token_key = token_create(user=demo)
        packages = {"random": _package_random(), "greedy": _package_greedy()}
        started = 0
        for engine in all_engines():
            configs = _demo_configs(engine)
            most_teams = max(len(engine.teams(s, engine.validate_options(o, s))) for s, o, _ in configs)
            names = ["random", "greedy"] + [f"random-{i}" for i in range(2, most_teams)]
            bots = {name: self._bot(demo, engine.id, name, packages[name.split("-")[0]]) for name in names}
            for seats, extra, pool in configs:
                options = {**extra, **_ply_cap_options(engine)}
                teams = len(engine.teams(seats, engine.validate_options(options, seats)))
                name = f"Demo: {engine.name} [{pool}]"
                if Tournament.objects.filter(owner=demo, name=name).exists():
                    continue
                participants = [bots[n].id for n in names[: max(teams, 2)]]
                tournament = tournament_create(
                    owner=demo,
                    game_id=engine.id,
                    name=name,
                    bot_ids=participants,
                    options=options,
                    seats=seats,
                    games_per_pairing=max(2, teams),
                    move_ms=DEMO_CLOCK.move_ms,
                    game_ms=DEMO_CLOCK.game_ms,
                    startup_ms=DEMO_CLOCK.startup_ms,
                )
                tournament_start(tournament=tournament, user=demo)
                started += 1
        self.stdout.write(
            f"demo ready: users demo/demo and admin/admin (a new API token for demo: {token_key}); "
            f"{started} round robin(s) started"
        )

    def _bot(self, owner: Any, game_id: str, name: str, package: tuple[bytes, str]) -> Bot:
        data, filename = package
        bot = Bot.objects.filter(owner=owner, game_id=game_id, name=name).first()
        if bot is None:
            return bot_create(
                owner=owner, game_id=game_id, name=name, package=data, filename=filename, notes="reference bot"
            ).bot
        latest = BotVersion.objects.filter(bot=bot).order_by("-number").values_list("checksum", flat=True).first()
        if latest != hashlib.sha256(data).hexdigest():
            bot_version_create(bot=bot, user=owner, package=data, filename=filename, notes="reference bot, updated")
        return bot
