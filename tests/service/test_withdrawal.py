"""A bot withdrawn by its owner (deactivated, made private) stops playing in other people's tournaments.

Checked again when a draft starts (the bot is dropped), and after the start
(its unplayed matches are cancelled: never forfeited, never rated).
"""

from __future__ import annotations

from typing import Any

from tournaments.bots.models import Bot
from tournaments.bots.services import bot_deactivate, bot_update
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.models import Rating


def _draft(owner: Any, bots: list[Bot], games: int = 1) -> Tournament:
    return tournament_create(
        owner=owner, game_id="gamesup", name="t", bot_ids=[b.id for b in bots], games_per_pairing=games
    )


def _bots_in(tournament: Tournament) -> set[str]:
    return set(MatchSeat.objects.filter(match__tournament=tournament).values_list("bot_version__bot__name", flat=True))


def test_start_drops_bots_withdrawn_from_a_draft(user: Any, make_bot: Any) -> None:
    mine, kept, hidden, stopped = (make_bot(owner="new", name=n) for n in ("mine", "kept", "hidden", "stopped"))
    draft = _draft(user, [mine, kept, hidden, stopped])
    bot_update(bot=hidden, user=hidden.owner, visibility=Bot.Visibility.PRIVATE)
    bot_deactivate(bot=stopped, user=stopped.owner)
    started = tournament_start(tournament=draft, user=user)
    assert _bots_in(started) == {"mine", "kept"}
    assert started.matches.count() == 1
    assert set(started.entries.values_list("bot_version__bot__name", flat=True)) == {"mine", "kept"}


def test_a_draft_left_without_opponents_starts_and_finishes_empty(user: Any, make_bot: Any) -> None:
    mine, theirs = make_bot(owner=user, name="mine"), make_bot(owner="new", name="theirs")
    draft = _draft(user, [mine, theirs])
    bot_deactivate(bot=theirs, user=theirs.owner)
    started = tournament_start(tournament=draft, user=user)
    assert started.status == Tournament.Status.FINISHED and not started.matches.exists()


def test_made_private_after_the_start_cancels_its_unplayed_matches(user: Any, make_bot: Any, play: Any) -> None:
    a, b, quitter = (
        make_bot(owner="new", name="a"),
        make_bot(owner="new", name="b"),
        make_bot(owner="new", name="quitter"),
    )
    tournament = tournament_start(tournament=_draft(user, [a, b, quitter], games=2), user=user)
    assert tournament.matches.count() == 6
    played = tournament.matches.filter(match_seats__bot_version__bot=quitter).order_by("index").first()
    play(played, [1, 2])
    bot_update(bot=quitter, user=quitter.owner, visibility=Bot.Visibility.PRIVATE)
    by_status = {m.id: m.status for m in tournament.matches.filter(match_seats__bot_version__bot=quitter).distinct()}
    assert sorted(by_status.values()) == ["cancelled", "cancelled", "cancelled", "finished"]
    # Cancelled, not forfeited: no ranks, no seat statuses, no rating change.
    cancelled = MatchSeat.objects.filter(match_id__in=[i for i, s in by_status.items() if s == "cancelled"])
    assert not cancelled.exclude(rank=None).exists() and set(cancelled.values_list("status", flat=True)) <= {""}
    assert Rating.objects.filter(bot_version__bot=quitter).get().games == 1
    # The others' games go on, and the tournament ends when they are done.
    rest = list(tournament.matches.filter(status=Match.Status.QUEUED))
    assert len(rest) == 2 and _bots_in(tournament) >= {"a", "b"}
    for match in rest:
        play(match, [1, 2])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_private_bot_keeps_playing_in_its_owners_tournament_until_deactivated(
    user: Any, make_bot: Any, play: Any
) -> None:
    mine, theirs = make_bot(owner=user, name="mine"), make_bot(owner="new", name="theirs")
    tournament = tournament_start(tournament=_draft(user, [mine, theirs], games=3), user=user)
    bot_update(bot=mine, user=user, visibility=Bot.Visibility.PRIVATE)
    assert tournament.matches.filter(status=Match.Status.QUEUED).count() == 3
    bot_deactivate(bot=mine, user=user)
    assert set(tournament.matches.values_list("status", flat=True)) == {Match.Status.CANCELLED}
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
