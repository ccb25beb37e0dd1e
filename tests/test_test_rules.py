"""Rules the tests themselves keep, read from their source (no imports).

- Only ``tests/ci.py`` reads the ``CI`` environment variable: every "skip here,
  fail under CI" goes through its ``unavailable`` or ``need``.  Any string
  constant ``"CI"`` in another test module counts as reading it.
- A test waits on facts (tests/waiting.py), never a fixed time.  A line of a
  test module that holds ``time.sleep(``, in code or in a program's source
  written as a string, needs a comment on that line or the line above that
  names it ``the fault's length`` (a fault held that long: an outage, a stopped
  process) or ``bot code`` (what a test bot or a program in a slot does).  The
  bots under ``tests/*/bots/`` are bot code throughout, and tests/waiting.py
  is the poll loop itself.  ``sleep`` is never imported from ``time``, so
  every sleep is spelled ``time.sleep(`` and seen.
- No test skips on its own (``pytest.skip``, ``skipif``, ``importorskip``):
  a missing tool or service goes through ``tests/ci.py`` or a marker that
  tests/conftest.py turns into its ``need`` (``services``, ``sandbox``), so
  that CI fails instead of skipping.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CI_HELPER = TESTS / "ci.py"
WAITING = TESTS / "waiting.py"
# What the rules look for (this module, which names them only to look for them, is left out).
CI = "CI"
SKIPS = ("skip", "skipif", "importorskip")
SLEEP = "time.sleep("
NAMED = re.compile(r"#.*(the fault's length|bot code)", re.IGNORECASE)


def _modules(*leave_out: Path) -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if p not in leave_out)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_only_the_ci_helper_reads_the_ci_variable() -> None:
    readers = {}
    for path in _modules(CI_HELPER, Path(__file__).resolve()):
        tree = ast.parse(path.read_text(), str(path))
        lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value == CI]
        if lines:
            readers[_rel(path)] = lines
    assert readers == {}, "these modules name CI: call tests.ci.unavailable or tests.ci.need instead"


def _is_bot(path: Path) -> bool:
    return path.parent.name == "bots"


def test_every_sleep_is_a_faults_length_or_bot_code() -> None:
    unnamed = []
    for path in _modules(WAITING, Path(__file__).resolve()):
        if _is_bot(path):
            continue
        lines = path.read_text().splitlines()
        for n, line in enumerate(lines):
            if SLEEP in line and not (NAMED.search(line) or (n > 0 and NAMED.search(lines[n - 1]))):
                unnamed.append(f"{_rel(path)}:{n + 1}: {line.strip()}")
    assert unnamed == [], "wait on a fact (tests/waiting.py), or say what the sleep is: " + "\n".join(unnamed)


def test_sleep_is_never_imported_from_time() -> None:
    importers = []
    for path in _modules():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "time"
                and any(a.name == "sleep" for a in node.names)
            ):
                importers.append(f"{_rel(path)}:{node.lineno}")
    assert importers == [], "import time and call time.sleep, which the rule above sees"


def test_no_test_skips_except_through_the_ci_helper() -> None:
    skippers = []
    for path in _modules(CI_HELPER, Path(__file__).resolve()):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in SKIPS
                and isinstance(node.value, (ast.Name, ast.Attribute))
                and (getattr(node.value, "id", None) == "pytest" or getattr(node.value, "attr", None) == "mark")
            ):
                skippers.append(f"{_rel(path)}:{node.lineno}")
    assert skippers == [], "skip through tests.ci.need or a marker (services, sandbox) that fails under CI"
