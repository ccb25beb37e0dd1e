"""The layers only look down: engines know nothing else, the bot runtime knows no Django, tasks are imported.

Inside ``tournaments/`` the apps stand in one order, lowest first (docs/architecture.md)::

    games, accounts  <  bots  <  matches  <  ratings  <  competitions  <  web, ops

and an app imports only apps below it; apps on one level import neither each
other.  The project's own modules (settings, the URL maps, management commands)
stand above them all.  The toolkits every app shares (``tournaments/api/``, the
admin's ``admin_kit.py``, ``errors.py``, ``dbclock.py``) import no app at all.
Apps above matches reach it through ``matches.hooks`` instead of being imported.

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
# workers/ in rooms: only these modules stand at its top, everything else is in a room's package.
RUNTIME_TOP = {"__init__.py", "match.py", "config.py", "celery_app.py", "broker_files.py"}
RUNTIME_ROOMS = {"sandbox", "referee", "packages"}

APP_LEVELS = [("games", "accounts"), ("bots",), ("matches",), ("ratings",), ("competitions",), ("web", "ops")]
LEVEL = {app: level for level, apps in enumerate(APP_LEVELS) for app in apps}
TOOLKITS = ("tournaments/api/", "tournaments/admin_kit.py", "tournaments/errors.py", "tournaments/dbclock.py")
# Adapters of a lower app that show a higher app's numbers beside their own object: reads only.
UPWARD_EXCEPTIONS = {
    ("tournaments/games/api.py", "ratings"): "a game's detail lists its rating pools",
    ("tournaments/bots/api.py", "ratings"): "a bot's detail lists its ratings and their history",
    ("tournaments/bots/admin.py", "ratings"): "a bot's admin page draws its rating chart",
    ("tournaments/matches/admin.py", "ratings"): "a match's admin page lists its rating changes",
}


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
    [p for p in [*_modules("workers"), *_modules("kit")] if p.name not in RUNTIME_EXCEPTIONS],
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


def _app_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "tournaments" and len(parts) > 1 and parts[1] in LEVEL else None


def _tournaments_modules() -> list[Path]:
    return [p for p in _modules("tournaments") if "migrations" not in p.parts]


def test_every_app_has_a_level() -> None:
    apps = {p.parent.name for p in (ROOT / "tournaments").glob("*/apps.py")} | {"ops"}
    assert apps == set(LEVEL), "each app of tournaments/ is placed in APP_LEVELS (and docs/architecture.md)"


@pytest.mark.parametrize(
    "path",
    [p for p in _tournaments_modules() if _app_of(".".join(p.relative_to(ROOT).with_suffix("").parts))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_apps_import_only_apps_below_them(path: Path) -> None:
    rel = str(path.relative_to(ROOT))
    own = _app_of(".".join(path.relative_to(ROOT).with_suffix("").parts))
    assert own is not None
    upward = {
        app
        for _, module, _ in _imports(path)
        if (app := _app_of(module)) is not None and app != own and LEVEL[app] >= LEVEL[own]
    }
    allowed = {app for (where, app) in UPWARD_EXCEPTIONS if where == rel}
    assert upward - allowed == set(), f"{rel} ({own}) imports apps at or above its level"


def test_the_upward_exceptions_are_still_needed() -> None:
    for where, app in UPWARD_EXCEPTIONS:
        imported = {_app_of(m) for _, m, _ in _imports(ROOT / where)}
        assert app in imported, f"{where} no longer imports {app}: drop its exception"


@pytest.mark.parametrize(
    "path",
    [p for p in _tournaments_modules() if str(p.relative_to(ROOT)).startswith(TOOLKITS)],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_shared_toolkits_import_no_app(path: Path) -> None:
    assert [m for _, m, _ in _imports(path) if _app_of(m)] == []


def test_the_runtime_is_in_rooms() -> None:
    top = {p.name for p in (ROOT / "workers").glob("*.py")}
    assert top == RUNTIME_TOP, "a module of workers/ belongs in sandbox/, referee/ or packages/"
    rooms = {p.name for p in (ROOT / "workers").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert rooms == RUNTIME_ROOMS
    assert all((ROOT / "workers" / room / "__init__.py").is_file() for room in rooms)


def test_no_late_imports_or_feature_fences() -> None:
    # Spelled in two parts, so that this file is not a match of its own search.
    late, fence = "noqa: " + "E402", "-- " + "end "
    for path in [
        *_modules("tournaments"),
        *_modules("workers"),
        *_modules("kit"),
        *_modules("engines"),
        *_modules("bench"),
    ]:
        text = path.read_text()
        assert late not in text, path
        assert fence not in text, path
