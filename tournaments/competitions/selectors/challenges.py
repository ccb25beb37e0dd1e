"""Reading challenges: who sees which, their progress and score."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from tournaments.bots.models import Bot
from tournaments.competitions.models import Challenge
from tournaments.matches.models import Match
from tournaments.matches.selectors import matches_with_seats

_PENDING = (Match.Status.QUEUED, Match.Status.RUNNING)


def challenge_list(*, user: Any) -> QuerySet[Challenge]:
    """Challenges the user made or whose opponent is one of their bots; staff see all.

    Each carries counts of its matches by status (``n_<status>``).
    """
    challenges = Challenge.objects.select_related("challenger", "bot_version__bot", "opponent_version__bot").defer(
        "bot_version__package", "opponent_version__package"
    )
    if not getattr(user, "is_staff", False):
        if user is None or not user.is_authenticated:
            return challenges.none()
        # The opponent's owner does not see a challenge made by a private bot: private stays private.
        challenges = challenges.filter(
            Q(challenger_id=user.id)
            | Q(opponent_version__bot__owner_id=user.id, bot_version__bot__visibility=Bot.Visibility.PUBLIC)
        )
    counts = {f"n_{status}": Count("links", filter=Q(links__match__status=status)) for status in Match.Status.values}
    return challenges.annotate(**counts).order_by("-id")


def challenge_get(*, user: Any, challenge_id: int) -> Challenge | None:
    """The challenge if the user may see it."""
    return challenge_list(user=user).filter(id=challenge_id).first()


def challenge_status(challenge: Challenge) -> str:
    """pending (its opponent's owner has not answered), declined, queued (nothing started), running, or
    finished (no match left to play)."""
    if challenge.answer in (Challenge.Answer.PENDING, Challenge.Answer.DECLINED):
        return str(challenge.answer)
    pending = challenge.n_queued + challenge.n_running  # type: ignore[attr-defined]
    if pending == 0:
        return "finished"
    if challenge.n_queued == challenge.games:  # type: ignore[attr-defined]
        return "queued"
    return "running"


def challenge_matches(*, challenge: Challenge) -> list[Match]:
    """The challenge's matches in game order, with their seats (``seed_shown`` annotated)."""
    matches = Match.objects.filter(challenge_link__challenge=challenge)
    return list(matches_with_seats(matches=matches).order_by("challenge_link__number"))


def challenge_side(*, challenge: Challenge, user: Any) -> str:
    """Whose side ``user`` reads a challenge from: ``opponent`` for the challenged bot's owner, else ``bot``."""
    user_id = getattr(user, "id", None)
    if (
        user_id is not None
        and user_id != challenge.challenger_id
        and challenge.opponent_version.bot.owner_id == user_id
    ):
        return "opponent"
    return "bot"


def challenge_score(*, challenge: Challenge, matches: list[Match], user: Any = None) -> dict[str, Any]:
    """Wins, draws and losses over the finished games, from the reader's side, and its points.

    The challenged bot's owner reads their own bot's score; everyone else (the
    challenger, staff) the challenger's bot's.  ``side`` says which.
    """
    side = challenge_side(challenge=challenge, user=user)
    mine_id, theirs_id = challenge.bot_version_id, challenge.opponent_version_id
    if side == "opponent":
        mine_id, theirs_id = theirs_id, mine_id
    wins = draws = losses = 0
    for match in matches:
        if match.status != Match.Status.FINISHED:
            continue
        ranks = {s.bot_version_id: s.rank for s in match.match_seats.all() if s.rank is not None}
        mine, theirs = ranks.get(mine_id), ranks.get(theirs_id)
        if mine is None or theirs is None:
            continue
        if mine < theirs:
            wins += 1
        elif mine == theirs:
            draws += 1
        else:
            losses += 1
    return {"side": side, "wins": wins, "draws": draws, "losses": losses, "points": wins + draws / 2}
