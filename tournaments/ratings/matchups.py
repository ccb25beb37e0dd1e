"""Head to head: a bot's record against each opponent, and every game between two bots.

A game counts between two bots when both held a seat in a finished match and
sat in different teams; its score is the Elo pair score of their two ranks
(1 better, 0.5 shared, 0 worse: ``elo.pair_score``), so a four-seat game
scores each pair of opponents the way the rating does.  Only matches the user
may see are read (``matches.selectors.matches_visible``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from tournaments.bots.models import Bot
from tournaments.matches.forfeits import forfeit_explained
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.selectors import matches_visible
from tournaments.ratings.elo import pair_score
from tournaments.ratings.models import RatingChange
from tournaments.ratings.stats import ErrorBar

# The records on a bot's page read its latest this many finished matches (the page says so).
RECORD_MATCHES = 2000
# The matchup page lists this many of the newest games; its totals count them all.
MATCHUP_ROWS = 200
OK_STATUSES = ("ok", "")


@dataclass
class Tally:
    """Wins, draws and losses with the points they make (a win 1, a draw 0.5)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, score: float) -> None:
        if score == 1.0:
            self.wins += 1
        elif score == 0.5:
            self.draws += 1
        else:
            self.losses += 1

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2.0


@dataclass
class OpponentRecord:
    """One bot's games against one opponent: W/D/L, per seat it held, and forfeits on each side."""

    opponent: int
    opponent_name: str
    total: Tally = field(default_factory=Tally)
    by_seat: dict[int, Tally] = field(default_factory=dict)
    forfeits: int = 0  # games of these the bot forfeited
    opponent_forfeits: int = 0

    @property
    def seats(self) -> list[tuple[int, Tally]]:
        return sorted(self.by_seat.items())


def _seats_by_match(match_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    rows = MatchSeat.objects.filter(match_id__in=match_ids).values(
        "match_id", "seat", "team", "rank", "status", "bot_version_id", "bot_version__number", "bot_version__bot_id"
    )
    by_match: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_match[row["match_id"]].append(dict(row))
    return by_match


def _pairs(seats: list[dict[str, Any]], bot_id: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(the bot's seat, an opponent's seat) for every opponent in another team, both ranked."""
    ours = [s for s in seats if s["bot_version__bot_id"] == bot_id]
    return [
        (mine, other)
        for mine in ours
        for other in seats
        if other["bot_version__bot_id"] != bot_id
        and other["team"] != mine["team"]
        and mine["rank"] is not None
        and other["rank"] is not None
    ]


def _finished_with(*, user: Any, bot_id: int) -> Any:
    return (
        matches_visible(user=user)
        .filter(status=Match.Status.FINISHED, match_seats__bot_version__bot_id=bot_id)
        .order_by("-id")
        .values_list("id", flat=True)
        .distinct()  # two versions of one bot may share a match (a version test)
    )


def opponent_records(*, user: Any, bot: Bot) -> list[OpponentRecord]:
    """The bot's record against each opponent in its latest finished matches, most games first (3 queries)."""
    match_ids = list(_finished_with(user=user, bot_id=bot.id)[:RECORD_MATCHES])
    by_match = _seats_by_match(match_ids)
    records: dict[int, OpponentRecord] = {}
    for seats in by_match.values():
        for mine, other in _pairs(seats, bot.id):
            record = records.setdefault(other["bot_version__bot_id"], OpponentRecord(other["bot_version__bot_id"], ""))
            score = pair_score(mine["rank"], other["rank"])
            record.total.add(score)
            record.by_seat.setdefault(mine["seat"], Tally()).add(score)
            record.forfeits += mine["status"] not in OK_STATUSES
            record.opponent_forfeits += other["status"] not in OK_STATUSES
    names = dict(Bot.objects.filter(id__in=records).values_list("id", "name"))
    for record in records.values():
        record.opponent_name = names.get(record.opponent, "")
    return sorted(records.values(), key=lambda r: (-r.total.games, r.opponent_name, r.opponent))


def match_rating_deltas(*, match_ids: list[int]) -> dict[tuple[int, int], float]:
    """Each (match, bot version)'s Elo change in those matches (one query; unrated matches have none)."""
    rows = RatingChange.objects.filter(match_id__in=match_ids).values_list(
        "match_id", "rating__bot_version_id", "delta"
    )
    return {(m, v): d for m, v, d in rows}


def matchup(*, user: Any, bot: Bot, opponent: Bot) -> dict[str, Any]:
    """The finished games between two bots the user may see (the newest MATCHUP_ROWS, and how many
    ``more``), their totals over all of them and the performance.

    Each game: the match, its finish time, both sides' seat, version, rank,
    status (with its plain-words meaning) and Elo change, and the first bot's
    score.  ``performance`` is the Elo difference the first bot's score implies,
    with its 95% interval (``ErrorBar.of_score``), None while it has no finite value.
    """
    ids = _finished_with(user=user, bot_id=bot.id).filter(
        id__in=MatchSeat.objects.filter(bot_version__bot_id=opponent.id).values("match_id")
    )
    match_ids = list(ids)
    finished = dict(Match.objects.filter(id__in=match_ids).values_list("id", "finished_at"))
    by_match = _seats_by_match(match_ids)
    deltas = match_rating_deltas(match_ids=match_ids)
    total = Tally()
    games = []
    for match_id in match_ids:
        for mine, other in _pairs(by_match[match_id], bot.id):
            if other["bot_version__bot_id"] != opponent.id:
                continue
            score = pair_score(mine["rank"], other["rank"])
            total.add(score)
            games.append(
                {
                    "match": match_id,
                    "finished_at": finished[match_id],
                    "score": score,
                    "sides": [_side(seat, deltas.get((match_id, seat["bot_version_id"]))) for seat in (mine, other)],
                }
            )
    return {
        "games": games[:MATCHUP_ROWS],
        "more": max(0, len(games) - MATCHUP_ROWS),
        "total": total,
        "performance": ErrorBar.of_score(total.wins, total.draws, total.losses),
    }


def _side(seat: dict[str, Any], delta: float | None) -> dict[str, Any]:
    return {
        "seat": seat["seat"],
        "version": seat["bot_version__number"],
        "rank": seat["rank"],
        "status": seat["status"],
        "explained": forfeit_explained(seat["status"]),
        "delta": delta,
    }
