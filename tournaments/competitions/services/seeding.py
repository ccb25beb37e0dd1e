"""The seeds of a tournament played in rounds (Swiss, knockouts): participant numbers from 0, the top seed first."""

from __future__ import annotations

import secrets

from tournaments.competitions.models import Participant, Tournament
from tournaments.ratings.models import Rating


def participants_seed(*, tournament: Tournament) -> list[int]:
    """Number the participants in seed order and return their bot version ids in that order.

    By rating (the default): the highest rating in the tournament's pool
    first, unrated bots after the rated ones, in their entry order.  A random
    draw (``seeding = random``) shuffles them with the operating system's
    secure generator, on the server, so nobody can steer it.  Called by the
    start, inside its transaction, holding the tournament's lock.
    """
    entries = list(Participant.objects.filter(tournament=tournament).order_by("number"))
    if tournament.seeding == Tournament.Seeding.RANDOM:
        seeded = list(entries)
        secrets.SystemRandom().shuffle(seeded)
    else:
        elo = dict(
            Rating.objects.filter(
                pool=tournament.rating_pool, bot_version_id__in=[e.bot_version_id for e in entries]
            ).values_list("bot_version_id", "elo")
        )
        seeded = sorted(entries, key=lambda e: (e.bot_version_id not in elo, -elo.get(e.bot_version_id, 0.0), e.number))
    Participant.objects.filter(tournament=tournament).delete()
    Participant.objects.bulk_create(
        [Participant(tournament=tournament, bot_version_id=e.bot_version_id, number=i) for i, e in enumerate(seeded)]
    )
    return [e.bot_version_id for e in seeded]
