"""One real version test: the reference bots as two versions of one bot, played in the real sandbox.

Version 1 is the random bot, version 2 the greedy one (a zipped directory).
The matches run through the Celery task in-process (claim, sandbox, record),
and the recording hook advances the test.  Greedy beats random nearly every
game, so with elo1 = 200 the SPRT accepts H1 at its first allowed look (ten
pairs, about ten seconds here) and the queued pair is cancelled, well short
of the cap.
"""

from __future__ import annotations

import io
import os
import shutil
import zipfile
from typing import Any

import pytest

from kit import REFERENCE_BOTS
from tests.ci import need
from tests.service.conftest import RANDOM_BOT
from tournaments.bots.services import bot_create, bot_version_create
from tournaments.competitions.models import VersionTestMatch
from tournaments.competitions.services.version_tests import version_test_create
from tournaments.matches import tasks
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.stats import Sprt

GREEDY = REFERENCE_BOTS / "greedy"


@pytest.fixture
def sandbox() -> None:
    """bubblewrap, or bots allowed to run without it (skipped without either; failed under CI)."""
    need(
        shutil.which("bwrap") is not None or bool(os.environ.get("ARBITER_ALLOW_UNSANDBOXED")),
        "bubblewrap is not installed (apt-get install bubblewrap)",
    )


def _greedy_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(GREEDY.glob("*.py")):
            archive.write(path, path.name)
    return buffer.getvalue()


@pytest.mark.slow
@pytest.mark.usefixtures("sandbox")
def test_greedy_against_random_in_the_sandbox(user: Any) -> None:
    bot = bot_create(owner=user, game_id="gamesup", name="evolving", package=RANDOM_BOT, filename="random_bot.py").bot
    bot_version_create(bot=bot, user=user, package=_greedy_zip(), filename="greedy.zip")
    test = version_test_create(
        user=user,
        bot_id=bot.id,
        baseline_number=1,
        elo1=200,
        max_games=60,
        pairs_in_flight=2,
        move_ms=2000,
        game_ms=20000,
        startup_ms=10000,
    )
    ran = 0
    while True:
        waiting = Match.objects.filter(version_test_link__test=test, status=Match.Status.QUEUED).order_by("id").first()
        if waiting is None:
            break
        assert tasks.run_next() == "finished", waiting.error_reason
        ran += 1
        assert ran <= 60
    test.refresh_from_db()
    assert (test.status, test.games, test.pairs, ran) == ("h1", 20, 10, 20)
    assert test.llr >= test.upper
    games = Match.objects.filter(version_test_link__test=test)
    # Two pairs in flight: the one queued at the decision is cancelled, nothing else was ever created.
    assert (games.count(), games.filter(status="cancelled").count()) == (22, 2)
    # The counts are what the real games say, and the LLR is tournaments.ratings.stats' on them.
    scores: dict[int, list[float]] = {}
    finished = VersionTestMatch.objects.filter(test=test, match__status="finished")
    for link in finished.select_related("match").order_by("pair", "game"):
        seats = list(MatchSeat.objects.filter(match=link.match).order_by("seat"))
        assert link.match.status == "finished" and link.match.moves and not link.match.rated
        mine = next(s.rank for s in seats if s.bot_version_id == test.candidate_id)
        theirs = next(s.rank for s in seats if s.bot_version_id == test.baseline_id)
        scores.setdefault(link.pair, []).append(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
        # Seats swapped within the pair, and the same seed.
        assert seats[0].bot_version_id == (test.candidate_id if link.game == 0 else test.baseline_id)
    seeds = {link.pair: set() for link in VersionTestMatch.objects.filter(test=test)}
    for link in VersionTestMatch.objects.filter(test=test).select_related("match"):
        seeds[link.pair].add(link.match.seed)
    assert all(len(s) == 1 for s in seeds.values())
    expected = Sprt(elo1=200, max_games=60).status([tuple(s) for s in scores.values()])
    assert list(test.pentanomial) == list(expected.counts.pentanomial)
    assert abs(test.llr - expected.llr) < 1e-9
