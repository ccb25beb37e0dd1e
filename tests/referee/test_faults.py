"""A result is the bots' doing, never the service's: stalls, outside kills, a second installation.

The referee plays real bots through the real sandbox; the faults are real
signals to real processes.  A match is played in a child process where the
test must stop the referee itself.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.bot_processes import all_have_played, bots_of_uids
from tests.referee.support import FIRST_UID, REPO, SLOTS, make_limits, random_bot, survivors, write_bot
from tests.waiting import wait_for
from workers.match import Clock, MatchSpec
from workers.referee.play import play_match
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.slots import SlotRangeError, pids_of_uid, register_range
from workers.sandbox.start import BotProgram, ExternalKillError, InfrastructureError, SandboxUnavailableError

BOTS = REPO / "tests" / "sandbox" / "bots"
SLOT_UIDS = range(FIRST_UID, FIRST_UID + SLOTS)  # where make_limits runs bots
# Plays a match between two pondering bots (100 ms of CPU per move and a child that never
# stops computing) and prints the record; the test stops and resumes this process.
CHILD = """
import json, sys
from pathlib import Path
from tests.referee.support import engine_registered, make_limits
from workers.match import Clock, MatchSpec
from workers.referee.play import play_match
from workers.sandbox.start import BotProgram
runtime, bots = Path(sys.argv[1]), [BotProgram(Path(p), ("python3", "main.py")) for p in sys.argv[2:]]
with engine_registered():
    spec = MatchSpec("", "count-test", {"target": 60}, 3, 2, Clock(move_ms=1000, game_ms=60000, startup_ms=10000))
    print("PLAYING", flush=True)
    print(json.dumps(play_match(spec, bots, limits=make_limits(runtime)).to_json()), flush=True)
"""


def hostile(tmp_path: Path, name: str, label: str, **params: object) -> BotProgram:
    directory = tmp_path / label
    directory.mkdir()
    shutil.copy(BOTS / f"{name}.py", directory / "main.py")
    shutil.copy(BOTS / "arbiter_common.py", directory / "arbiter_common.py")
    (directory / "params.json").write_text(json.dumps(params))
    return BotProgram(directory=directory, command=("python3", "main.py"))


def test_a_stopped_referee_charges_nobody(tmp_path: Path, runtime: Path, limits: SandboxLimits) -> None:
    """SIGSTOP the process playing the match for 15 s mid-match, then SIGCONT: no seat is charged."""
    bots = [hostile(tmp_path, "steady", f"p{i}", ponder=True) for i in range(2)]
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(runtime), *(str(b.directory) for b in bots)],
        stdout=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "PLAYING"
        # Start-up done, a bot on move: each has answered a turn.
        wait_for(lambda: all_have_played(bots_of_uids(SLOT_UIDS)), 60, "each bot to answer a turn", every=0.02)
        child.send_signal(signal.SIGSTOP)
        time.sleep(15)  # the fault's length: the referee stays stopped for 15 s
        child.send_signal(signal.SIGCONT)
        out, _ = child.communicate(timeout=120)
    finally:
        child.kill()
    record = json.loads(out.strip().splitlines()[-1])
    assert [s["status"] for s in record["seat_records"]] == ["ok", "ok"], record["reason"]
    # Each move costs its 100 ms and whatever the pondering child takes of the shared CPU:
    # the 15 s (and the CPU the bot on move used meanwhile) went to nobody.
    assert max(m["ms"] for m in record["moves"]) < 900, record["moves"]
    assert survivors() == {}


SLOW = """
import json, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif msg["type"] == "turn":
        time.sleep(0.05)  # bot code: 50 ms to think, so the match lasts long enough to be hit
        print('{"move": "1"}', flush=True)
"""


def _bot_processes(comm: str) -> list[int]:
    """Processes named ``comm`` of the slots playing: those running a bot (``python3``).

    A slot whose launcher waits with its sandbox built has a ``bwrap`` too, but no bot.
    """
    found = []
    for uid in SLOT_UIDS:
        pids = pids_of_uid(uid)
        names = {pid: _comm(pid) for pid in pids}
        if "python3" not in names.values():
            continue
        for pid in pids:
            if names[pid] == comm:
                found.append(pid)
    return found


def _comm(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


@pytest.mark.parametrize("victim", ["python3", "bwrap"])
def test_an_outside_kill_is_an_infrastructure_error(
    tmp_path: Path, limits: SandboxLimits, victim: str
) -> None:  # fmt: skip
    """kill -9 of a bot's process from outside: ExternalKillError (the match is run again, never rated)."""
    slow = write_bot(tmp_path / "slow", SLOW)
    spec = MatchSpec("", "count-test", {"target": 400}, 3, 2, Clock(move_ms=1000, game_ms=60_000, startup_ms=10_000))
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(play_match(spec, [slow, random_bot(tmp_path / "r")], limits=limits))
        except Exception as exc:  # examined below
            outcome.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    # Into the match: each bot has answered a turn.
    wait_for(lambda: all_have_played(bots_of_uids(SLOT_UIDS)), 20, "each bot to answer a turn", every=0.02)
    targets = _bot_processes(victim)
    assert targets, f"no {victim} process found"
    os.kill(max(targets), signal.SIGKILL)
    thread.join(60)
    assert len(outcome) == 1 and isinstance(outcome[0], ExternalKillError), outcome
    assert isinstance(outcome[0], InfrastructureError) and "outside" in str(outcome[0])
    assert survivors() == {}


def test_a_bot_cannot_fake_a_kill(tmp_path: Path, limits: SandboxLimits) -> None:
    """A bot that exits with 137 or tries SIGKILL on itself is its own crash, not the service's."""
    for code in ("os._exit(137)", "os.kill(os.getpid(), 9)", "os.kill(os.getppid(), 9); os.kill(0, 9)"):
        bot = write_bot(tmp_path / code[:12].replace("(", "_"), f"import os, sys\nsys.stdin.readline()\n{code}\n")
        spec = MatchSpec("", "count-test", {"target": 4}, 3, 2, Clock(move_ms=500, game_ms=5000, startup_ms=3000))
        record = play_match(spec, [bot, random_bot(tmp_path / "r")], limits=limits)
        assert record.seat_records[0].status == "crash", record.reason
        assert record.ranks == [2, 1]
    assert survivors() == {}


INSTALLATION = """
import json, sys
from pathlib import Path
from tests.referee.support import engine_registered, make_limits, random_bot
from workers.match import Clock, MatchSpec
from workers.referee.play import play_match
runtime, tmp = Path(sys.argv[1]), Path(sys.argv[2])
statuses = []
with engine_registered():
    for i in range(6):
        spec = MatchSpec("", "count-test", {"target": 60}, i, 2, Clock(move_ms=1000, game_ms=60000, startup_ms=10000))
        bots = [random_bot(tmp / f"a{i}"), random_bot(tmp / f"b{i}")]
        statuses += [s.status for s in play_match(spec, bots, limits=make_limits(runtime)).seat_records]
print(json.dumps(statuses))
"""


def test_two_installations_with_the_same_settings_share_the_slots_safely(tmp_path: Path) -> None:
    """Two installations (own runtime dirs, the same uid range) on one machine: disjoint slots at any time."""
    children = []
    for name in ("one", "two"):
        runtime = Path(tempfile.mkdtemp(prefix=f"arbiter-test-{name}-"))
        runtime.chmod(0o711)
        scratch = tmp_path / name
        scratch.mkdir()
        scratch.chmod(0o755)
        # Each its own temporary directory too (where slot locks used to default to).
        env = {**os.environ, "TMPDIR": str(scratch)}
        children.append((runtime, subprocess.Popen(
            [sys.executable, "-c", INSTALLATION, str(runtime), str(scratch)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env,
        )))  # fmt: skip
    try:
        for _runtime, child in children:
            out, err = child.communicate(timeout=300)
            assert child.returncode == 0, err[-2000:]
            assert json.loads(out.strip().splitlines()[-1]) == ["ok"] * 12, err[-2000:]
    finally:
        for runtime, child in children:
            child.kill()
            shutil.rmtree(runtime, ignore_errors=True)
    assert survivors() == {}


def test_an_overlapping_range_with_other_slot_locks_is_refused(tmp_path: Path, runtime: Path) -> None:
    """Another live installation locks an overlapping uid range elsewhere: this one refuses to run bots."""
    other_locks = tmp_path / "other-locks"
    # Holds its range until it is killed (or its input ends, should the test die first).
    holder = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys; from pathlib import Path; from workers.sandbox.slots import register_range\n"
            f"register_range(Path({str(other_locks)!r}), 63000, 4)\n"
            "print('held', flush=True); sys.stdin.read()"
        )],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(SlotRangeError, match="overlaps the range 63000-63003"):
            register_range(tmp_path / "my-locks", 63002, 4)
        # Through the sandbox: a clear refusal, never a bot's forfeit.
        limits = make_limits(runtime, first_uid=63002, slots=4, lock_dir=str(tmp_path / "my-locks"))
        spec = MatchSpec("", "count-test", {"target": 4}, 3, 2)
        bot = random_bot(tmp_path / "r")
        with pytest.raises(SandboxUnavailableError, match="ARBITER_SANDBOX_FIRST_UID"):
            play_match(spec, [bot, bot], limits=limits)
        # Sharing the other's lock directory is fine: the uids are then exclusive anyway.
        register_range(other_locks, 63002, 4)
    finally:
        holder.kill()
        holder.communicate()
    # Once the other installation is gone, its record is stale and the range is free again.
    register_range(tmp_path / "third-locks", 62996, 5)
