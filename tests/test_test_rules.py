"""Rules the tests themselves keep, read from their source (no imports).

- Only ``tests/ci.py`` reads the ``CI`` environment variable: every "skip here,
  fail under CI" goes through its ``unavailable`` or ``need``.  Any string
  constant ``"CI"`` in another test module counts as reading it.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CI_HELPER = TESTS / "ci.py"
CI = "CI"  # the variable's name (this module names it only to look for it)


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
