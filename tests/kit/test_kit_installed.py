"""``arbiter check`` from an installed copy of the package, far from any checkout.

The package is laid out as an install would (setuptools' ``build_py``, with its package
data) into a temporary directory, and the kit runs from there in another directory: the
reference opponents must come with it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kit import cli
from tests.kit.conftest import FIRST_UID
from tests.referee.support import SLOTS
from workers.sandbox.limits import SandboxLimits

REPO = Path(__file__).resolve().parents[2]


def installed_copy(target: Path) -> Path:
    """The package's modules and data as an install lays them out, under ``target``."""
    code = "import setuptools, sys; sys.argv[1:] = ['-q', 'build_py', '--build-lib', sys.argv[1]]; setuptools.setup()"
    subprocess.run([sys.executable, "-c", code, str(target)], cwd=REPO, check=True, capture_output=True)
    return target


def test_check_plays_the_shipped_reference_bots_outside_a_checkout(limits: SandboxLimits, tmp_path: Path) -> None:
    lib = installed_copy(tmp_path / "lib")
    assert (lib / "kit" / "bots" / "greedy" / "main.py").is_file()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert cli.main(["new", "gamesup", str(elsewhere / "mybot"), "--lang", "python"]) == 0
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(lib),
        "ARBITER_SANDBOX_FIRST_UID": str(FIRST_UID),
        "ARBITER_SANDBOX_SLOTS": str(SLOTS),
        "ARBITER_SANDBOX_DIR": limits.runtime_dir,
        "ARBITER_SANDBOX_WARM": "0",
    }
    done = subprocess.run(
        [sys.executable, "-c", "import sys, kit.cli as c; sys.exit(c.main(sys.argv[1:]))",
         "check", "mybot", "--games", "1"],
        cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "vs random" in done.stdout and "vs greedy" in done.stdout
    assert "ready to upload" in done.stdout
    # The kit ran from the installed copy, not from this checkout.
    where = subprocess.run(
        [sys.executable, "-c", "import kit as k; print(k.REFERENCE_BOTS)"],
        cwd=elsewhere, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert where.stdout.strip() == str(lib / "kit" / "bots")
