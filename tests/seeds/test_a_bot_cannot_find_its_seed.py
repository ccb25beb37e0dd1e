"""A bot that knows how seeds used to be made, and has the engines, cannot find its match's seed.

Issue 30 measured it on the old scheme (a hash of the tournament's id and the
game's index): a bot dealt the candidate seeds of tournaments 1-59 and
indexes 0-39 against its own hand, found the seed in 0.4 s, and with it
every other hand and the order of the draw pile.  Here that bot
(``bots/seed_thief.py``) plays two real Sequence matches of a round robin in
the sandbox, through a live web server and worker, and reports on stderr
what its hunt found and every long number any message to it held.

The test asserts that it found nothing, that no message held the seed, and
that no reader of the match list (anonymous, either seat's owner) saw a seed
before a match had finished.  It then runs the very same hunt in its own
process against a seed made the old way for this tournament, and the hunt
finds it: the test could fail, and would have on the old scheme.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from engines import get_engine
from tests.live import Api, random_bot
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=False)]

THIEF = Path(__file__).resolve().parent / "bots" / "seed_thief.py"
WAIT_S = 240


def _thief() -> ModuleType:
    """The bot's own code, to run its hunt here."""
    spec = importlib.util.spec_from_file_location("seed_thief", THIEF)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sign_up(api: Api, name: str) -> str:
    return str(api.post_json("/api/users/", {"username": name, "password": f"{name}-pass-phrase"})["token"])


def _old_seed(tournament_id: int, index: int) -> int:
    """A seed as the service made it before issue 30."""
    return int.from_bytes(hashlib.sha256(f"arbiter:{tournament_id}:{index}".encode()).digest()[:7], "big")


def test_a_sandboxed_bot_that_knows_the_old_seed_scheme_finds_no_seed(live_processes: LiveFactory) -> None:
    procs = live_processes(web="runserver", workers=1, concurrency=1, tag="seeds")
    api = procs.api()
    victim_token, thief_token = _sign_up(api, "victor"), _sign_up(api, "mallory")
    victim = Api(procs.url, victim_token).upload_bot("sequence", "victim", "random_bot.py", random_bot())
    thieves = Api(procs.url, thief_token)
    thief = thieves.upload_bot("sequence", "thief", "seed_thief.py", THIEF.read_bytes())
    tournament = thieves.post_json(
        "/api/tournaments/",
        # Two games: the thief hunts from seat 0 and from seat 1; a long move clock for the hunt.
        {"game": "sequence", "participants": [thief["id"], victim["id"]], "games_per_pairing": 2,
         "move_ms": 20000, "start": True},
    )  # fmt: skip
    readers = {"anonymous": Api(procs.url), "victim": Api(procs.url, victim_token), "thief": thieves}
    seen_running: set[str] = set()

    def ended() -> bool:
        """Read the matches as every reader; no seed before a match's end.  True once both have ended."""
        finished = True
        for name, reader in readers.items():
            for match in reader.get(f"/api/matches/?tournament={tournament['id']}")["results"]:
                if match["status"] != "finished":
                    assert match["seed"] is None, f"{name} saw the seed of a {match['status']} match"
                    finished = False
                if match["status"] == "running":
                    seen_running.add(name)
        return finished

    wait_for(ended, WAIT_S, "the round robin's two matches to finish", every=0.05)
    assert seen_running == set(readers), f"only {seen_running} read a match while it ran"

    options = get_engine("sequence").validate_options({}, 2)
    hunted = 0
    for listed in thieves.get(f"/api/matches/?tournament={tournament['id']}&ordering=id")["results"]:
        match: dict[str, Any] = thieves.get(f"/api/matches/{listed['id']}/")
        assert match["status"] == "finished" and match["seed"] is not None, match["status"]
        seat = next(p for p in match["players"] if p["bot"] == thief["id"])
        assert seat["status"] == "ok", (seat["status"], seat["stderr"][-2000:])
        stderr = seat["stderr"]
        assert re.search(r"seed-thief: nothing in 7080 candidate seeds for a hand of 7 cards", stderr), stderr
        assert "found seed" not in stderr, stderr
        # Every long number any message brought it; the seed is none of them.
        numbers = {n for line in stderr.splitlines() if "numbers seen:" in line for n in line.split(":")[-1].split()}
        assert str(match["seed"]) not in numbers and str(match["seed"]) not in stderr
        hunted += 1
    assert hunted == 2

    # The same hunt, here, against the seed this tournament's first game would have had: it finds it at once.
    old = _old_seed(tournament["id"], 0)
    hand = get_engine("sequence").new_state(options, seed=old, seats=2).observation(1)["hand"]
    found, _ = _thief().find_seed(hand, 1, 2, options)
    assert found == old, "the hunt cannot even find a seed made the old way: this test proves nothing"
