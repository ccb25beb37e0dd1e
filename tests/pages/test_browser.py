"""The pages in a real browser: every game's replay stepped to its end and checked against the engine.

Matches are played by the real engines and recorded through the services
(tests/pages/support.py); the live server serves the pages and their
static files; Chromium runs the JS renderers.  Screenshots go to
test-artifacts/pages/.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import Client

from engines import get_engine
from tests.pages.browser import READ_CELLS, expected_cells, screenshot
from tests.pages.support import SHORT_GAMES, finished_tournament, make_bot, play_match
from tournaments.matches.models import Match

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _login(page: Any, user: Any, live_server: Any) -> None:
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    page.context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])


def _states(match: Match) -> list[Any]:
    engine = get_engine(match.game_id)
    state = engine.new_state(match.options, seed=match.seed, seats=match.seats)
    states = [state.clone()]
    for entry in match.moves:
        state.apply(entry["move"])
        states.append(state.clone())
    return states


@pytest.mark.parametrize(("game", "seats", "options"), SHORT_GAMES, ids=[g for g, _, _ in SHORT_GAMES])
def test_replay_steps_to_the_end_matching_the_engine(
    page: Any, live_server: Any, games: None, alice: Any, bob: Any, game: str, seats: int, options: dict
) -> None:
    bots = [make_bot(owner=alice, game=game, name="mine"), make_bot(owner=bob, game=game, name="theirs")]
    tournament = finished_tournament(owner=alice, game=game, seats=seats, options=options, bots=bots, seed=7)
    match = Match.objects.filter(tournament=tournament).get()
    states = _states(match)
    last = len(states) - 1
    assert last == len(match.moves) > 0

    page.goto(f"/matches/{match.id}/")
    page.wait_for_selector("#board svg")
    assert page.locator("#move-list li").count() == last
    for ply, state in enumerate(states):
        drawn = page.evaluate(READ_CELLS)
        assert drawn["ply"] == ply
        assert drawn["cells"] == expected_cells(game, state.public_observation()), f"ply {ply}"
        if ply < last:
            page.keyboard.press("ArrowRight")
    # The end: the reason the game ended, and the last move with the time it took.
    info = page.locator("#ply-info").inner_text()
    assert match.result_reason in info
    final = match.moves[-1]
    assert f"{final['move']} in {final['ms']} ms" in info
    assert page.locator("#move-list li.current").inner_text().startswith(final["move"])
    page.keyboard.press("ArrowRight")  # past the end: stays
    assert page.evaluate(READ_CELLS)["ply"] == last
    screenshot(page, f"replay-{game}-end")

    # Buttons, the move list and the keys step too.
    page.click("[data-step=prev]")
    assert page.evaluate(READ_CELLS)["ply"] == last - 1
    page.click("[data-step=first]")
    assert page.evaluate(READ_CELLS)["cells"] == expected_cells(game, states[0].public_observation())
    page.keyboard.press("End")
    assert page.evaluate(READ_CELLS)["ply"] == last
    middle = last // 2 or 1
    page.click(f"#move-list li[data-ply='{middle}']")
    drawn = page.evaluate(READ_CELLS)
    assert drawn["ply"] == middle
    assert drawn["cells"] == expected_cells(game, states[middle].public_observation())
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(READ_CELLS)["ply"] == middle - 1
    screenshot(page, f"replay-{game}-middle")


def test_sequence_hands_only_for_the_viewers_own_seats(
    page: Any, live_server: Any, games: None, alice: Any, bob: Any
) -> None:
    game, seats, options = next(g for g in SHORT_GAMES if g[0] == "sequence")
    bots = [make_bot(owner=alice, game=game, name="mine"), make_bot(owner=bob, game=game, name="theirs")]
    tournament = finished_tournament(owner=alice, game=game, seats=seats, options=options, bots=bots, seed=3)
    match = Match.objects.filter(tournament=tournament).get()
    mine = sorted(s.seat for s in match.match_seats.all() if s.bot_version.bot.owner_id == alice.id)
    assert mine and len(mine) < seats
    states = _states(match)

    # Anonymous: no hand at all, not even in the page source.
    page.goto(f"/matches/{match.id}/")
    page.wait_for_selector("#board svg")
    assert page.locator("[data-hand-seat]").count() == 0
    assert '"hand"' not in page.content()

    # Alice: a toggle for each of her seats only; ticked, the hand is the engine's at every ply.
    _login(page, alice, live_server)
    page.goto(f"/matches/{match.id}/")
    page.wait_for_selector("#board svg")
    boxes = page.locator("#hand-toggles input[type=checkbox]")
    assert sorted(int(boxes.nth(i).get_attribute("data-hand-seat")) for i in range(boxes.count())) == mine
    assert page.locator("#board [data-cards]").count() == 0  # off until asked for
    boxes.first.check()
    seat = mine[0]
    for ply in range(min(12, len(states))):
        shown = page.locator(f"#board [data-hand-seat='{seat}']").get_attribute("data-cards")
        assert shown.split(",") == states[ply].observation(seat)["hand"], f"ply {ply}"
        page.keyboard.press("ArrowRight")
    assert page.locator("#board [data-cards]").count() == 1
    screenshot(page, "replay-sequence-own-hand")


def test_tournament_page_refreshes_itself_while_running(
    page: Any, live_server: Any, games: None, alice: Any, bob: Any
) -> None:
    bots = [make_bot(owner=u, game="pileup", name=f"bot{i}") for i, u in enumerate([alice, bob, alice])]
    tournament = finished_tournament(
        owner=alice, game="pileup", seats=2, options={"max_plies": 40}, bots=bots, leave_queued=1, seed=5
    )
    total = Match.objects.filter(tournament=tournament).count()
    assert tournament.status == "running"

    page.goto(f"/tournaments/{tournament.id}/")
    progress = page.locator("#progress")
    assert progress.get_attribute("max") == str(total)
    assert progress.get_attribute("value") == str(total - 1)
    assert page.locator("#standings tbody tr").count() == 3
    assert page.locator("#crosstable tbody tr").count() == 3
    games_shown = sum(int(t) for t in page.locator("#standings tbody tr td:nth-child(4)").all_inner_texts())
    assert games_shown == 2 * (total - 1)
    screenshot(page, "tournament-running")

    # The last match finishes while the page is open: it notices by itself.
    play_match(Match.objects.get(tournament=tournament, status="queued"), rng=random.Random(1))
    page.wait_for_selector(".live-body[data-status=finished]", timeout=15000)
    assert page.locator("#progress").get_attribute("value") == str(total)
    games_shown = sum(int(t) for t in page.locator("#standings tbody tr td:nth-child(4)").all_inner_texts())
    assert games_shown == 2 * total
    wdl = page.locator("#standings tbody tr").first.locator("td.wins, td.draws, td.losses").all_inner_texts()
    assert sum(int(x) for x in wdl) == int(page.locator("#standings tbody tr td:nth-child(4)").first.inner_text())
    screenshot(page, "tournament-finished")

    # From the standings to a bot's page: its chart has a point per rated game plus the start.
    leader_games = int(page.locator("#standings tbody tr td:nth-child(4)").first.inner_text())
    page.locator("#standings tbody tr a").first.click()
    page.wait_for_selector("svg.rating-chart")
    chart = page.locator("svg.rating-chart")
    assert int(chart.get_attribute("data-points")) == leader_games + 1
    assert page.locator("svg.rating-chart polyline").count() == 1
    screenshot(page, "bot")

    # And the leaderboard of the tournament's pool lists the three bots, best first.
    page.goto(f"/games/pileup/leaderboard/?pool={tournament.rating_pool}")
    elos = [float(e) for e in page.locator("#leaderboard td.elo").all_inner_texts()]
    assert len(elos) == 3 and elos == sorted(elos, reverse=True)
    screenshot(page, "leaderboard")


def test_static_assets_are_served_by_the_app(page: Any, live_server: Any, games: None, alice: Any) -> None:
    """No CDN: every script and stylesheet the pages load comes from the app itself."""
    bots = [make_bot(owner=alice, game="gamesup", name=f"b{i}") for i in range(2)]
    tournament = finished_tournament(owner=alice, game="gamesup", seats=2, options={"target": 13}, bots=bots)
    match = Match.objects.filter(tournament=tournament).get()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(f"/matches/{match.id}/")
    page.wait_for_selector("#board svg")
    assert any(u.endswith("/static/replay/viewer.js") for u in requested)
    assert any(u.endswith("/static/replay/gamesup.js") for u in requested)
    assert any(u.endswith("/static/web/style.css") for u in requested)
    assert all(u.startswith(live_server.url) for u in requested), requested
