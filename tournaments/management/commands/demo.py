"""``manage.py demo``: demo users, the reference bots for every game, their ladders, and started round robins.

Each reference bot (random, greedy, search) belongs to an account of its own
(``ref-random``...): public ranks come from the ladder, which never pairs one
owner's bots and ranks a bot only once it has met other owners (docs/ratings.md),
so three owners let every game's ladder rank all three within minutes of
`make start`.  The round robins are the demo user's own and are rated in
the demo user's own pools.

Idempotent: users, bots, ladders and tournaments that exist are left alone,
and a bot gets a new version only when its package changed.  Short clocks
and small ply caps let every demo round robin finish within a couple of
minutes.
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
from tournaments.competitions.models import Ladder, Tournament
from tournaments.competitions.services.ladders import ladder_save
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.games.services import game_sync
from workers.match import Clock
from workers.referee.text import plural

DEMO_PLY_CAP = 150
DEMO_CLOCK = Clock(move_ms=1000, game_ms=30000, startup_ms=5000)


# Each reference bot plays on its own account, so that the ladder can pair them and rank them.
REFERENCE = ("random", "greedy", "search")
HOUSE_PREFIX = "ref-"
# Ladder matches each ladder keeps queued: enough to keep two worker processes busy between top-ups.
DEMO_LADDER_QUEUED = 4


def _package_random() -> tuple[bytes, str]:
    path = REFERENCE_BOTS / "random_bot.py"
    return path.read_bytes(), "random_bot.py"


def _package_directory(name: str) -> tuple[bytes, str]:
    """A reference bot's directory as a zip, byte-for-byte stable so re-runs see the same checksum."""
    root: Path = REFERENCE_BOTS / name
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                info = zipfile.ZipInfo(str(path.relative_to(root)), date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                archive.writestr(info, path.read_bytes(), zipfile.ZIP_DEFLATED)
    return buffer.getvalue(), f"{name}.zip"


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
    help = (
        "Load demo users (demo/demo, admin/admin), the reference bots for every game on accounts of their own, "
        "a ladder per game, and start the demo user's round robins."
    )

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
        house = {name: self._house_user(name) for name in REFERENCE}
        _, token_key = token_create(user=demo)
        packages = {"random": _package_random(), "greedy": _package_directory("greedy")}
        packages["search"] = _package_directory("search")
        started = ladders = 0
        for engine in all_engines():
            configs = _demo_configs(engine)
            bots = {name: self._bot(house[name], engine.id, name, packages[name]) for name in REFERENCE}
            most_teams = max(len(engine.teams(s, engine.validate_options(o, s))) for s, o, _ in configs)
            # More teams than reference bots: copies of random, the demo user's own (private: only its round robins).
            for i in range(len(REFERENCE) + 1, most_teams + 1):
                name = f"random-{i}"
                bots[name] = self._bot(demo, engine.id, name, packages["random"], visibility=Bot.Visibility.PRIVATE)
            ladders += self._ladder(engine)
            names = list(bots)
            for seats, extra, pool in configs:
                options = {**extra, **_ply_cap_options(engine)}
                teams = len(engine.teams(seats, engine.validate_options(options, seats)))
                name = f"Demo: {engine.name} [{pool}]"
                if Tournament.objects.filter(owner=demo, name=name).exists():
                    continue
                participants = [bots[n].id for n in names[: max(teams, len(REFERENCE))]]
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
            f"{plural(started, 'round robin')} started, {plural(ladders, 'ladder')} added"
        )

    def _house_user(self, name: str) -> Any:
        """The account a reference bot plays on: no password, nobody logs in as it."""
        user, created = get_user_model().objects.get_or_create(username=HOUSE_PREFIX + name)
        if created:
            user.set_unusable_password()
            user.save()
        return user

    def _ladder(self, engine: Engine) -> int:
        """The game's ladder in its default pool, with the demo's clock and ply cap; 1 when added."""
        pool = engine.rating_pool({}, None)
        if Ladder.objects.filter(game_id=engine.id, pool=pool).exists():
            return 0
        ladder = Ladder(
            game_id=engine.id,
            seats=engine.default_seats(),
            options=_ply_cap_options(engine),
            queued_target=DEMO_LADDER_QUEUED,
            move_ms=DEMO_CLOCK.move_ms,
            game_ms=DEMO_CLOCK.game_ms,
            startup_ms=DEMO_CLOCK.startup_ms,
        )
        ladder_save(ladder=ladder)
        return 1

    def _bot(
        self, owner: Any, game_id: str, name: str, package: tuple[bytes, str], visibility: str = Bot.Visibility.PUBLIC
    ) -> Bot:
        data, filename = package
        bot = Bot.objects.filter(owner=owner, game_id=game_id, name=name).first()
        if bot is None:
            return bot_create(
                owner=owner,
                game_id=game_id,
                name=name,
                package=data,
                filename=filename,
                visibility=visibility,
                notes="reference bot",
            ).bot
        latest = BotVersion.objects.filter(bot=bot).order_by("-number").values_list("checksum", flat=True).first()
        if latest != hashlib.sha256(data).hexdigest():
            bot_version_create(bot=bot, user=owner, package=data, filename=filename, notes="reference bot, updated")
        return bot
