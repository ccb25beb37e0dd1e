"""docs/architecture.md stays true: what it cites exists, and it names every module of the runtime and the apps.

Read from the source (no imports).  What counts as a citation:

- a path in backticks (``workers/sandbox/``, ``tournaments/matches/hooks.py``):
  from the repository's root, or, in a table row, from the folder the row is
  about; ``stats/`` in the ratings row is ``tournaments/ratings/stats/``;
- a dotted name anywhere on the page (code blocks included) that starts with a
  top-level package or an app (``workers.referee.play.play_match``,
  ``matches.life.match_record_result``): a module, or a module and a name it
  defines at its top level.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = ("engines", "workers", "kit", "tournaments")
APPS = ("games", "accounts", "bots", "matches", "ratings", "competitions", "web", "ops", "api")
# A dotted name: a package or app, then identifiers; not part of a path or a file name like api.md.
DOTTED = re.compile(r"(?<![\w/.-])((?:" + "|".join(PACKAGES + APPS) + r")(?:\.[A-Za-z_]\w*)+)(?![\w/-])")
BACKTICKED = re.compile(r"`([^`\s]+)`")
FILE_TYPES = ("py", "md", "json", "html")  # ``api.py`` is a file name, not the module ``api`` and a name ``py``


def _text() -> str:
    return DOC.read_text()


def _rows() -> list[tuple[Path | None, str]]:
    """(the folder a table row is about, or None, and the row's text) for every line of the page."""
    rows = []
    for line in _text().splitlines():
        folder = None
        if line.startswith("| `"):
            first = line.split("|")[1].strip().strip("`")
            if first.endswith("/"):
                folder = ROOT / first
        rows.append((folder, line))
    return rows


def _looks_like_path(token: str) -> bool:
    if token.startswith((".", "/", "http")) or any(c in token for c in "<*:"):
        return False  # a pattern (``_<game>_*.py``), an extension, a URL or a route
    return token.endswith((".py", "/")) or ("/" in token and "." in token)


def _path_citations() -> list[tuple[str, Path | None]]:
    return [
        (token, folder) for folder, line in _rows() for token in BACKTICKED.findall(line) if _looks_like_path(token)
    ]


@pytest.mark.parametrize(("token", "folder"), _path_citations(), ids=lambda v: str(v) if isinstance(v, str) else "")
def test_every_cited_path_exists(token: str, folder: Path | None) -> None:
    bases = [ROOT, ROOT / "tournaments"] + ([folder] if folder else [])
    if "/" not in token:  # a bare file name (a bot's ``main.py``): some file of the project
        bases += [p.parent for p in _project_files() if p.name == token]
    assert any((base / token).exists() for base in bases), f"{token} is cited but exists nowhere"


@cache
def _project_files() -> tuple[Path, ...]:
    return tuple(p for package in (*PACKAGES, "tests") for p in (ROOT / package).rglob("*.py"))


@cache
def _top_level_names(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names)
    return frozenset(names)


def _resolves(dotted: str) -> bool:
    """A module (file or package), or a module and one name it defines, counted from the repository's root."""
    parts = dotted.split(".")
    if parts[0] in APPS:
        parts = ["tournaments", *parts]
    for cut in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:cut])
        module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if not module.is_file():
            continue
        rest = parts[cut:]
        return not rest or (len(rest) == 1 and rest[0] in _top_level_names(module))
    return False


@pytest.mark.parametrize(
    "dotted", sorted({d for d in DOTTED.findall(_text()) if d.rsplit(".", 1)[1] not in FILE_TYPES})
)
def test_every_cited_module_and_function_exists(dotted: str) -> None:
    assert _resolves(dotted), f"{dotted} is cited but is no module, or no name of its module"


def _named(path: Path) -> bool:
    """Cited by its path from the root, or in the row of a folder that holds it: by its path from that
    folder, or by a folder between the two (``stats/`` names every module of the ratings' statistics)."""
    rel = path.relative_to(ROOT)
    rows = {folder for folder, _ in _rows() if folder is not None}
    cited = {token for token, folder in _path_citations() if folder is None}
    if str(rel) in cited:
        return True
    # A folder without a row of its own (``tournaments/api/``) is named as a whole where it is cited.
    if any(
        f"{parent.relative_to(ROOT)}/" in cited and parent not in rows
        for parent in path.parents
        if ROOT in parent.parents
    ):
        return True
    for folder, line in _rows():
        if folder is None or folder not in path.parents:
            continue
        inner = path.relative_to(folder).parts
        tokens = set(BACKTICKED.findall(line))
        if "/".join(inner) in tokens or any("/".join(inner[:i]) + "/" in tokens for i in range(1, len(inner))):
            return True
    return False


# Every app's standard parts, named once for all on the page ("Each app holds ..."): as a module, or as
# a package of modules, one per concept (competitions/models/, .../services/, ...).
STANDARD = ("models", "services", "selectors", "api", "admin", "apps", "tasks", "filters")


def _modules_to_name() -> list[Path]:
    found = [p for p in (ROOT / "workers").rglob("*.py") if p.name != "__init__.py"]
    for app in (ROOT / "tournaments").iterdir():
        if not (app.is_dir() and app.name in APPS):
            continue
        for path in app.rglob("*.py"):
            inner = path.relative_to(app).parts
            if path.name == "__init__.py" or "migrations" in inner or path.stem in STANDARD or inner[0] in STANDARD:
                continue
            found.append(path)
    return sorted(found)


@pytest.mark.parametrize("path", _modules_to_name(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_of_the_runtime_and_the_apps_is_named(path: Path) -> None:
    assert _named(path), f"docs/architecture.md names neither {path.relative_to(ROOT)} nor a folder of it"


def test_the_standard_parts_of_an_app_are_named_once_for_all() -> None:
    paragraph = next(p for p in _text().split("\n\n") if p.startswith("Each app holds"))
    assert [part for part in STANDARD if f"`{part}.py`" not in paragraph] == []
