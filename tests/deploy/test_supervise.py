"""scripts/supervise.sh, the restart loop of make start and deploy/run-local.sh, on real processes.

A process killed from outside is started again; SIGTERM to the loop reaches
the process, waits for it and ends the loop.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from tests.live import ROOT
from tests.waiting import wait_for

SUPERVISE = ROOT / "scripts" / "supervise.sh"
# Writes its pid once its SIGTERM trap is set, and again on SIGTERM, then exits.
CHILD = 'trap \'echo "term $$" >>"$0"; exit 0\' TERM; echo "start $$" >>"$0"; while :; do sleep 0.1; done'


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _waiting_for_a_child(pid: int) -> bool:
    """The process is blocked in wait(2) (where bash's ``wait`` sleeps)."""
    return Path(f"/proc/{pid}/wchan").read_text() == "do_wait"


def test_a_killed_process_is_started_again_and_term_stops_the_loop(tmp_path: Path) -> None:
    record = tmp_path / "record"
    loop = subprocess.Popen([str(SUPERVISE), "bash", "-c", CHILD, str(record)], stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: len(_lines(record)) == 1, 20, "the first start")
        first = int(_lines(record)[0].split()[1])
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: len(_lines(record)) == 2, 20, "a start after the kill")
        second = int(_lines(record)[1].split()[1])
        assert second != first
        # The child has set its trap (it wrote its start), and the loop waits for it, so knows its pid.
        wait_for(lambda: _waiting_for_a_child(loop.pid), 20, "the loop to wait for its command")
        loop.send_signal(signal.SIGTERM)
        _, err = loop.communicate(timeout=20)
    finally:
        loop.kill()
    assert loop.returncode == 0
    assert _lines(record)[2:] == [f"term {second}"]
    assert "exited with status 137; starting it again" in err
    assert subprocess.run(["kill", "-0", str(second)], capture_output=True).returncode != 0
