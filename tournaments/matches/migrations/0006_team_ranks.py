"""Stored ranks of team games counted over teams, as the protocol now says: [1, 2, 1, 2], not [1, 3, 1, 3].

Only matches with a team of more than one seat change; the order of the
teams is kept, so ratings, standings and points (which read only the order)
stay as they were.  Applying it twice changes nothing.
"""

from collections import defaultdict

from django.db import migrations
from django.db.models import Count, F

BATCH = 2000


def _team_ranks(seats):
    """(seat row, new rank) for one match's seats: 1 + the number of teams strictly better."""
    best = {}
    for seat in seats:
        if seat.rank is not None:
            best[seat.team] = min(seat.rank, best.get(seat.team, seat.rank))
    return [
        (seat, None if seat.rank is None else 1 + sum(1 for other in best.values() if other < best[seat.team]))
        for seat in seats
    ]


def ranks_by_team(apps, schema_editor):
    match_seat = apps.get_model("matches", "MatchSeat")
    team_games = (
        match_seat.objects.values("match_id")
        .annotate(seats=Count("id"), teams=Count("team", distinct=True))
        .filter(seats__gt=F("teams"))
        .values_list("match_id", flat=True)
    )
    ids = list(team_games)
    for start in range(0, len(ids), BATCH):
        by_match = defaultdict(list)
        for seat in match_seat.objects.filter(match_id__in=ids[start : start + BATCH]).order_by("match_id", "seat"):
            by_match[seat.match_id].append(seat)
        changed = []
        for seats in by_match.values():
            for seat, rank in _team_ranks(seats):
                if seat.rank != rank:
                    seat.rank = rank
                    changed.append(seat)
        match_seat.objects.bulk_update(changed, ["rank"], batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [("matches", "0005_drop_enqueued_at")]

    operations = [migrations.RunPython(ranks_by_team, migrations.RunPython.noop)]
