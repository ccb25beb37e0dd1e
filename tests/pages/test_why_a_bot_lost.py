"""Why a bot lost, in the browser: a bot that crashes in the real sandbox shows its owner the traceback
and the referee's explanation on the match page, a spectator the explanation only; the bot's page
lists the forfeit with its reason."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.pages.browser import element_screenshot, screenshot
from tests.pages.support import make_bot
from tests.referee.conftest import sandbox_runtime
from tests.referee.support import FIRST_UID, make_limits, require_sandbox
from tournaments.bots.services import bot_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches import tasks
from tournaments.matches.models import Match

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Ready at once, then on its first turn some markup and a Python exception on stderr, and exit status 1.
CRASHES = b"""import json, sys
for line in sys.stdin:
    if json.loads(line)["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    else:
        sys.stderr.write("<b id=injected>not markup</b>\\n")
        raise RuntimeError("the secret plan failed")
"""


@pytest.fixture
def crashed(settings: Any, games: None, alice: Any, bob: Any) -> Iterator[Match]:
    """A match played by the real referee in the real sandbox, in which alice's bot crashed."""
    for runtime in sandbox_runtime("arbiter-test-runtime-", FIRST_UID):
        limits = make_limits(runtime)
        require_sandbox(limits)
        settings.ARBITER_SANDBOX = limits
        crasher = bot_create(owner=alice, game_id="gamesup", name="crasher", package=CRASHES, filename="crasher.py").bot
        rival = make_bot(owner=bob, game="gamesup", name="steady")
        tournament = tournament_create(
            owner=alice, game_id="gamesup", name="t", bot_ids=[crasher.id, rival.id], games_per_pairing=1
        )
        tournament_start(tournament=tournament, user=alice)
        assert tasks.run_next() == "finished"
        yield Match.objects.get(tournament=tournament)


def test_the_owner_reads_the_traceback_and_a_spectator_does_not(
    crashed: Match, context_of: Any, alice: Any, bob: Any
) -> None:
    seat = crashed.match_seats.get(bot_version__bot__name="crasher")
    assert seat.status == "crash", crashed.result_reason

    owner = context_of(alice).new_page()
    owner.goto(f"/matches/{crashed.id}/")
    report = owner.locator(f"#seat-report-{seat.seat}")
    assert "It stopped before the match was over" in report.inner_text()
    assert "exited with status 1" in report.inner_text()  # the referee's own detail
    stderr = owner.locator(f"#stderr-{seat.seat}").inner_text()
    assert "Traceback (most recent call last)" in stderr and "RuntimeError: the secret plan failed" in stderr
    assert "<b id=injected>not markup</b>" in stderr and owner.locator("#injected").count() == 0  # shown as text
    screenshot(owner, "why-lost-owner-match")
    element_screenshot(report, "why-lost-report")

    owner.goto(f"/bots/{seat.bot_version.bot_id}/")
    forfeit = owner.locator("#forfeits li").first.inner_text()
    assert f"Match #{crashed.id}" in forfeit and "crash" in forfeit and "exited with status 1" in forfeit
    screenshot(owner, "why-lost-owner-bot")

    for who in (bob, None):  # the other player's owner, and someone not signed in
        spectator = context_of(who).new_page()
        spectator.goto(f"/matches/{crashed.id}/")
        assert "It stopped before the match was over" in spectator.locator(f"#seat-report-{seat.seat}").inner_text()
        assert spectator.locator("pre.stderr").count() == 0
        assert "the secret plan failed" not in spectator.content()
    screenshot(spectator, "why-lost-spectator-match")
