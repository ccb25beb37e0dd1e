"""`make start` listens on the loopback address unless ARBITER_START_HOST asks otherwise, and says which.

Runs the script's last step (scripts/start-server.sh: the banner and the development
server) for real and reads the address the server listens on from /proc/net/tcp.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.live import ROOT, free_port
from tests.waiting import wait_for


def _listening(port: int) -> set[str]:
    """Local addresses (hex, as /proc/net/tcp writes them) with a socket listening on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


@pytest.mark.parametrize(
    ("host", "expected", "says"),
    [
        (None, {"0100007F"}, "only from this machine"),
        ("0.0.0.0", {"00000000"}, "from the network"),
    ],
)
def test_start_binds_where_it_says(tmp_path: Path, host: str | None, expected: set[str], says: str) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARBITER_", "DJANGO_"))}
    env.update(PORT=str(port), ARBITER_VAR_DIR=str(tmp_path / "var"))
    if host is not None:
        env["ARBITER_START_HOST"] = host
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            ["scripts/start-server.sh"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        wait_for(lambda: _listening(port) or server.poll() is not None, 60, "the server to listen")
        assert server.poll() is None, log.read_text()
        assert _listening(port) == expected, log.read_text()
        banner = log.read_text()
        assert says in banner and f":{port}" in banner, banner
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
