"""The layers only look down: engines know nothing else, the bot runtime knows no Django, tasks are imported.

Read from the source (no imports), so a violation is found even in a module
that no other test happens to import.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ("django", "celery", "kombu", "rest_framework", "tournaments")
# The runtime of workers/ runs bots without Django; only the Celery app object there knows Django,
# and the embedded broker's transport (a kombu channel, no Django) knows kombu.
RUNTIME_EXCEPTIONS = {"celery_app.py", "broker_files.py"}


def _modules(folder: str) -> list[Path]:
    return sorted(p for p in (ROOT / folder).rglob("*.py") if "migrations" not in p.parts)


def _imports(path: Path) -> Iterator[tuple[ast.AST, str, bool]]:
    """(node, imported module, inside a function) for every import of a file."""
    tree = ast.parse(path.read_text(), str(path))
    in_function: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_function.update(n for n in ast.walk(node) if n is not node)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, node in in_function
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node, node.module, node in in_function
            for alias in node.names:  # from package import module
                yield node, f"{node.module}.{alias.name}", node in in_function


def _top(module: str) -> str:
    return module.split(".")[0]


@pytest.mark.parametrize("path", _modules("engines"), ids=lambda p: str(p.relative_to(ROOT)))
def test_engines_import_only_engines_and_the_standard_library(path: Path) -> None:
    bad = [m for _, m, _ in _imports(path) if _top(m) in (*SERVICE, "workers")]
    assert bad == []


@pytest.mark.parametrize(
    "path",
    [p for p in _modules("workers") if p.name not in RUNTIME_EXCEPTIONS],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_bot_runtime_knows_no_django(path: Path) -> None:
    bad = [m for _, m, _ in _imports(path) if _top(m) in SERVICE]
    assert bad == []


@pytest.mark.parametrize("path", _modules("tournaments"), ids=lambda p: str(p.relative_to(ROOT)))
def test_tournaments_send_tasks_by_import_and_import_the_runtime_at_the_top(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    by_name = [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("send_task", "signature")
    ]
    assert by_name == [], "tasks are imported and called, never named by string"
    hidden = [
        m
        for _, m, local in _imports(path)
        if local and (_top(m) == "workers" or m.endswith(".tasks") or ".tasks." in m)
    ]
    assert hidden == [], "imports of the runtime or of tasks inside a function hide an import loop"


def test_no_late_imports_or_feature_fences() -> None:
    # Spelled in two parts, so that this file is not a match of its own search.
    late, fence = "noqa: " + "E402", "-- " + "end "
    for path in [*_modules("tournaments"), *_modules("workers"), *_modules("engines"), *_modules("bench")]:
        text = path.read_text()
        assert late not in text, path
        assert fence not in text, path
