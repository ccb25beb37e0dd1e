"""Starting one bot in a bubblewrap sandbox, measuring it, and killing all of it.

Each running bot gets a slot: an unprivileged uid/gid (``first_uid + n``) that
no other bot uses at the same time.  The launch chain, all exec wrappers so
nothing runs in a forked copy of a threaded worker, is::

    prlimit --as --cpu --nproc --nofile --fsize --core=0 --
      setpriv --reuid SLOT --regid SLOT --clear-groups --
        bwrap --unshare-all --disable-userns ... --seccomp FD -- COMMAND

``bwrap`` therefore starts as the slot uid and builds an unprivileged user
namespace with no network, a read-only ``/usr``, the bot's own read-only copy
at ``/bot``, small tmpfs ``/tmp`` and ``/dev/shm``, a fresh ``/proc`` and no
``/etc``, ``/home``, ``/root``, project files or sockets.  RLIMIT_NPROC counts
per real uid, which is why every bot needs its own.  When a bot ends, every
process of its slot uid is killed by scanning ``/proc``, so a double-forked
``setsid`` daemon does not outlive its match either.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from workers import containers, seccomp
from workers.botprocess import BotProcess
from workers.limits import SandboxLimits
from workers.slots import (
    NoFreeSlotError,
    Slot,
    acquire_slot,
    ensure_private_dir,
    kill_uid,
    tasks_of_uid,
)

log = logging.getLogger(__name__)

BWRAP = "bwrap"
# The only environment a bot (and bwrap itself) ever sees: nothing of the worker's.  /usr/bin
# comes first so that `python3` is the distribution's (docs/bots.md), even where an image (such
# as python:3.11-slim) or an administrator put another one in /usr/local/bin.
BOT_ENV = {"PATH": "/usr/bin:/bin:/usr/local/bin", "LANG": "C.UTF-8", "HOME": "/tmp"}
# Harmless parts of /etc that toolchains need (dynamic linker cache, alternatives symlinks).
_ETC_WHITELIST = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime")


class InfrastructureError(RuntimeError):
    """The service's fault (sandbox could not start, no free slot...): not a forfeit; re-run the match."""


class SandboxUnavailableError(InfrastructureError):
    """bubblewrap (or util-linux) is missing or cannot create a sandbox on this machine."""


@dataclass(frozen=True)
class BotProgram:
    """A bot ready to run: its unpacked files and the argv to run inside them."""

    directory: Path
    command: tuple[str, ...]


def copy_bot(source: Path, dest: Path) -> None:
    """Copy the bot's regular files and directories into ``dest``, readable but not writable by a slot.

    Symbolic links are copied as links (they resolve inside the sandbox, never on the host);
    devices, fifos and sockets are skipped.
    """
    # List everything before copying: the destination may lie inside the source.
    tree = list(os.walk(source))
    os.mkdir(dest, 0o755)
    for root, dirs, files in tree:
        rel = Path(root).relative_to(source)
        for name in dirs:
            src = Path(root) / name
            if src.is_symlink():
                os.symlink(os.readlink(src), dest / rel / name)
            else:
                os.mkdir(dest / rel / name, 0o755)
        for name in files:
            src = Path(root) / name
            info = os.lstat(src)
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(src), dest / rel / name)
            elif stat.S_ISREG(info.st_mode):
                shutil.copyfile(src, dest / rel / name, follow_symlinks=False)
                os.chmod(dest / rel / name, 0o755 if info.st_mode & 0o111 else 0o644)


_checked: dict[tuple[object, ...], str | None] = {}


def _tool(name: str, package: str) -> str:
    path = shutil.which(name, path="/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin")
    if path is None:
        raise SandboxUnavailableError(f"{name} is not installed; install the Debian package `{package}`")
    return path


def sandbox_available(limits: SandboxLimits) -> bool:
    """True when bots will run inside bubblewrap (False: unsandboxed fallback allowed and needed)."""
    try:
        _self_test(limits)
    except SandboxUnavailableError:
        if limits.allow_unsandboxed:
            return False
        raise
    return True


def _self_test(limits: SandboxLimits) -> None:
    """Start ``true`` in a full sandbox, so that set-up faults show before any bot is blamed.

    Only success is remembered (per process and settings): a failure is tested again next
    time, so that a passing problem never leaves a worker without its sandbox for good.
    A busy slot pool raises InfrastructureError, which says nothing about the sandbox.
    """
    key = (limits.runtime_path(), limits.lock_path(), limits.first_uid, limits.seccomp, BWRAP)
    if key in _checked:
        return
    _tool(BWRAP, "bubblewrap")
    empty = BotProgram(Path(tempfile.gettempdir()), ("/usr/bin/true",))
    proc = start_bot(empty, limits, 5, _skip_check=True, _empty=True)
    try:
        code = proc.wait(10.0)
    finally:
        proc.kill()
    try:
        os.set_blocking(proc.popen.stderr.fileno(), False)  # type: ignore[union-attr]
        err = (proc.popen.stderr.read() or b"").decode(errors="replace")  # type: ignore[union-attr]
    except OSError:
        err = ""
    finally:
        proc.cleanup()
    if code != 0:
        raise SandboxUnavailableError(unavailable_reason(code, err))
    _checked[key] = None


def unavailable_reason(code: int | None, stderr: str, root: Path = Path("/")) -> str:
    """Why the self-test failed, with the cure: in a container, the container options it lacks."""
    seen = f"exit status {code}: {stderr.strip()[:500]}"
    if containers.in_container(root):
        missing = containers.missing_options(root)
        if missing:
            return (
                f"bubblewrap cannot start a sandbox in this container ({seen}); the worker's container needs: "
                + "; ".join(missing)
            )
        return (
            f"bubblewrap cannot start a sandbox in this container ({seen}); compare the worker's container "
            "options with docs/deploy.md (What the sandbox needs inside a container)"
        )
    return (
        f"bubblewrap cannot start a sandbox here ({seen}); install the Debian package `bubblewrap` "
        "and enable unprivileged user namespaces"
    )


def _bwrap_args(limits: SandboxLimits, botdir: Path, seccomp_fd: int | None) -> list[str]:
    args = [
        _tool(BWRAP, "bubblewrap"),
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--hostname",
        "arbiter",
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    for link in ("bin", "lib", "lib64", "sbin", "lib32", "libx32"):
        if os.path.islink(f"/{link}"):
            args += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
    for path in _ETC_WHITELIST:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]
    args += ["--size", str(limits.shm_mb << 20), "--tmpfs", "/dev/shm"]
    args += ["--size", str(limits.tmp_mb << 20), "--tmpfs", "/tmp"]
    args += ["--ro-bind", str(botdir), "/bot", "--chdir", "/bot"]
    # bwrap's own root is a tmpfs the bot could otherwise fill without limit: freeze it last.
    args += ["--remount-ro", "/"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return args


def start_bot(
    program: BotProgram,
    limits: SandboxLimits,
    cpu_seconds: int,
    *,
    _skip_check: bool = False,
    _empty: bool = False,
) -> BotProcess:
    """Start ``program`` in its own sandbox and slot, stdin/stdout/stderr as pipes.

    Raises SandboxUnavailableError when bwrap is missing (unless unsandboxed runs are allowed)
    and InfrastructureError when no slot is free or the per-match copy cannot be made.
    """
    sandboxed = True if _skip_check else sandbox_available(limits)
    try:
        runtime = ensure_private_dir(limits.runtime_path())
    except OSError as exc:
        raise InfrastructureError(f"sandbox runtime directory unusable: {exc}") from exc
    is_root = os.geteuid() == 0
    slot = None
    if is_root:
        try:
            slot = acquire_slot(limits.lock_path(), limits.first_uid, limits.slots)
        except NoFreeSlotError as exc:
            raise InfrastructureError(str(exc)) from None
    # A slot's copy lives at a fixed path: whatever a crashed worker left there is removed by the
    # next holder of the slot (who alone may touch it, holding the slot's lock).
    workdir = runtime / (f"slot-{slot.uid}" if slot is not None else f"bot-{uuid.uuid4().hex}")
    try:
        if slot is not None:
            shutil.rmtree(workdir, ignore_errors=True)
        os.mkdir(workdir, 0o711)
        botdir = workdir / "bot"
        if _empty:
            os.mkdir(botdir, 0o755)
        else:
            copy_bot(Path(program.directory), botdir)
        if slot is not None:
            # Leftovers of a previous holder (should be none): never share a uid with them.
            kill_uid(slot.uid)
        argv = [_tool("prlimit", "util-linux")]
        argv += [
            f"--as={limits.memory_mb << 20}",
            f"--cpu={cpu_seconds}:{cpu_seconds + 1}",
            f"--nofile={limits.open_files}",
            f"--fsize={limits.file_size_mb << 20}",
            "--core=0",
        ]
        # RLIMIT_NPROC counts every task of the real uid, hence one uid per bot.  Without root
        # (no slot uids) the bot shares the worker's uid: allow what already runs plus the limit.
        if slot is not None:
            argv += [f"--nproc={limits.processes}", "--", _tool("setpriv", "util-linux")]
            argv += ["--reuid", str(slot.uid), "--regid", str(slot.uid), "--clear-groups"]
        elif os.geteuid() != 0:
            argv.append(f"--nproc={tasks_of_uid(os.getuid()) + limits.processes}")
        argv.append("--")
        seccomp_fd = args_fd = None
        if sandboxed:
            program_bpf = seccomp.build_filter() if limits.seccomp else None
            if program_bpf is not None:
                seccomp_fd = seccomp.filter_fd(program_bpf)
            bwrap, *options = _bwrap_args(limits, botdir, seccomp_fd)
            # Options go through a file descriptor (--args): the bot can read its init's
            # /proc/1/cmdline, which then shows no host paths.
            args_fd = seccomp.filter_fd(b"".join(o.encode() + b"\0" for o in options))
            argv += [bwrap, "--args", str(args_fd), "--", *program.command]
            cwd = "/"
        else:
            argv += list(program.command)
            cwd = str(botdir)
        try:
            popen = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=dict(BOT_ENV),
                close_fds=True,
                pass_fds=tuple(fd for fd in (seccomp_fd, args_fd) if fd is not None),
                start_new_session=True,
            )
        finally:
            for fd in (seccomp_fd, args_fd):
                if fd is not None:
                    os.close(fd)
    except InfrastructureError:
        _abandon(slot, workdir)
        raise
    except OSError as exc:
        _abandon(slot, workdir)
        raise InfrastructureError(f"could not start a bot: {exc}") from exc
    return BotProcess(popen, slot, workdir, sandboxed, limits.memory_mb)


def _abandon(slot: Slot | None, workdir: Path) -> None:
    if slot is not None:
        slot.release()
    shutil.rmtree(workdir, ignore_errors=True)
