"""What the fault tests do with their live process set: short clocks, slow bots, tournaments, checks.

Each test gets a set (tests/live) of its own: a fresh PostgreSQL database,
its own redis-server on a free port (nothing saved, so stopping it loses
every message), its own queue names and sandbox uids; every worker runs under
a restart loop, optionally inside a network namespace.  The test reads the
database directly and runs ``manage.py`` for setup and for
``ratings_rebuild --check``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.bot_processes import all_have_played, bots_under
from tests.ci import need
from tests.live import ProcessSet
from tests.waiting import wait_for

SLOW_BOT = (Path(__file__).parent / "bots" / "slow_bot.py").read_text()

# Short clocks: a dead worker's lease expires within seconds, the sweeper and
# the dispatcher run every second.
FAST_SETTINGS = {
    "ARBITER_LEASE_S": "4",
    "ARBITER_HEARTBEAT_S": "0.5",
    "ARBITER_SWEEP_EVERY_S": "1",
    "ARBITER_DISPATCH_EVERY_S": "1",
    "ARBITER_DB_IDLE_TX_TIMEOUT_S": "10",
    "ARBITER_MATCH_MAX_ATTEMPTS": "5",
}
# One match per run_next message, as ARBITER_RUN_LOOP_S = 0 runs them: for the tests of what the broker loses.
# A task that loops claims the next match from the database, so a lost message would be covered by the loop
# and the dispatcher, which those tests are about, might never be needed.
ONE_MATCH_PER_MESSAGE = {"ARBITER_RUN_LOOP_S": "0"}

SETUP = """
import json
from django.contrib.auth import get_user_model
from tournaments.bots.services import bot_create
from tournaments.games.services import game_sync
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
game_sync()
# A user per bot: games between one owner's bots are never rated.
owners = [get_user_model().objects.create_user(username=f"{name}{{i}}", password="x") for i in range({bots})]
user = owners[0]
source = json.loads({source!r}).encode()
bots = [bot_create(owner=owners[i], game_id="gamesup", name=f"slow{{i}}", package=source + b"#" * i,
                   filename="slow.py").bot for i in range({bots})]
t = tournament_create(owner=user, game_id="gamesup", name="{name}", bot_ids=[b.id for b in bots],
                      options={{"max_plies": {plies}}}, format="{format}", games_per_pairing={games}, rounds={rounds},
                      move_ms=3000, game_ms=30000, startup_ms=10000)
t = tournament_start(tournament=t, user=user)
print(json.dumps({{"id": t.id, "pool": t.rating_pool, "matches": t.planned}}))
"""


def have_sandbox() -> None:
    need(shutil.which("bwrap") is not None, "bubblewrap is not installed (apt-get install bubblewrap)")


class Cluster(ProcessSet):
    """The live process set of one fault test, with what the tests do to it and check in it."""

    def scheduler(self) -> None:
        """Beat, embedded in a one-process worker for the beat queue (sweeper and dispatcher)."""
        self.beat_worker("scheduler", beat=True)

    def tournament(
        self,
        *,
        bots: int,
        delay: float,
        games_per_pairing: int,
        double: bool = False,
        max_plies: int = 12,
        broker: str | None = None,
        name: str = "faults",
        swiss_rounds: int = 0,
    ) -> dict[str, Any]:
        """Upload ``bots`` slow bots (``delay`` s per move), create and start a gamesup round robin
        (or, with ``swiss_rounds``, a Swiss of that many rounds; ``matches`` is then its first round's).

        ``broker`` replaces the set's for this setup only (``memory://``: nothing is sent); ``name``
        names the tournament and its bots' owners (one name per tournament of a set).
        """
        code = SETUP.format(
            bots=bots,
            source=json.dumps(SLOW_BOT.replace("DELAY = 0.0", f"DELAY = {delay!r}")),
            games=games_per_pairing,
            format="swiss" if swiss_rounds else "double" if double else "single",
            rounds=swiss_rounds,
            plies=max_plies,
            name=name,
        )
        return self.shell(code, env={"CELERY_BROKER_URL": broker, "REDIS_URL": broker} if broker else None)

    def progress(self, tournament_id: int) -> dict[str, int]:
        rows = self.query(
            "SELECT status, count(*) FROM matches_match WHERE tournament_id = %s GROUP BY status", [tournament_id]
        )
        return dict(rows)

    def wait_finished(self, tournament_id: int, timeout: float) -> None:
        def done() -> bool:
            return self.scalar("SELECT status FROM competitions_tournament WHERE id = %s", [tournament_id]) != "running"

        try:
            wait_for(done, timeout, f"tournament {tournament_id} to finish", every=0.5)
        except AssertionError as exc:
            raise AssertionError(f"{exc}: {self.progress(tournament_id)}; logs in {self.logs}") from None

    def running_on(self, tournament_id: int, node: str) -> tuple[int, int, str] | None:
        """A match of the tournament running on Celery node ``node`` (id, attempt, worker), if any."""
        rows = self.query(
            "SELECT id, attempt, worker FROM matches_match WHERE tournament_id = %s AND status = 'running' "
            "AND worker LIKE %s ORDER BY id LIMIT 1",
            [tournament_id, f"{node}:%"],
        )
        return rows[0] if rows else None

    def wait_under_way(self, running: tuple[int, int, str], timeout: float = 60) -> None:
        """Wait until a match ``running_on`` found is in its middle: each of its bots has answered a turn.

        Its bots are those of the pool process its lease names (host:pid), which runs one match at a
        time; the match must still be running under the same attempt once they are seen.
        """
        match_id, attempt, worker = running
        pool = int(worker.rsplit(":", 1)[1])

        def under_way() -> bool:
            if not all_have_played(bots_under(pool)):
                return False
            if self.query("SELECT 1 FROM matches_match WHERE id = %s AND status = 'running' AND attempt = %s",
                          [match_id, attempt]):  # fmt: skip
                return True
            raise AssertionError(f"match {match_id} ended before its bots were seen playing: {self.logs}")

        wait_for(under_way, timeout, f"each bot of match {match_id} to answer a turn", every=0.05)

    def assert_counted_once(
        self, tournament_id: int, matches: int, pool_matches: int | None = None
    ) -> dict[int, tuple[str, int, int]]:
        """Every match finished, each with one rating change per bot, and the ratings add up; returns them.

        ``pool_matches``: the matches rated in the tournament's pool in all (default: its own).
        """
        self.wait_ratings_applied()
        rows = self.query(
            "SELECT m.id, m.status, m.attempt, count(rc.id) FROM matches_match m "
            "LEFT JOIN ratings_ratingchange rc ON rc.match_id = m.id "
            "WHERE m.tournament_id = %s GROUP BY m.id",
            [tournament_id],
        )
        by_id = {r[0]: (r[1], r[2], r[3]) for r in rows}
        assert len(by_id) == matches
        assert sorted({status for status, _, _ in by_id.values()}) == ["finished"], (
            self.progress(tournament_id),
            self.query(
                "SELECT id, status, attempt, error_reason FROM matches_match "
                "WHERE tournament_id = %s AND status <> 'finished'",
                [tournament_id],
            ),
            self.logs,
        )
        assert {changes for _, _, changes in by_id.values()} == {2}, "a match changed ratings other than once"
        # Nothing else moved the ratings either: the games played add up to two per match.
        pool = self.scalar("SELECT rating_pool FROM competitions_tournament WHERE id = %s", [tournament_id])
        rated = matches if pool_matches is None else pool_matches
        assert self.scalar("SELECT sum(games) FROM ratings_rating WHERE pool = %s", [pool]) == 2 * rated
        assert (
            self.scalar(
                "SELECT count(*) FROM ratings_ratingchange rc JOIN ratings_rating r ON r.id = rc.rating_id "
                "WHERE r.pool = %s",
                [pool],
            )
            == 2 * rated
        )
        return by_id

    def wait_ratings_applied(self, timeout: float = 60) -> None:
        """Wait until the ratings' applier (a task on the beat queue) has applied every recorded match."""

        def applied() -> bool:
            return not self.query("SELECT 1 FROM matches_match WHERE rating_pending LIMIT 1")

        wait_for(applied, timeout, "the ratings' applier to apply every recorded match")

    def assert_rebuild_agrees(self) -> str:
        """``manage.py ratings_rebuild --check`` finds no difference (exit status 0)."""
        self.wait_ratings_applied()
        result = self.manage("ratings_rebuild", "--check", check=False)
        assert result.returncode == 0, f"rebuild differs:\n{result.stdout}\n{result.stderr}"
        assert " 0 differ" in result.stdout, result.stdout
        return result.stdout
