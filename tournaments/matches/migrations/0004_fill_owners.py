"""Each existing match's owner and place in its series, for the fair queue (its own transaction:
PostgreSQL will not build an index in a transaction that has already changed the rows)."""

from django.db import migrations
from django.db.models import OuterRef, Subquery


def owners_fill(apps, schema_editor):
    """Each existing match's owner (its tournament's owner, its challenger, or its tester) and series place."""
    match = apps.get_model("matches", "Match")
    match.objects.filter(index__isnull=True).update(index=0)
    tournament = apps.get_model("competitions", "Tournament")
    challenge_link = apps.get_model("competitions", "ChallengeMatch")
    test_link = apps.get_model("competitions", "VersionTestMatch")
    match.objects.filter(tournament__isnull=False).update(
        owner=Subquery(tournament.objects.filter(pk=OuterRef("tournament_id")).values("owner_id")[:1])
    )
    match.objects.filter(kind="challenge").update(
        owner=Subquery(challenge_link.objects.filter(match_id=OuterRef("pk")).values("challenge__challenger_id")[:1])
    )
    match.objects.filter(kind="version_test").update(
        owner=Subquery(test_link.objects.filter(match_id=OuterRef("pk")).values("test__owner_id")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0003_fair_queue"),
        ("competitions", "0004_fair_queue"),
    ]

    operations = [migrations.RunPython(owners_fill, migrations.RunPython.noop)]
