"""``manage.py ratings_rebuild``: rebuild ratings from the match history and compare them with the live ones.

    manage.py ratings_rebuild            # report every rating whose live numbers differ
    manage.py ratings_rebuild --check    # the same, exit status 1 when any differs
    manage.py ratings_rebuild --apply    # write the rebuilt numbers (and their history)

``--pool`` limits any of them to one rating pool.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.bots.models import BotVersion
from tournaments.ratings.rebuild import Numbers, RatingDifference, ratings_differences, ratings_rebuild_apply


def _numbers(values: Numbers | None) -> str:
    if values is None:
        return "(none)"
    elo, games, wins, draws, losses, owners = values
    return f"elo {elo:.6f} games {games} W/D/L {wins}/{draws}/{losses} other owners {owners}"


class Command(BaseCommand):
    help = (
        "Replay every finished rated match in finish order with the live Elo arithmetic and report each rating "
        "whose live numbers differ (--check: exit 1 if any; --apply: write the rebuilt numbers)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pool", help="one rating pool, e.g. 'gamesup' (default: every pool)")
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument("--check", action="store_true", help="exit with status 1 when any rating differs")
        mode.add_argument("--apply", action="store_true", help="write the rebuilt ratings and rating history")

    def _report(self, differences: list[RatingDifference]) -> None:
        labels = {
            v.id: f"{v.bot.name} v{v.number}"
            for v in BotVersion.objects.filter(id__in={d.bot_version_id for d in differences})
            .select_related("bot")
            .only("id", "number", "bot__name")
        }
        for d in differences:
            label = labels.get(d.bot_version_id, "?")
            self.stdout.write(
                f"DIFF {d.pool} version {d.bot_version_id} ({label}): "
                f"live {_numbers(d.live)} | rebuilt {_numbers(d.rebuilt)}"
            )

    def handle(self, *args: Any, **options: Any) -> None:
        pool = options["pool"]
        if options["apply"]:
            result = ratings_rebuild_apply(pool=pool)
            self._report(result.differences)
            self.stdout.write(
                f"applied: {result.matches} match(es) replayed, {result.ratings} rating(s) written, "
                f"{len(result.differences)} had differed"
            )
            return
        differences, replay, compared = ratings_differences(pool=pool)
        self._report(differences)
        self.stdout.write(
            f"{replay.matches} match(es) replayed, {compared} rating(s) compared, {len(differences)} differ"
        )
        if differences and options["check"]:
            raise CommandError(f"{len(differences)} rating(s) differ from the rebuild", returncode=1)
