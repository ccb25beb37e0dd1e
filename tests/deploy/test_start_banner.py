"""`make start`'s banner says what this start did: new demo round robins, or none on a warm start."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.live import ROOT, free_port
from tests.waiting import wait_for


@pytest.mark.parametrize(
    ("started", "says"),
    [
        ("13", "The demo's 13 new round robins run now"),
        ("1", "The demo's new round robin runs now"),
        ("0", "The demo's round robins were made by an earlier start"),
    ],
)
def test_the_banner_tells_a_warm_start_from_a_first_one(tmp_path: Path, started: str, says: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARBITER_", "DJANGO_"))}
    env.update(PORT=str(free_port()), ARBITER_VAR_DIR=str(tmp_path / "var"), DEMO_ROUND_ROBINS_STARTED=started)
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            ["scripts/start-server.sh"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        wait_for(lambda: "Ctrl-C stops" in log.read_text() or server.poll() is not None, 30, "the banner")
        banner = log.read_text()
        assert says in banner, banner
        assert ("new round robin" in banner) == (started != "0"), banner
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)
