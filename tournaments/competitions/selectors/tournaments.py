"""Reading tournaments."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from tournaments.competitions.models import Participant, Tournament


def tournament_list(*, game_id: str | None = None, status: str | None = None) -> QuerySet[Tournament]:
    tournaments = Tournament.objects.select_related("owner").order_by("-id")
    if game_id:
        tournaments = tournaments.filter(game_id=game_id)
    if status:
        tournaments = tournaments.filter(status=status)
    return tournaments


def tournament_get(*, tournament_id: int) -> Tournament | None:
    return Tournament.objects.select_related("owner").filter(id=tournament_id).first()


def tournament_participants(*, tournament: Tournament) -> list[dict[str, Any]]:
    """Participants in entry order: version id, bot id and name, version number."""
    entries = (
        Participant.objects.filter(tournament=tournament)
        .select_related("bot_version__bot")
        .defer("bot_version__package")
        .order_by("number")
    )
    return [
        {
            "bot_version": e.bot_version_id,
            "bot": e.bot_version.bot_id,
            "bot_name": e.bot_version.bot.name,
            "version": e.bot_version.number,
        }
        for e in entries
    ]
