"""A version's ``build`` command, run once by a worker in the bots' own sandbox.

The uploaded sources are unpacked, copied into a sandbox slot like a bot's, and
copied once more into a writable ``/bot``; the ``build`` command (for example
``["gcc", "-O2", "-o", "bot", "bot.c"]``) runs there under the slot's uid,
control group (memory of all its processes together, processes) and seccomp
filter, with a wall-time limit after which every process it started is killed.
``/bot`` is a tmpfs of its own sized to the sources plus ``ARBITER_BUILD_DISK_MB``
and ``ARBITER_BUILD_FILES``, mounted by the build's sandbox in a user namespace of
its own (``workers.sandbox.buildroot``), so the kernel refuses what goes beyond
while the build runs, on every worker, whether it may mount or not.  The
sandbox hands an open descriptor of that ``/bot`` to the worker, which reads
it once the build is over: what is there (sources and what the build made)
becomes the version's built archive, a ``.tar.gz`` that every worker unpacks
for its matches, walked without recursion and within bounds
(``workers.sandbox.trees``), checked with the same rules as an upload.

A failed build is the author's: its outcome says why in plain words, with the
last lines of the build's output.  A fault of this machine (no slot, no
sandbox) raises ``InfrastructureError`` so that the build runs again elsewhere.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import stat
import tarfile
import tempfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from workers import config
from workers.packages.archive import MAX_FILES, PackageError, inspect_package, unpack_package
from workers.referee.text import clean_text
from workers.sandbox import buildroot
from workers.sandbox.launcher import BotProgram
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.process import BotProcess
from workers.sandbox.start import InfrastructureError, sandbox_available, start_bot
from workers.sandbox.trees import Entry, TreeError, tree_open, tree_walk

BUILT_FILENAME = "built.tar.gz"
# The output kept for the author: the end of it, where compilers put the error that stopped them.
LOG_LINES = 30
LOG_BYTES = 64 * 1024
# Folders of a built package may nest this deep; deeper is the build's failure, never a walk's crash.
MAX_DEPTH = 64
# /bot with less free than this: the kernel refused a write (each file takes whole pages).
_FULL_BYTES = 64 * 1024
# Compilers that need more time and memory than gcc for the same program: their builds get the
# ARBITER_BUILD_LARGE_* limits.
LARGE_TOOLCHAINS = frozenset({"rustc", "cargo", "javac", "go"})


@dataclass(frozen=True)
class BuildLimits:
    """What one build may use (``ARBITER_BUILD_*``, docs/configuration.md)."""

    seconds: int
    memory_mb: int
    processes: int
    tmp_mb: int
    disk_mb: int = config.SETTINGS["ARBITER_BUILD_DISK_MB"].default  # what /bot may hold beyond the sources
    files: int = config.SETTINGS["ARBITER_BUILD_FILES"].default  # files and folders, likewise

    @classmethod
    def from_env(cls, program: str | None = None) -> BuildLimits:
        """The limits the environment sets for a build run by ``program`` (its command's first word)."""
        large = program in LARGE_TOOLCHAINS
        return cls(
            seconds=config.read("ARBITER_BUILD_LARGE_SECONDS" if large else "ARBITER_BUILD_SECONDS"),
            memory_mb=config.read("ARBITER_BUILD_LARGE_MEMORY_MB" if large else "ARBITER_BUILD_MEMORY_MB"),
            processes=config.read("ARBITER_BUILD_PROCESSES"),
            tmp_mb=config.read("ARBITER_BUILD_TMP_MB"),
            disk_mb=config.read("ARBITER_BUILD_DISK_MB"),
            files=config.read("ARBITER_BUILD_FILES"),
        )

    def sandbox(self, bots: SandboxLimits) -> SandboxLimits:
        """The bots' sandbox with a build's limits: memory for the group, CPU, processes, /tmp."""
        package_bytes: int = config.read("ARBITER_MAX_UNPACKED_BYTES")
        largest_file = max(1, package_bytes >> 20)
        return replace(
            bots,
            memory_mb=self.memory_mb,
            address_space_mb=4 * self.memory_mb,
            processes=self.processes,
            tmp_mb=self.tmp_mb,
            file_size_mb=max(bots.file_size_mb, largest_file),
            # /bot is a file system of its own this much bigger than the sources (workers.sandbox.view).
            bot_room_mb=self.disk_mb,
            bot_files=self.files,
            cpu_seconds=self.seconds,
            warm=0,
        )


@dataclass(frozen=True)
class BuildOutcome:
    """A finished build: ``archive`` (the built package) when it worked, else ``log`` says why."""

    ok: bool
    log: str
    archive: bytes = b""


class _Tail:
    """The last ``LOG_BYTES`` of a pipe, read by a thread of its own until the pipe closes."""

    def __init__(self, fd: int) -> None:
        self.data = bytearray()
        self.thread = threading.Thread(target=self._read, args=(fd,), daemon=True)
        self.thread.start()

    def _read(self, fd: int) -> None:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.data += chunk
            del self.data[:-LOG_BYTES]


def _tail_text(*parts: bytes) -> str:
    text = clean_text(b"".join(parts).decode("utf-8", "replace")).strip()
    return "\n".join(text.splitlines()[-LOG_LINES:])


def build_package(
    data: bytes, filename: str, build: tuple[str, ...], *, bots: SandboxLimits, limits: BuildLimits
) -> BuildOutcome:
    """Build the package ``data`` with ``build`` in the sandbox; its outcome (InfrastructureError: run it again)."""
    with tempfile.TemporaryDirectory(prefix="arbiter-build-") as scratch:
        os.chmod(scratch, 0o755)  # the copy for the slot is made from here
        try:
            sources = unpack_package(data, filename, Path(scratch) / "src")
        except PackageError as exc:
            return BuildOutcome(False, f"the package cannot be unpacked: {exc}")
        sandbox = limits.sandbox(bots)
        if not builds_here(sandbox):
            raise InfrastructureError("this worker cannot build: bots run unsandboxed here")
        with buildroot.listen(Path(scratch) / "handoff") as listener:
            program = BotProgram(sources.directory, build, writable=True, handoff=str(Path(scratch) / "handoff"))
            proc = start_bot(program, sandbox, limits.seconds)
            try:
                top = _handed_over(listener, proc, limits)
                try:
                    return _run(proc, sources.command, limits, top)
                finally:
                    os.close(top)
            finally:
                proc.kill()
                proc.cleanup()


def builds_here(bots: SandboxLimits) -> bool:
    """Whether this worker takes builds: wherever bots are sandboxed (each build caps its own /bot)."""
    try:
        return sandbox_available(bots)
    except InfrastructureError:
        return False


def _handed_over(listener: socket.socket, proc: BotProcess, limits: BuildLimits) -> int:
    """The descriptor of the build's /bot, from its sandbox; InfrastructureError (with why) if none comes."""
    try:
        return buildroot.receive(listener, proc.popen.pid, lambda: proc.popen.poll() is None, limits.seconds)
    except OSError as exc:
        proc.kill()
        said = b""
        if proc.popen.stderr is not None:
            os.set_blocking(proc.popen.stderr.fileno(), False)
            with contextlib.suppress(OSError, TypeError):
                said = proc.popen.stderr.read() or b""
        raise InfrastructureError(_with_output(str(exc), _tail_text(said))) from None


def _run(proc: BotProcess, command: tuple[str, ...], limits: BuildLimits, top: int) -> BuildOutcome:
    """Wait for the started build, stop it at its limits, and pack what it made (``top``: its /bot, open)."""
    popen = proc.popen
    if popen.stdin is not None:
        popen.stdin.close()
    tails = [_Tail(s.fileno()) for s in (popen.stdout, popen.stderr) if s is not None]
    code = proc.wait(float(limits.seconds))
    over_memory = proc.over_memory()
    proc.kill()  # whatever the build left running, before its files are read
    for tail in tails:
        tail.thread.join(5.0)
    if not proc.gone:
        raise InfrastructureError("the build's processes could not all be stopped")
    output = _tail_text(*(bytes(t.data) for t in tails))
    full = _disk_full(top, limits)
    if full:
        return BuildOutcome(False, _with_output(full, output))
    if code is None:
        return BuildOutcome(
            False, _with_output(f"the build took longer than {limits.seconds} s and was stopped", output)
        )
    if over_memory:
        return BuildOutcome(
            False, _with_output(f"the build used more than {limits.memory_mb} MiB of memory and was stopped", output)
        )
    if code != 0:
        signal = proc.exit_signal()
        how = f"was killed by signal {signal}" if signal else f"failed (exit status {code})"
        return BuildOutcome(False, _with_output(f"the build {how}", output))
    try:
        archive = _pack(top, command)
        inspect_package(archive, BUILT_FILENAME)
    except (PackageError, TreeError) as exc:
        return BuildOutcome(False, _with_output(f"the build's result cannot be used: {exc}", output))
    return BuildOutcome(True, output, archive)


def _disk_full(top: int, limits: BuildLimits) -> str | None:
    """Why the build's /bot (open at ``top``) is full (the kernel refused its last write), or None."""
    info = os.statvfs(top)
    if info.f_ffree == 0:
        return f"the build made more than {limits.files} files and folders in /bot (ARBITER_BUILD_FILES)"
    if info.f_bavail * info.f_frsize < _FULL_BYTES:
        return f"the build wrote more than {limits.disk_mb} MiB to /bot (ARBITER_BUILD_DISK_MB)"
    return None


def _with_output(reason: str, output: str) -> str:
    return f"{reason}:\n{output}" if output else reason


def _pack(top: int, command: tuple[str, ...]) -> bytes:
    """The tree at the open directory ``top`` as a deterministic ``.tar.gz`` (links, devices and fifos refused)."""
    program = command[0] if command else ""
    if "/" in program and not PurePosixPath(program).is_absolute():
        try:
            info: os.stat_result | None = os.lstat(str(PurePosixPath(program)), dir_fd=top)
        except OSError:
            info = None
        if info is None or not stat.S_ISREG(info.st_mode):
            raise PackageError(f"the build finished but did not make {program!r}")
    budget = [config.read("ARBITER_MAX_UNPACKED_BYTES")]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for entry in tree_walk(top, max_depth=MAX_DEPTH, max_entries=2 * MAX_FILES):
            _add(archive, entry, budget)
    return buffer.getvalue()


def _add(archive: tarfile.TarFile, found: Entry, budget: list[int]) -> None:
    info = found.info
    entry = tarfile.TarInfo(found.path)
    entry.mtime = 0
    if stat.S_ISDIR(info.st_mode):
        entry.type, entry.mode = tarfile.DIRTYPE, 0o755
        archive.addfile(entry)
    elif stat.S_ISREG(info.st_mode):
        budget[0] -= info.st_size
        if budget[0] < 0:
            raise PackageError("the build's files are larger than a package may be (ARBITER_MAX_UNPACKED_BYTES)")
        with os.fdopen(tree_open(found), "rb") as source:
            content = source.read()
        entry.size, entry.mode = len(content), 0o755 if info.st_mode & 0o111 else 0o644
        archive.addfile(entry, io.BytesIO(content))
    else:
        raise PackageError(
            f"the build made {found.path!r}, which is a link, device or fifo: only files and folders are kept"
        )
