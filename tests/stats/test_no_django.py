"""tournaments.ratings.stats must stand alone: importable and usable without Django."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
import tournaments.ratings.stats
import tournaments.ratings.stats.bradley_terry
import tournaments.ratings.stats.brownian
import tournaments.ratings.stats.games
import tournaments.ratings.stats.gsprt
import tournaments.ratings.stats.linalg
import tournaments.ratings.stats.numeric
import tournaments.ratings.stats.pool
import tournaments.ratings.stats.sprt
import tournaments.ratings.stats.sprt_estimate
import tournaments.ratings.stats.table
loaded = sorted(m for m in sys.modules if m == "django" or m.startswith("django.") or m.startswith("rest_framework"))
assert not loaded, loaded
print("ok")
"""


def test_stats_package_imports_no_django() -> None:
    # A fresh interpreter: this test process has Django loaded by pytest-django already.
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_no_module_mentions_django_imports() -> None:
    for path in (ROOT / "tournaments" / "stats").glob("*.py"):
        text = path.read_text()
        assert "import django" not in text and "from django" not in text, path
