"""``warm.settle`` returns once the launchers' pool is full and every sandbox in it is built.

``bench.referee`` times a warm start after it, so that the start meets a built
sandbox rather than one still being built; a settle that returned early would
make that figure a mix of warm and half-warm starts.
"""

from __future__ import annotations

import dataclasses
import select
from pathlib import Path

from tests.ci import need
from tests.referee.support import require_cgroups, write_bot
from workers.sandbox import ending, warm
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import start_bot


def test_settle_returns_once_the_pool_is_full_and_built(tmp_path: Path, limits: SandboxLimits) -> None:
    require_cgroups(limits)
    limits = dataclasses.replace(limits, warm=2)
    bot = write_bot(tmp_path / "bot", "print('ready')\n")
    warm.close_all()
    try:
        proc = start_bot(bot, limits, cpu_seconds=5)  # asks for the pool behind it
        assert proc.wait(20) == 0
        proc.end()
        assert warm.settle(30), "the pool was not full and built within 30 s"
        with warm._lock:
            waiting = [x for launchers in warm._pool.values() for x in launchers]
        assert len(waiting) == 2
        need(all(x.ahead for x in waiting), "this host cannot build sandboxes ahead (it may not mount)")
        # Built: each inner gate has already written its byte, so nothing waits here.
        fds = [x.popen.stdout.fileno() for x in waiting]  # type: ignore[union-attr]
        assert sorted(select.select(fds, [], [], 0)[0]) == sorted(fds)
    finally:
        warm.close_all()
        ending.settle()
