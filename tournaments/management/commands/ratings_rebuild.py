"""``manage.py ratings_rebuild``: recompute ratings from the match history."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tournaments.models import Rating
from tournaments.services.ratings import ratings_rebuild


class Command(BaseCommand):
    help = "Recompute the ratings of one pool (or all) by replaying rated matches in the order they were applied."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pool", help="rating pool, e.g. 'gamesup:target=21' (default: every pool)")

    def handle(self, *args: Any, **options: Any) -> None:
        pools = [options["pool"]] if options["pool"] else sorted(set(Rating.objects.values_list("pool", flat=True)))
        for pool in pools:
            count = ratings_rebuild(pool=pool)
            self.stdout.write(f"{pool}: replayed {count} match(es)")
