"""Check that this process has every privilege the bot sandbox uses; print the findings as JSON.

Starts one real sandboxed bot that says which ``python3`` it runs, holds 32 MiB and waits
on stdin, then tries what a worker does during a match: measure the bot's memory (reads
/proc of another uid), find who holds its output pipe, renice its uid, and kill every
process of that uid.  Run it inside a worker container (``python deploy/sandbox_probe.py``)
to check a host's Docker or podman settings; exit status 0 when everything worked.  When
the sandbox cannot start at all, the output has ``"sandboxed": false`` and the reason
(in a container: the missing container option).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workers.sandbox.limits import SandboxLimits
from workers.sandbox.slots import pids_of_uid, process_tree
from workers.sandbox.start import BotProgram, SandboxUnavailableError, start_bot

BOT = (
    "import sys\nprint(sys.executable, flush=True)\n"
    "held = bytearray(32 << 20)\nfor i in range(0, len(held), 4096): held[i] = 1\nsys.stdin.readline()\n"
)
# The interpreter docs/bots.md promises: the distribution's, not one a base image put in /usr/local.
DISTRIBUTION_PYTHON = "/usr/bin/python3"


def probe() -> dict[str, object]:
    """Run the checks; every boolean True means the sandbox has what it needs here."""
    work = Path(tempfile.mkdtemp(prefix="arbiter-probe-"))
    os.chmod(work, 0o755)
    (work / "bot.py").write_text(BOT)
    found: dict[str, object] = {"root": os.geteuid() == 0}
    try:
        proc = start_bot(BotProgram(work, ("python3", "bot.py")), SandboxLimits.from_env(), 20)
    except SandboxUnavailableError as exc:
        shutil.rmtree(work, ignore_errors=True)
        return {**found, "sandboxed": False, "error": str(exc)}
    try:
        found["sandboxed"] = proc.sandboxed
        stdout = proc.popen.stdout
        assert stdout is not None  # started with pipes
        ready, _, _ = select.select([stdout], [], [], 10)
        found["python"] = stdout.readline().decode().strip() if ready else ""
        found["distribution_python"] = found["python"] == DISTRIBUTION_PYTHON
        # /proc/<pid>/status (what sample() reads) is open to anyone: wait there until the bot
        # holds its memory, then ask smaps_rollup, which needs the privileges under test.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (proc.usage.rss_now_kb or 0) < 36 * 1024:
            time.sleep(0.05)
            proc.sample()
        found["memory_measured"] = proc.total_memory_kb() >= 24 * 1024
        found["pipe_holder_seen"] = proc.holds_pipe(proc.popen.stdout.fileno())  # type: ignore[union-attr]
        proc.set_nice(7)
        tree = process_tree(proc.pid)
        found["reniced"] = bool(tree) and all(_nice(pid) == 7 for pid in tree)
        uid = proc.slot.uid if proc.slot is not None else os.getuid()
        proc.kill()
        found["killed"] = proc.slot is not None and not pids_of_uid(uid)
    finally:
        proc.kill()
        proc.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    return found


def _nice(pid: int) -> int | None:
    try:
        return os.getpriority(os.PRIO_PROCESS, pid)
    except OSError:
        return None


if __name__ == "__main__":
    result = probe()
    print(json.dumps(result))
    sys.exit(0 if all(v for v in result.values() if isinstance(v, bool)) and "error" not in result else 1)
