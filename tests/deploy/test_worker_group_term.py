"""A SIGTERM to a worker's whole process group, while matches run, ends every one of its processes promptly.

The embedded mode of ``make start`` (SQLite, the file-system broker), a real Celery worker
with its prefork pool, the demo's round robins being played in the real sandbox; then one
SIGTERM to the group, as a supervisor or a terminal sends it.  Before pool processes led
groups of their own, the signal killed one now and then while it held the pool's queue
lock, and its sibling and the main process waited on that lock for ever.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from tests.live import PYTHON, ROOT
from tests.waiting import wait_for


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _running(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_sigterm_to_the_group_ends_the_worker_and_its_pool(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARBITER_", "DJANGO_", "DATABASE_", "REDIS_"))}
    # The slots of no other suite: the demo's bots run in the real sandbox.
    env.update(ARBITER_VAR_DIR=str(tmp_path / "var"), ARBITER_SANDBOX_FIRST_UID="62500", ARBITER_SANDBOX_SLOTS="12")
    manage = [str(PYTHON), "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([*manage, "demo"], cwd=ROOT, env=env, check=True, capture_output=True)
    log = tmp_path / "worker.log"
    with open(log, "wb") as out:
        worker = subprocess.Popen(
            [str(PYTHON), "-m", "celery", "-A", "workers.celery_app", "worker", "-l", "info", "-c", "2"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    pool: list[int] = []
    try:
        wait_for(lambda: log.read_text().count("succeeded in") >= 2, 120, "matches to be played", every=0.2)
        pool = _children(worker.pid)
        assert len(pool) >= 2, (pool, log.read_text()[-2000:])
        os.killpg(worker.pid, signal.SIGTERM)
        wait_for(
            lambda: worker.poll() is not None and not any(_running(p) for p in pool),
            30,
            "the worker and every pool process to exit",
            every=0.1,
        )
        assert "Warm shutdown" in log.read_text()
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        for pid in pool:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
