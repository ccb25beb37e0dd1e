"""Competitions: tournaments of every format, schedules, ladders, challenges and version tests."""

from __future__ import annotations

from django.apps import AppConfig


class CompetitionsConfig(AppConfig):
    name = "tournaments.competitions"
    label = "competitions"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # What each kind of match does when one ends (the order is documented in
        # tournaments/matches/life.py).  Imported here: services need the app registry.
        from tournaments.bots.services import bot_withdrawal_register
        from tournaments.competitions.services import (
            endings,
            ladders,
            performance,
            rounds,
            version_tests,
            withdrawals,
        )
        from tournaments.matches.hooks import KindHooks, match_kind_register
        from tournaments.matches.models import Match

        match_kind_register(
            Match.Kind.TOURNAMENT,
            KindHooks(
                # A round robin's finish, or the next round of a Swiss or knockout: rounds.py dispatches.
                tallied=rounds.tournament_matches_tallied,
                committed=performance.performance_match_recorded,
                requeued=endings.tournament_match_requeued,
            ),
        )
        match_kind_register(Match.Kind.VERSION_TEST, KindHooks(ended=version_tests.version_test_match_ended))
        match_kind_register(Match.Kind.LADDER, KindHooks(committed=ladders.ladder_match_ended))
        match_kind_register(Match.Kind.CHALLENGE, KindHooks())
        bot_withdrawal_register(withdrawals.tournament_bot_withdrawn)
