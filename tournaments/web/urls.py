"""Routes of the pages (mounted at the site root)."""

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from tournaments.web import (
    account_views,
    bot_pages,
    bot_views,
    challenge_views,
    schedule_views,
    tournament_list,
    tournament_views,
    version_test_views,
    views,
)

urlpatterns = [
    path("games/", views.games_index, name="web-games"),
    path("games/<str:game_id>/leaderboard/", views.game_leaderboard, name="web-leaderboard"),
    path("tournaments/", tournament_list.tournaments_page, name="web-tournaments"),
    path("tournaments/new/", tournament_views.tournament_new, name="web-tournament-new"),
    path("tournaments/new/count/", tournament_views.tournament_count, name="web-tournament-count"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="web-tournament"),
    path("tournaments/<int:tournament_id>/live/", views.tournament_live, name="web-tournament-live"),
    path(
        "tournaments/<int:tournament_id>/<str:action>/",
        tournament_views.tournament_action,
        name="web-tournament-action",
    ),
    path("bots/new/", bot_views.bot_new, name="web-bot-new"),
    path("bots/<int:bot_id>/", bot_pages.bot_page, name="web-bot"),
    path("bots/<int:bot_id>/against/<int:opponent_id>/", bot_pages.matchup_page, name="web-matchup"),
    path("bots/<int:bot_id>/versions/new/", bot_views.bot_version_new, name="web-bot-version-new"),
    path("bots/<int:bot_id>/settings/", bot_views.bot_settings, name="web-bot-settings"),
    path("bots/<int:bot_id>/deactivate/", bot_views.bot_deactivate_view, name="web-bot-deactivate"),
    path("bots/<int:bot_id>/tests/", version_test_views.version_tests_page, name="web-version-tests"),
    path("bots/<int:bot_id>/tests/new/", version_test_views.version_test_new, name="web-version-test-new"),
    path("bots/<int:bot_id>/tests/<int:test_id>/", version_test_views.version_test_page, name="web-version-test"),
    path(
        "bots/<int:bot_id>/tests/<int:test_id>/cancel/",
        version_test_views.version_test_cancel_view,
        name="web-version-test-cancel",
    ),
    path("challenges/", challenge_views.challenges_page, name="web-challenges"),
    path("challenges/new/", challenge_views.challenge_new, name="web-challenge-new"),
    path(
        "challenges/<int:challenge_id>/<str:answer>/",
        challenge_views.challenge_answer_view,
        name="web-challenge-answer",
    ),
    path("schedules/", schedule_views.schedules_page, name="web-schedules"),
    path("schedules/new/", schedule_views.schedule_new, name="web-schedule-new"),
    path("schedules/<int:schedule_id>/toggle/", schedule_views.schedule_toggle, name="web-schedule-toggle"),
    path("matches/<int:match_id>/", views.match_page, name="web-match"),
    path("matches/<int:match_id>/download/", views.match_download, name="web-match-download"),
    path("matches/<int:match_id>/live/", views.match_live_json, name="web-match-live"),
    path("me/bots/", bot_views.my_bots, name="web-my-bots"),
    path("me/tokens/", account_views.tokens, name="web-tokens"),
    path("me/tokens/new/", account_views.token_new, name="web-token-new"),
    path("me/tokens/revoke/", account_views.token_delete, name="web-token-revoke"),
    path("signup/", account_views.signup, name="web-signup"),
    path("login/", auth_views.LoginView.as_view(template_name="web/login.html"), name="web-login"),
    path("logout/", auth_views.LogoutView.as_view(), name="web-logout"),
    path(
        "me/password/",
        auth_views.PasswordChangeView.as_view(
            template_name="web/password_change.html", success_url=reverse_lazy("web-password-done")
        ),
        name="web-password",
    ),
    path(
        "me/password/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="web/password_done.html"),
        name="web-password-done",
    ),
]
