"""A launcher kept waiting has its whole sandbox built before any bot is known; the bot gets its own limits.

With launchers waiting (``ARBITER_SANDBOX_WARM``) on a worker that mounts each
bot's file systems itself, a waiting launcher's sandbox is built (mounts,
namespaces, the slot's uid, the seccomp filter) and its inner gate waits for
a command.  The bot handed to it later still runs as the slot's uid in
``/bot`` holding its own copy, on the match's CPU, with its CPU rlimit: set
before the sandbox was built, so a bot of another limit gets a sandbox of
its own.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
from pathlib import Path
from typing import Any

from tests.ci import need
from tests.referee.support import require_cgroups, write_bot
from tests.waiting import wait_for
from workers.sandbox import ending, warm
from workers.sandbox.command import LaunchPlan
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.process import BotProcess
from workers.sandbox.start import BotProgram, start_bot

REPORT = """
import json, os, resource, sys
print(json.dumps({"uid": os.getuid(), "cwd": os.getcwd(), "files": sorted(os.listdir("/bot")),
                  "cpu": resource.getrlimit(resource.RLIMIT_CPU), "affinity": sorted(os.sched_getaffinity(0))}))
"""


def _waiting() -> list[warm.Launcher]:
    with warm._lock:
        return [x for launchers in warm._pool.values() for x in launchers if x.slot is not None]


def _run(bot: BotProgram, limits: SandboxLimits, cpu_seconds: int, cpu: int) -> tuple[BotProcess, dict[str, Any]]:
    proc = start_bot(bot, limits, cpu_seconds=cpu_seconds, cpu=cpu)
    assert proc.wait(20) == 0
    report = json.loads(proc.popen.stdout.read().decode())  # type: ignore[union-attr]
    proc.end()
    return proc, report


def test_a_waiting_sandbox_is_built_and_its_bot_gets_its_own_limits(tmp_path: Path, limits: SandboxLimits) -> None:
    require_cgroups(limits)
    limits = dataclasses.replace(limits, warm=1)
    bot = write_bot(tmp_path / "bot", REPORT, extra={"notes.txt": "mine"})
    cpu = sorted(os.sched_getaffinity(0))[-1]
    warm.close_all()
    try:
        _run(bot, limits, 7, cpu)  # fills the pool behind it
        waiting = wait_for(_waiting, 20, "a launcher waiting in the pool")[0]
        need(waiting.ahead, "this host cannot build sandboxes ahead (it may not mount)")
        # Built before any bot is known: its inner gate has said so on the bot's stdout.
        out = waiting.popen.stdout.fileno()  # type: ignore[union-attr]
        assert select.select([out], [], [], 20)[0], "the waiting sandbox never got ready"
        proc, facts = _run(bot, limits, 7, cpu)
        assert proc.popen is waiting.popen, "the bot did not start in the waiting sandbox"
        # A bot of another CPU limit cannot use a sandbox whose rlimits are set: it gets its own.
        waiting = wait_for(_waiting, 20, "a launcher waiting in the pool again")[0]
        other, other_facts = _run(bot, limits, 5, cpu)
        assert other.popen is not waiting.popen
    finally:
        warm.close_all()
        ending.settle()
    assert limits.first_uid <= facts["uid"] < limits.first_uid + limits.slots
    assert facts["cwd"] == "/bot" and facts["files"] == ["main.py", "notes.txt"]
    assert facts["cpu"] == list(LaunchPlan.cpu_limits(7)) and other_facts["cpu"] == list(LaunchPlan.cpu_limits(5))
    assert facts["affinity"] == [cpu] and other_facts["affinity"] == [cpu]
