"""Routes of the REST API (mounted at /api/): every domain's views, in one map."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from tournaments.accounts import api as accounts
from tournaments.api.root import ApiRootApi
from tournaments.bots import api as bots
from tournaments.competitions.api import brackets, challenges, gauntlets, schedules, tournaments, version_tests
from tournaments.games import api as games
from tournaments.matches import api as matches
from tournaments.ratings import api as ratings

urlpatterns = [
    path("", ApiRootApi.as_view(), name="api-root"),
    path("auth/token/", accounts.TokenApi.as_view(), name="api-token"),
    path("users/", accounts.UserCreateApi.as_view(), name="api-users"),
    path("users/me/", accounts.MeApi.as_view(), name="api-me"),
    path("games/", games.GameListApi.as_view(), name="api-games"),
    path("games/<str:game_id>/", games.GameDetailApi.as_view(), name="api-game"),
    path("games/<str:game_id>/rules/", games.GameRulesApi.as_view(), name="api-game-rules"),
    path("games/<str:game_id>/leaderboard/", ratings.GameLeaderboardApi.as_view(), name="api-game-leaderboard"),
    path("bots/", bots.BotListCreateApi.as_view(), name="api-bots"),
    path("bots/<int:bot_id>/", bots.BotDetailApi.as_view(), name="api-bot"),
    path("bots/<int:bot_id>/versions/", bots.BotVersionListCreateApi.as_view(), name="api-bot-versions"),
    path(
        "bots/<int:bot_id>/versions/<int:number>/retire/",
        bots.BotVersionRetireApi.as_view(),
        name="api-bot-version-retire",
    ),
    path("bots/<int:bot_id>/deactivate/", bots.BotDeactivateApi.as_view(), name="api-bot-deactivate"),
    path("bots/<int:bot_id>/ratings/", bots.BotRatingHistoryApi.as_view(), name="api-bot-ratings"),
    path("tournaments/", tournaments.TournamentListCreateApi.as_view(), name="api-tournaments"),
    path("tournaments/<int:tournament_id>/", tournaments.TournamentDetailApi.as_view(), name="api-tournament"),
    path(
        "tournaments/<int:tournament_id>/start/", tournaments.TournamentStartApi.as_view(), name="api-tournament-start"
    ),
    path(
        "tournaments/<int:tournament_id>/cancel/",
        tournaments.TournamentCancelApi.as_view(),
        name="api-tournament-cancel",
    ),
    path(
        "tournaments/<int:tournament_id>/standings/",
        tournaments.TournamentStandingsApi.as_view(),
        name="api-tournament-standings",
    ),
    path("tournaments/<int:tournament_id>/los/", tournaments.TournamentLosApi.as_view(), name="api-tournament-los"),
    path(
        "tournaments/<int:tournament_id>/gauntlet/",
        gauntlets.GauntletReportApi.as_view(),
        name="api-tournament-gauntlet",
    ),
    path(
        "tournaments/<int:tournament_id>/bracket/",
        brackets.TournamentBracketApi.as_view(),
        name="api-tournament-bracket",
    ),
    path(
        "tournaments/<int:tournament_id>/rounds/",
        tournaments.TournamentRoundsApi.as_view(),
        name="api-tournament-rounds",
    ),
    path(
        "tournaments/<int:tournament_id>/crosstable/",
        tournaments.TournamentCrosstableApi.as_view(),
        name="api-tournament-crosstable",
    ),
    path("matches/", matches.MatchListApi.as_view(), name="api-matches"),
    path("matches/<int:match_id>/", matches.MatchDetailApi.as_view(), name="api-match"),
    path("ratings/", ratings.RatingListApi.as_view(), name="api-ratings"),
    path("challenges/", challenges.ChallengeListCreateApi.as_view(), name="api-challenges"),
    path("challenges/<int:challenge_id>/", challenges.ChallengeDetailApi.as_view(), name="api-challenge"),
    path("challenges/<int:challenge_id>/cancel/", challenges.ChallengeCancelApi.as_view(), name="api-challenge-cancel"),
    path(
        "challenges/<int:challenge_id>/accept/",
        challenges.ChallengeAnswerApi.as_view(accept=True),
        name="api-challenge-accept",
    ),
    path(
        "challenges/<int:challenge_id>/decline/",
        challenges.ChallengeAnswerApi.as_view(accept=False),
        name="api-challenge-decline",
    ),
    path("schedules/", schedules.ScheduleListCreateApi.as_view(), name="api-schedules"),
    path("schedules/<int:schedule_id>/", schedules.ScheduleDetailApi.as_view(), name="api-schedule"),
    path(
        "bots/<int:bot_id>/version-tests/", version_tests.VersionTestListCreateApi.as_view(), name="api-version-tests"
    ),
    path(
        "bots/<int:bot_id>/version-tests/<int:test_id>/",
        version_tests.VersionTestDetailApi.as_view(),
        name="api-version-test",
    ),
    path(
        "bots/<int:bot_id>/version-tests/<int:test_id>/cancel/",
        version_tests.VersionTestCancelApi.as_view(),
        name="api-version-test-cancel",
    ),
    # The OpenAPI 3 schema and its interactive docs (assets from drf-spectacular-sidecar, no CDN).
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("docs/redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
]
