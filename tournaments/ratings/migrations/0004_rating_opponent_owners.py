"""Each rating counts the other owners its bot has met; count them for the games already played."""

from collections import defaultdict

from django.conf import settings
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def count_opponent_owners(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    # The same count as the live path and the rebuild: in finish order, other owners met,
    # collected until the minimum is reached (so `ratings_rebuild --check` agrees at once).
    Rating = apps.get_model("ratings", "Rating")
    RatingChange = apps.get_model("ratings", "RatingChange")
    MatchSeat = apps.get_model("matches", "MatchSeat")
    BotVersion = apps.get_model("bots", "BotVersion")
    minimum = settings.ARBITER_RATING_MIN_OWNERS
    owner_of = dict(BotVersion.objects.values_list("id", "bot__owner_id"))
    version_of = dict(Rating.objects.values_list("id", "bot_version_id"))
    seats = defaultdict(set)
    for match_id, version_id in MatchSeat.objects.filter(match__rating_changes__isnull=False).values_list(
        "match_id", "bot_version_id"
    ):
        seats[match_id].add(owner_of[version_id])
    met = defaultdict(set)
    changes = RatingChange.objects.order_by("match__finished_at", "match_id").values_list("rating_id", "match_id")
    for rating_id, match_id in changes.iterator():
        if len(met[rating_id]) < minimum:
            met[rating_id] |= seats[match_id] - {owner_of[version_of[rating_id]]}
    for rating_id, owners in met.items():
        Rating.objects.filter(id=rating_id).update(opponent_owners=len(owners))


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0003_pool_fits"),
        ("matches", "0006_team_ranks"),
        ("bots", "0003_single_file_bots_start_main_py"),
    ]

    operations = [
        migrations.AddField(
            model_name="rating",
            name="opponent_owners",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(count_opponent_owners, migrations.RunPython.noop),
    ]
