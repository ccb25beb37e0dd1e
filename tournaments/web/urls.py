"""Routes of the pages (mounted at the site root)."""

from django.urls import path

from tournaments.web import views

urlpatterns = [
    path("games/", views.games_index, name="web-games"),
    path("games/<str:game_id>/leaderboard/", views.game_leaderboard, name="web-leaderboard"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="web-tournament"),
    path("tournaments/<int:tournament_id>/live/", views.tournament_live, name="web-tournament-live"),
    path("bots/<int:bot_id>/", views.bot_page, name="web-bot"),
    path("matches/<int:match_id>/", views.match_page, name="web-match"),
]
