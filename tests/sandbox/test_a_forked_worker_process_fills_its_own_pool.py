"""A forked worker process (Celery's prefork pool) fills a launchers' pool of its own.

The pool's lock and condition are made anew in a forked child (a lock held by a
parent's thread at the fork stays held in the child).  When only the lock was,
the child's filler thread died on its first launcher and every start in the pool
processes was a cold one, in the match's thread: ``bench.e2e`` showed it, no test
did.  The child here starts a bot in its own pool and must see the pool full and
built behind it, again after each start takes its launcher.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from tests.referee.support import require_cgroups, write_bot
from workers.sandbox import ending, warm
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import start_bot


def test_a_forked_child_fills_its_own_pool(tmp_path: Path, limits: SandboxLimits) -> None:
    require_cgroups(limits)
    limits = dataclasses.replace(limits, warm=1)
    bot = write_bot(tmp_path / "bot", "print('ready')\n")
    warm.close_all()
    pid = os.fork()
    if pid == 0:  # the child: as a Celery pool process after its fork
        code = 3
        try:
            code = 0
            for _ in range(3):  # each start takes the waiting launcher; the pool must be refilled each time
                proc = start_bot(bot, limits, cpu_seconds=5)
                ok = proc.wait(20) == 0
                proc.end()
                if not (ok and warm.settle(10)):
                    code = 1
                    break
        finally:
            warm.close_all()
            ending.settle()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the child's pool was not filled (1) or it failed (3)"
