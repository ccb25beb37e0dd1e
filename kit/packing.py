"""A bot folder on the author's machine: its manifest, its local build, and the archive uploaded.

The archive is made here and then checked with the server's own code
(``workers.packages.archive``), so what ``arbiter check`` accepts the server accepts.
"""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import stat
import subprocess
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workers import config
from workers.packages.archive import PackageError
from workers.sandbox.slots import stat_fields

# Not part of a bot: version control, editor and interpreter leftovers.
_SKIPPED = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".DS_Store", ".idea", ".vscode"}


def manifest_read(directory: Path) -> dict[str, Any]:
    """The folder's bot.json as a dict ({} without one); PackageError when it is not a JSON object."""
    path = Path(directory) / "bot.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise PackageError(f"bot.json is not valid UTF-8 JSON ({exc})") from None
    if not isinstance(data, dict):
        raise PackageError('bot.json must be an object like {"command": ["python3", "main.py"]}')
    return data


def _running_in_group(pgid: int) -> bool:
    """True while a process of group ``pgid`` still runs (zombies do not count: they hold nothing)."""
    for entry in os.scandir("/proc"):
        fields = stat_fields(int(entry.name)) if entry.name.isdigit() else None
        if fields and int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _stop_group(pgid: int, timeout: float = 5.0) -> None:
    """SIGKILL the build's process group until none of it runs (a kill takes effect a moment later)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            return
        if not _running_in_group(pgid) or time.monotonic() >= deadline:
            return
        time.sleep(0.01)


def build_run(directory: Path) -> str | None:
    """Run the manifest's ``build`` command in the folder (compiled bots); its output, or None without one.

    The build is limited in real time (``ARBITER_KIT_BUILD_SECONDS``: then every process it
    started is stopped) and in address space per process (``ARBITER_KIT_BUILD_MEMORY_MB``).
    PackageError with the compiler's last lines when the build fails or is stopped.
    """
    build = manifest_read(directory).get("build")
    if build is None:
        return None
    if not isinstance(build, list) or not build or not all(isinstance(a, str) and a for a in build):
        raise PackageError('"build" in bot.json must be a command like ["gcc", "-O2", "-o", "bot", "bot.c"]')
    seconds = config.read("ARBITER_KIT_BUILD_SECONDS")
    memory = config.read("ARBITER_KIT_BUILD_MEMORY_MB") << 20

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    try:
        # A session of its own, so a stopped build takes every compiler process with it.
        proc = subprocess.Popen(
            build, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True, preexec_fn=limit,
        )  # fmt: skip
    except FileNotFoundError:
        raise PackageError(f"the build command {build[0]!r} is not installed on this machine") from None
    try:
        output, _ = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        _stop_group(proc.pid)
        proc.communicate()
        raise PackageError(f"the build took longer than {seconds} s and was stopped") from None
    output = output.strip()
    if proc.returncode != 0:
        tail = "\n".join(output.splitlines()[-15:])
        raise PackageError(f"the build failed (exit status {proc.returncode}):\n{tail}")
    return output


def package_read(path: Path) -> tuple[str, bytes]:
    """What goes up for a bot path: a folder as a zip archive, a single file (``.py``, an archive) as it is."""
    path = Path(path)
    if path.is_file():
        return path.name, path.read_bytes()
    return package_directory(path)


def bot_prepare(path: Path, say: Callable[[str], None] = print) -> str | None:
    """Get a bot path ready to play here: a folder whose bot.json names a build is built first.

    Returns the game its bot.json names (None for a single file or a folder without one).
    """
    path = Path(path)
    if not path.is_dir():
        return None
    output = build_run(path)
    if output is not None:
        say(f"build of {path.name}: ok" + (f"\n{output}" if output else ""))
    return str(manifest_read(path).get("game") or "") or None


def _members(directory: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED)
        found.extend(Path(root) / f for f in sorted(files) if f not in _SKIPPED and not f.endswith(".pyc"))
    return found


def package_directory(directory: Path) -> tuple[str, bytes]:
    """The folder as a zip archive (executable bits kept): (file name, bytes), ready to check or upload."""
    directory = Path(directory)
    if not directory.is_dir():
        raise PackageError(f"{directory}: not a directory")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in _members(directory):
            mode = path.lstat().st_mode
            if not stat.S_ISREG(mode):
                # The server refuses links and special files; say so before uploading.
                raise PackageError(f"{path.relative_to(directory)} is not a regular file (links are not allowed)")
            info = zipfile.ZipInfo(str(path.relative_to(directory)))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (stat.S_IFREG | (0o755 if mode & 0o111 else 0o644)) << 16
            info.flag_bits |= 0x800
            archive.writestr(info, path.read_bytes())
    name = directory.resolve().name or "bot"
    return f"{name}.zip", buffer.getvalue()
