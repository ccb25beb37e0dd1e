"""Every shell example in docs/api.md runs, in order, against a real server, and succeeds."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from tests.api.conftest import LiveServer
from tests.ci import need
from tests.live import ROOT

DOC = ROOT / "docs" / "api.md"


def doc_blocks() -> list[str]:
    return re.findall(r"^```bash\n(.*?)^```$", DOC.read_text(), flags=re.S | re.M)


def test_the_doc_has_examples_for_every_part() -> None:
    text = "\n".join(doc_blocks())
    for route in ("/api/users/", "/api/auth/token/", "/api/bots/", "/versions/", "/retire/", "/api/tournaments/",
                  "/api/matches/", "/api/challenges/", "/api/ratings/", "/api/games/"):  # fmt: skip
        assert route in text, route


@pytest.mark.slow
def test_doc_examples_run(live_api: LiveServer) -> None:
    need(shutil.which("curl") is not None, "the examples need curl (apt-get install curl)")
    blocks = doc_blocks()
    # One shell runs every block, so variables carry from one to the next; a marker before each
    # block says which one failed.
    script = ["set -euo pipefail"]
    for i, block in enumerate(blocks):
        script += [f"echo '@@ block {i}' >&2", block]
    result = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=ROOT,
        env={**live_api.env, "BASE": live_api.base},
        capture_output=True,
        text=True,
        timeout=120,
    )
    where = result.stderr.strip().splitlines()[-1:] if result.stderr else []
    assert result.returncode == 0, (where, result.stdout[-3000:], result.stderr[-3000:])
    assert result.stderr.count("@@ block") == len(blocks)
    out = result.stdout.splitlines()
    for line in out:
        if line.startswith(("{", "[")):
            json.loads(line)  # answers, and what the examples pick out of them, are JSON
    assert "401" in out  # the revoked token
    assert "invalid_package" in out
    assert any('"code":"not_found"' in line for line in out)
    assert "true" in out  # the retired version
