"""``arbiter new``: a starter bot in a fresh folder, for one game and one language."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

STARTERS = Path(__file__).resolve().parent / "starters"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Language:
    """How a starter in one language is laid out and run."""

    template: str  # file under starters/
    source: str  # its name in the bot's folder
    command: tuple[str, ...]
    build: tuple[str, ...] = ()
    runtime: str = ""  # the program a machine needs to run (or build) it


JAVA_COMMAND = (
    "java",
    "-Xmx192m",
    "-Xss1m",
    "-XX:+UseSerialGC",
    "-XX:ActiveProcessorCount=1",
    "-XX:ReservedCodeCacheSize=32m",
    "-XX:CompressedClassSpaceSize=32m",
    "-XX:MaxMetaspaceSize=64m",
    "Main",
)

# javac runs on a JVM too: its class space and collector threads kept small, for the build's
# per-process address space (`arbiter check`: 2 GiB) and its 64 processes on a many-CPU worker.
JAVAC_BUILD = (
    "javac",
    "-J-Xmx512m",
    "-J-XX:CompressedClassSpaceSize=64m",
    "-J-XX:+UseSerialGC",
    "-J-XX:ActiveProcessorCount=1",
    "Main.java",
)

LANGUAGES = {
    "python": Language("main.py", "main.py", ("python3", "main.py"), runtime="python3"),
    "c": Language(
        "bot.c", "bot.c", ("./bot",), ("gcc", "-O2", "-std=c11", "-D_GNU_SOURCE", "-o", "bot", "bot.c"), "gcc"
    ),
    # Node's JIT reserves more address space than the sandbox lets one process have (512 MiB by
    # default); without the JIT it runs within it.
    "javascript": Language("main.js", "main.js", ("node", "--jitless", "main.js"), runtime="node"),
    "cpp": Language(
        "bot.cpp", "bot.cpp", ("./bot",), ("g++", "-O2", "-std=c++17", "-o", "bot", "bot.cpp"), runtime="g++"
    ),
    # Plain rustc, not cargo: std only (a build cannot download crates), nothing cached outside /bot.
    "rust": Language(
        "main.rs",
        "main.rs",
        ("./bot",),
        ("rustc", "--edition", "2021", "-O", "-C", "strip=symbols", "-o", "bot", "main.rs"),
        runtime="rustc",
    ),
    # HOME is /tmp in the sandbox, so Go's build cache and GOPATH stay in the build's own /tmp.
    "go": Language("main.go", "main.go", ("./bot",), ("go", "build", "-o", "bot", "main.go"), runtime="go"),
    # The JVM reserves far more address space than it uses: these flags keep it within what the
    # sandbox gives java (ARBITER_SANDBOX_RUNTIME_ADDRESS_SPACE_MB), its heap within the bot's
    # memory and its threads few (docs/bots.md).
    "java": Language("Main.java", "Main.java", JAVA_COMMAND, JAVAC_BUILD, runtime="java"),
}


def starter_name(directory: Path) -> str:
    """The bot's name from its folder's name (made valid for the server)."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", Path(directory).resolve().name).strip("-._")[:64]
    return name if _NAME_RE.match(name) else "my-bot"


def starter_write(*, game: str, directory: Path, language: str) -> list[Path]:
    """Write the starter into ``directory`` (new or empty); the files written.

    ValueError for an unknown game or language, or a folder that already holds files.
    """
    import engines  # here, not at the top: `arbiter --help` needs no engine

    try:
        engines.get_engine(game)
    except engines.UnknownEngineError as exc:
        raise ValueError(str(exc)) from None
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose one of {', '.join(LANGUAGES)}")
    lang = LANGUAGES[language]
    directory = Path(directory)
    if directory.exists() and any(directory.iterdir()):
        raise ValueError(f"{directory} already holds files; give a new folder")
    directory.mkdir(parents=True, exist_ok=True)
    name = starter_name(directory)
    text = (STARTERS / lang.template).read_text(encoding="utf-8")
    source = directory / lang.source
    source.write_text(text.replace("__GAME__", game).replace("__NAME__", name), encoding="utf-8")
    manifest: dict[str, object] = {"command": list(lang.command)}
    if lang.build:
        manifest["build"] = list(lang.build)
    # The server reads only "command" (and "build"); "game" and "name" are the kit's defaults for upload.
    manifest.update({"game": game, "name": name})
    (directory / "bot.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return [source, directory / "bot.json"]
