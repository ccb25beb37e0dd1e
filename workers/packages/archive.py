"""Bot packages: a single ``.py`` file, or a ``.zip`` / ``.tar.gz`` with ``bot.json`` or ``main.py``.

Everything is validated in memory before a single byte is written, so a
refused package leaves nothing on disk, and unpacking writes into a temporary
sibling of the destination that is renamed into place only when complete.
The archive is never trusted: sizes are counted while decompressing, not
read from headers, and every name is checked before it becomes a path.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import json
import os
import re
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from workers import config
from workers.sandbox.start import BotProgram

MAX_FILES = 1000
MAX_PACKAGE = 50 * 1024 * 1024
# A member, or the whole archive, may be compressed this well only while small: zip bombs are
# large and highly compressed.  The whole-archive ratio and the unpacked total are settings.
MAX_RATIO = 100
RATIO_FREE_BYTES = 1024 * 1024
MAX_COMMAND_ARGS = 32
MAX_PATH = 255
# A single-file bot is always unpacked under this name, whatever it was uploaded as: the same
# bytes must make the same bot, so the upload's filename can never change how it starts.
SINGLE_FILE_NAME = "main.py"


class PackageError(ValueError):
    """A package that cannot be accepted; the message is meant for the bot's author."""


@dataclass(frozen=True)
class PackageInfo:
    """What a valid package holds."""

    kind: str  # 'python' | 'zip' | 'tar.gz'
    command: tuple[str, ...]
    files: int
    unpacked_bytes: int
    build: tuple[str, ...] = ()  # bot.json's ``build``: the service builds the version from these sources


@dataclass
class _Entry:
    path: str  # normalised relative POSIX path
    is_dir: bool
    executable: bool = False
    data: bytes = b""


def _kind(filename: str) -> str:
    lower = filename.lower()
    if lower.endswith(".py"):
        return "python"
    if lower.endswith(".zip"):
        return "zip"
    if lower.endswith((".tar.gz", ".tgz")):
        return "tar.gz"
    raise PackageError(f"{filename!r}: a bot must be a .py file, a .zip or a .tar.gz archive")


def _clean_path(name: str) -> str:
    """The member name as a safe relative path, or PackageError."""
    if "\x00" in name:
        raise PackageError(f"file name {name!r} contains a NUL byte")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in name):
        raise PackageError(f"file name {name.encode('utf-8', 'surrogateescape')!r} is not valid UTF-8")
    if "\\" in name:
        raise PackageError(f"file name {name!r} contains a backslash; use / between folders")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise PackageError(f"file name {name!r} is an absolute path")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise PackageError(f"file name {name!r} leads outside the package (..)")
    if not parts:
        return ""
    path = "/".join(parts)
    if len(path) > MAX_PATH * 4 or any(len(p.encode()) > MAX_PATH for p in parts):
        raise PackageError(f"file name {name[:80]!r}... is too long")
    return path


def _size(n: float) -> str:
    return f"{n / (1024 * 1024):g} MiB" if n >= 1024 * 1024 else f"{n:g} bytes"


class _Budget:
    """Counts files and unpacked bytes against the limits: the unpacked total
    (ARBITER_MAX_UNPACKED_BYTES) and the whole archive's compression ratio
    (ARBITER_MAX_COMPRESSION_RATIO), read from the environment at each check."""

    def __init__(self, archive_bytes: int) -> None:
        self.files = 0
        self.bytes = 0
        self.max_unpacked: int = config.read("ARBITER_MAX_UNPACKED_BYTES")
        ratio: float = config.read("ARBITER_MAX_COMPRESSION_RATIO")
        # Small packages may compress as well as they like (a few text files often do).
        self.max_by_ratio = max(RATIO_FREE_BYTES, ratio * archive_bytes)
        self.ratio = ratio

    def add_file(self) -> None:
        self.files += 1
        if self.files > MAX_FILES:
            raise PackageError(f"the package holds more than {MAX_FILES} files")

    def add_bytes(self, n: int) -> None:
        self.bytes += n
        if self.bytes > self.max_unpacked:
            raise PackageError(f"the package unpacks to more than {_size(self.max_unpacked)}")
        if self.bytes > self.max_by_ratio:
            raise PackageError(f"the archive as a whole is compressed more than {self.ratio:g}:1 (a zip bomb?)")


def _read_capped(stream: IO[bytes], budget: _Budget, compressed: int | None, name: str) -> bytes:
    """Read a member in chunks, failing as soon as a limit is crossed (headers are not trusted)."""
    out = bytearray()
    while True:
        chunk = stream.read(64 * 1024)
        if not chunk:
            return bytes(out)
        out += chunk
        budget.add_bytes(len(chunk))
        if compressed is not None and len(out) > RATIO_FREE_BYTES and len(out) > MAX_RATIO * max(compressed, 1):
            raise PackageError(f"{name!r} is compressed more than {MAX_RATIO}:1 (a zip bomb?)")


def _zip_entries(data: bytes, budget: _Budget) -> list[_Entry]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError) as exc:
        raise PackageError(f"not a valid zip archive ({exc})") from None
    entries = []
    with archive:
        infos = archive.infolist()
        if len(infos) > 2 * MAX_FILES:
            raise PackageError(f"the package holds more than {MAX_FILES} files")
        for info in infos:
            name = info.filename
            if not info.flag_bits & 0x800:
                # Without the UTF-8 flag Python decodes names as cp437; recover the raw bytes.
                raw = name.encode("cp437", errors="surrogateescape")
                try:
                    name = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise PackageError(f"file name {raw!r} is not valid UTF-8") from None
            mode = info.external_attr >> 16
            ftype = stat.S_IFMT(mode)
            if ftype == stat.S_IFLNK:
                raise PackageError(f"{name!r} is a symbolic link; links are not allowed")
            if ftype not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise PackageError(f"{name!r} is a device, fifo or socket; only files and folders are allowed")
            path = _clean_path(name)
            if info.is_dir() or ftype == stat.S_IFDIR:
                entries.append(_Entry(path, True))
                continue
            budget.add_file()
            if info.file_size > RATIO_FREE_BYTES and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                raise PackageError(f"{name!r} is compressed more than {MAX_RATIO}:1 (a zip bomb?)")
            if budget.bytes + info.file_size > min(budget.max_unpacked, budget.max_by_ratio):
                budget.add_bytes(info.file_size)
            try:
                with archive.open(info) as stream:
                    content = _read_capped(stream, budget, info.compress_size, name)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
                raise PackageError(f"{name!r} cannot be read ({exc})") from None
            entries.append(_Entry(path, False, bool(mode & 0o111), content))
    return entries


class _CappedStream(io.RawIOBase):
    """A decompressed stream that refuses to yield more than a bomb-proof amount."""

    def __init__(self, inner: io.BufferedIOBase, cap: int) -> None:
        self.inner, self.cap, self.seen = inner, cap, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.inner.read(len(buffer))
        self.seen += len(data)
        if self.seen > self.cap:
            raise PackageError("the archive unpacks to far more than it should (a gzip bomb?)")
        buffer[: len(data)] = data
        return len(data)


def _tar_entries(data: bytes, budget: _Budget) -> list[_Entry]:
    # Headers and padding add 1 KiB a member at most; a ratio cap bounds the rest.
    cap = min(budget.max_unpacked + 2 * MAX_FILES * 1024 + 1024 * 1024, max(RATIO_FREE_BYTES, MAX_RATIO * len(data)))
    stream = _CappedStream(gzip.GzipFile(fileobj=io.BytesIO(data)), cap)
    entries = []
    members = 0
    try:
        with tarfile.open(
            fileobj=io.BufferedReader(stream), mode="r|", encoding="utf-8", errors="surrogateescape"
        ) as archive:
            for member in archive:
                members += 1
                if members > 2 * MAX_FILES:
                    raise PackageError(f"the package holds more than {MAX_FILES} files")
                name = member.name
                if member.issym() or member.islnk():
                    raise PackageError(f"{name!r} is a link; links are not allowed")
                if member.ischr() or member.isblk() or member.isfifo():
                    raise PackageError(f"{name!r} is a device or fifo; only files and folders are allowed")
                path = _clean_path(name)
                if member.isdir():
                    entries.append(_Entry(path, True))
                    continue
                if not member.isreg():
                    raise PackageError(f"{name!r} is not a regular file or folder")
                budget.add_file()
                if budget.bytes + member.size > min(budget.max_unpacked, budget.max_by_ratio):
                    budget.add_bytes(member.size)
                fileobj = archive.extractfile(member)
                content = _read_capped(fileobj, budget, None, name) if fileobj else b""
                entries.append(_Entry(path, False, bool(member.mode & 0o111), content))
    except PackageError:
        raise
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise PackageError(f"not a valid .tar.gz archive ({exc})") from None
    return entries


def _strip_common_folder(entries: list[_Entry]) -> list[_Entry]:
    """Accept archives of one folder (``mybot/main.py``) as if the folder's contents were at the top."""
    names = {e.path for e in entries if e.path}
    if "bot.json" in names or "main.py" in names:
        return entries
    tops = {p.split("/", 1)[0] for p in names}
    if len(tops) != 1:
        return entries
    top = tops.pop()
    if not any(e.path == top and e.is_dir for e in entries) and top in names:
        return entries  # a single file, not a folder
    out = []
    for e in entries:
        if e.path == top:
            continue
        out.append(_Entry(e.path[len(top) + 1 :], e.is_dir, e.executable, e.data))
    return out


def _command(entries: list[_Entry]) -> tuple[str, ...]:
    files = {e.path: e for e in entries if not e.is_dir}
    manifest = files.get("bot.json")
    if manifest is not None:
        try:
            spec = json.loads(manifest.data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise PackageError(f"bot.json is not valid UTF-8 JSON ({exc})") from None
        command = spec.get("command") if isinstance(spec, dict) else None
        if (
            not isinstance(command, list)
            or not command
            or len(command) > MAX_COMMAND_ARGS
            or not all(isinstance(a, str) and a and "\x00" not in a and len(a) <= 1024 for a in command)
        ):
            raise PackageError('bot.json must be an object like {"command": ["python3", "main.py"]}')
        if "build" in spec:
            _build_command(spec["build"])
        return tuple(command)
    if "main.py" in files:
        return ("python3", "main.py")
    raise PackageError("no entry point: the package needs bot.json with a command, or main.py at its top")


def _build_command(build: object) -> tuple[str, ...]:
    """bot.json's ``build`` checked: a command the service runs once per version (workers/packages/build.py)."""
    if (
        not isinstance(build, list)
        or not build
        or len(build) > MAX_COMMAND_ARGS
        or not all(isinstance(a, str) and a and "\x00" not in a and len(a) <= 1024 for a in build)
    ):
        raise PackageError('"build" in bot.json must be a command like ["gcc", "-O2", "-o", "bot", "bot.c"]')
    return tuple(build)


def _build_of(entries: list[_Entry]) -> tuple[str, ...]:
    """The package's build command (empty without one); the manifest was checked by ``_command``."""
    manifest = next((e for e in entries if e.path == "bot.json" and not e.is_dir), None)
    if manifest is None:
        return ()
    spec = json.loads(manifest.data.decode("utf-8"))
    return _build_command(spec["build"]) if isinstance(spec, dict) and "build" in spec else ()


def _entries(data: bytes, filename: str) -> tuple[str, list[_Entry], tuple[str, ...]]:
    kind = _kind(filename)
    if not data:
        raise PackageError("the package is empty")
    if len(data) > MAX_PACKAGE:
        raise PackageError(f"the package is larger than {MAX_PACKAGE // (1024 * 1024)} MiB")
    budget = _Budget(len(data))
    if kind == "python":
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise PackageError("a single-file bot must be UTF-8 text") from None
        return kind, [_Entry(SINGLE_FILE_NAME, False, False, data)], ("python3", SINGLE_FILE_NAME)
    entries = _zip_entries(data, budget) if kind == "zip" else _tar_entries(data, budget)
    entries = [e for e in entries if e.path]
    if not any(not e.is_dir for e in entries):
        raise PackageError("the package is empty: it holds no files")
    seen: dict[str, bool] = {}
    for e in entries:
        if e.path in seen and not (e.is_dir and seen[e.path]):
            raise PackageError(f"{e.path!r} appears twice in the package")
        seen[e.path] = e.is_dir
    for e in entries:
        # A file may not also be the parent folder of another entry.
        parent = str(PurePosixPath(e.path).parent)
        while parent != ".":
            if seen.get(parent) is False:
                raise PackageError(f"{parent!r} is both a file and a folder")
            parent = str(PurePosixPath(parent).parent)
    entries = _strip_common_folder(entries)
    return kind, entries, _command(entries)


def inspect_package(data: bytes, filename: str) -> PackageInfo:
    """Validate a package completely, in memory; PackageError says what is wrong."""
    kind, entries, command = _entries(data, filename)
    files = [e for e in entries if not e.is_dir]
    return PackageInfo(
        kind=kind,
        command=command,
        files=len(files),
        unpacked_bytes=sum(len(e.data) for e in files),
        build=_build_of(entries),
    )


def python_entry(data: bytes, filename: str) -> tuple[str, bytes] | None:
    """The path and text of the package's Python entry file (``python3 <file>.py``); None for any other command."""
    _, entries, command = _entries(data, filename)
    if len(command) < 2 or not command[0].startswith("python") or not command[1].endswith(".py"):
        return None
    entry = next((e for e in entries if e.path == command[1] and not e.is_dir), None)
    return None if entry is None else (entry.path, entry.data)


def unpack_package(data: bytes, filename: str, dest: Path) -> BotProgram:
    """Validate and unpack into ``dest`` (which must not exist); on any error nothing is left."""
    dest = Path(dest)
    if dest.exists() or dest.is_symlink():
        raise FileExistsError(f"{dest} already exists")
    _, entries, command = _entries(data, filename)
    # Parents we create are removed again on failure, so a refused package leaves no trace.
    created = [p for p in reversed(dest.parents) if not p.exists()]
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        os.chmod(staging, 0o755)
        for e in sorted(entries, key=lambda e: e.path):
            target = staging / e.path
            if e.is_dir:
                target.mkdir(mode=0o755, parents=True, exist_ok=True)
                continue
            target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            # O_EXCL|O_NOFOLLOW: never write through anything that is not a fresh file of ours.
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755 if e.executable else 0o644)
            with os.fdopen(fd, "wb") as out:
                out.write(e.data)
        try:
            os.rename(staging, dest)
        except OSError as exc:
            if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
                # Someone else (another worker) unpacked to the same place meanwhile.
                raise FileExistsError(f"{dest} already exists") from None
            raise
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        for parent in reversed(created):
            with contextlib.suppress(OSError):
                parent.rmdir()
        raise
    return BotProgram(directory=dest, command=command)


def program_from_directory(path: Path) -> BotProgram:
    """A BotProgram for an unpacked bot directory holding bot.json or main.py (used in place)."""
    path = Path(path)
    if path.is_dir():
        manifest = path / "bot.json"
        entries = []
        if manifest.is_file():
            entries.append(_Entry("bot.json", False, False, manifest.read_bytes()))
        if (path / "main.py").is_file():
            entries.append(_Entry("main.py", False))
        return BotProgram(directory=path, command=_command(entries))
    raise PackageError(f"{path}: not a directory")
