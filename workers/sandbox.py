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

import contextlib
import logging
import math
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, fields
from pathlib import Path

from workers import containers, seccomp
from workers.slots import (
    NoFreeSlotError,
    Slot,
    acquire_slot,
    become_subreaper,
    ensure_private_dir,
    kill_uid,
    pids_of_uid,
    process_tree,
    read_proc,
    stat_fields,
    tasks_of_uid,
)

__all__ = [
    "BotProcess",
    "BotProgram",
    "InfrastructureError",
    "SandboxLimits",
    "SandboxUnavailableError",
    "become_subreaper",
    "kill_uid",
    "pids_of_uid",
    "sandbox_available",
    "start_bot",
]

log = logging.getLogger(__name__)

BWRAP = "bwrap"
# The only environment a bot (and bwrap itself) ever sees: nothing of the worker's.  /usr/bin
# comes first so that `python3` is the distribution's (docs/bots.md), even where an image (such
# as python:3.11-slim) or an administrator put another one in /usr/local/bin.
BOT_ENV = {"PATH": "/usr/bin:/bin:/usr/local/bin", "LANG": "C.UTF-8", "HOME": "/tmp"}
# Harmless parts of /etc that toolchains need (dynamic linker cache, alternatives symlinks).
_ETC_WHITELIST = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime")
# What runtimes print when an allocation fails (Python, C++, C and others).
_MEMORY_WORDS = (b"memoryerror", b"bad_alloc", b"out of memory", b"cannot allocate memory", b"failed to allocate")


class InfrastructureError(RuntimeError):
    """The service's fault (sandbox could not start, no free slot...): not a forfeit; re-run the match."""


class SandboxUnavailableError(InfrastructureError):
    """bubblewrap (or util-linux) is missing or cannot create a sandbox on this machine."""


@dataclass(frozen=True)
class BotProgram:
    """A bot ready to run: its unpacked files and the argv to run inside them."""

    directory: Path
    command: tuple[str, ...]


@dataclass(frozen=True)
class SandboxLimits:
    """Per-bot limits; every field is a setting (see :meth:`from_env`)."""

    memory_mb: int = 512  # address space (RLIMIT_AS) of each process
    processes: int = 64  # processes and threads of the slot uid (RLIMIT_NPROC)
    open_files: int = 64
    file_size_mb: int = 16  # largest file a bot may write (RLIMIT_FSIZE)
    tmp_mb: int = 16  # size of the writable /tmp
    shm_mb: int = 16  # size of /dev/shm
    cpu_seconds: int | None = None  # None: startup + game budget + 2 s, from the match clock
    output_kb: int = 4096  # all stdout lines of one bot in one match
    slots: int = 64  # how many bots may run at once on this machine
    first_uid: int = 60000
    runtime_dir: str = ""  # per-match copies of the bots; "" picks one under the temp dir
    # Slot locks: one place for the whole machine, whatever runtime_dir each worker uses.
    lock_dir: str = ""  # "" is arbiter-slots under the temp dir
    seccomp: bool = True
    allow_unsandboxed: bool = False

    # Each field's setting is ARBITER_SANDBOX_<FIELD>, but for these two.
    _ENV_NAMES = {"runtime_dir": "ARBITER_SANDBOX_DIR", "allow_unsandboxed": "ARBITER_ALLOW_UNSANDBOXED"}

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> SandboxLimits:
        """Defaults overridden by ``ARBITER_SANDBOX_*`` and ``ARBITER_ALLOW_UNSANDBOXED`` variables."""
        environ = dict(os.environ if environ is None else environ)
        values: dict[str, object] = {}
        for f in fields(cls):
            name = cls._ENV_NAMES.get(f.name, f"ARBITER_SANDBOX_{f.name.upper()}")
            raw = environ.get(name, "").strip()
            if not raw:
                continue
            if f.name in ("seccomp", "allow_unsandboxed"):
                values[f.name] = raw.lower() in ("1", "true", "yes", "on")
            elif f.name in ("runtime_dir", "lock_dir"):
                values[f.name] = raw
            else:
                try:
                    number = int(raw)
                except ValueError:
                    raise ValueError(f"{name} must be an integer, got {raw!r}") from None
                if number <= 0:
                    raise ValueError(f"{name} must be positive, got {number}")
                values[f.name] = number
        return cls(**values)  # type: ignore[arg-type]

    def cpu_limit(self, startup_ms: int, game_ms: int) -> int:
        """RLIMIT_CPU seconds for one bot of a match with this clock."""
        if self.cpu_seconds is not None:
            return self.cpu_seconds
        return math.ceil((startup_ms + game_ms) / 1000) + 2

    def lock_path(self) -> Path:
        return Path(self.lock_dir) if self.lock_dir else Path(tempfile.gettempdir()) / "arbiter-slots"

    def runtime_path(self) -> Path:
        if self.runtime_dir:
            return Path(self.runtime_dir)
        return Path(tempfile.gettempdir()) / f"arbiter-sandbox-{os.geteuid()}"


_CLK_TCK = os.sysconf("SC_CLK_TCK")


@dataclass
class Usage:
    """Resources a bot used, as far as they could be measured."""

    cpu_ms: int | None = None
    peak_rss_kb: int | None = None
    peak_vm_kb: int | None = None
    rss_now_kb: int | None = None


class BotProcess:
    """One started bot: its pipes, its slot, and how to measure and end it."""

    def __init__(
        self, popen: subprocess.Popen[bytes], slot: Slot | None, workdir: Path, sandboxed: bool, memory_mb: int
    ) -> None:
        self.popen = popen
        self.slot = slot
        self.workdir = workdir
        self.sandboxed = sandboxed
        self.memory_mb = memory_mb
        self.usage = Usage()
        self.rusage: object | None = None
        self.returncode: int | None = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    def sample(self) -> None:
        """Fold the current CPU time and memory of the bot's process tree into :attr:`usage`."""
        cpu_ticks, rss_sum, hwm, vm_peak, any_seen = 0, 0, 0, 0, False
        for pid in process_tree(self.popen.pid):
            st = stat_fields(pid)
            status = read_proc(pid, "status")
            if st is None or status is None:
                continue
            any_seen = True
            # utime, stime and the times of reaped children (fields 14-17 of stat).
            cpu_ticks += sum(int(x) for x in st[11:15])
            for line in status.splitlines():
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM", "VmPeak"):
                    kb = int(value.split()[0])
                    if key == "VmRSS":
                        rss_sum += kb
                    elif key == "VmHWM":
                        hwm = max(hwm, kb)
                    else:
                        vm_peak = max(vm_peak, kb)
        if not any_seen:
            return
        u = self.usage
        u.cpu_ms = max(u.cpu_ms or 0, cpu_ticks * 1000 // _CLK_TCK)
        u.peak_rss_kb = max(u.peak_rss_kb or 0, rss_sum, hwm)
        u.peak_vm_kb = max(u.peak_vm_kb or 0, vm_peak)
        u.rss_now_kb = rss_sum

    def total_memory_kb(self) -> int:
        """Proportional resident memory of the whole tree (pages shared after fork counted once)."""
        total = 0
        for pid in process_tree(self.popen.pid):
            for line in (read_proc(pid, "smaps_rollup") or "").splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        return total

    def over_memory(self) -> bool:
        """True when all the bot's processes together hold more than the memory limit.

        RLIMIT_AS bounds each process; without this a bot could multiply it by forking.  Cheap
        RSS sums from :meth:`sample` trigger the check, the proportional sum confirms it.
        """
        limit_kb = self.memory_mb * 1024
        return (self.usage.rss_now_kb or 0) > limit_kb and self.total_memory_kb() > limit_kb

    def exit_signal(self) -> int | None:
        """The signal that killed the bot, once it has exited (bwrap reports it as 128 + signal)."""
        code = self.returncode
        if code is None:
            return None
        if code < 0:
            return -code
        return code - 128 if self.sandboxed and code > 128 else None

    def limit_hit(self, stderr: bytes, cpu_limit_s: int) -> str | None:
        """``memory_limit`` or ``timeout`` when a dead bot's end looks like one of its limits, else None.

        Memory: stderr names an out-of-memory error, or a kill/segfault/abort/bus error came after
        some process had reserved 90% of the address-space limit.  CPU: SIGXCPU or SIGKILL once
        the measured CPU time is within 0.2 s of RLIMIT_CPU.
        """
        sig = self.exit_signal()
        err = stderr.lower()
        near_memory = (self.usage.peak_vm_kb or 0) >= self.memory_mb * 1024 * 0.9
        if any(word in err for word in _MEMORY_WORDS) or (
            sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS) and near_memory
        ):
            return "memory_limit"
        if sig in (signal.SIGXCPU, signal.SIGKILL) and (self.usage.cpu_ms or 0) >= cpu_limit_s * 1000 - 200:
            return "timeout"
        return None

    def poll(self) -> int | None:
        """The exit status once the top process has exited (reaped with wait4 for its rusage)."""
        if self.returncode is not None:
            return self.returncode
        try:
            pid, status, rusage = os.wait4(self.popen.pid, os.WNOHANG)
        except ChildProcessError:
            self.returncode = self.popen.poll() if self.popen.returncode is None else self.popen.returncode
            return self.returncode
        if pid == 0:
            return None
        self._reaped(status, rusage)
        return self.returncode

    def _reaped(self, status: int, rusage: object) -> None:
        self.returncode = os.waitstatus_to_exitcode(status)
        self.popen.returncode = self.returncode
        self.rusage = rusage
        u = self.usage
        cpu = int((rusage.ru_utime + rusage.ru_stime) * 1000)  # type: ignore[attr-defined]
        u.cpu_ms = max(u.cpu_ms or 0, cpu)
        # Not ru_maxrss: it counts the worker's own size, copied into the child before exec.

    def holds_pipe(self, fd: int) -> bool:
        """Whether any process of the bot itself (not bwrap's) still has the pipe of ``fd`` open."""
        target = f"pipe:[{os.fstat(fd).st_ino}]"
        for pid in process_tree(self.popen.pid):
            if (read_proc(pid, "comm") or "").strip() == "bwrap":
                continue
            try:
                links = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            for name in links:
                try:
                    if os.readlink(f"/proc/{pid}/fd/{name}") == target:
                        return True
                except OSError:
                    continue
        return False

    def set_nice(self, value: int) -> None:
        """Renice every process of the bot's slot at once (a bot not on move yields the CPU)."""
        if self.slot is not None:
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_USER, self.slot.uid, value)

    def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the top process to exit."""
        deadline = time.monotonic() + timeout
        pause = 0.0005
        while True:
            code = self.poll()
            if code is not None or time.monotonic() >= deadline:
                return code
            time.sleep(pause)
            pause = min(pause * 2, 0.01)

    def kill(self) -> None:
        """Kill everything the bot started, reap what is ours, free the slot."""
        self.sample()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        if self.slot is not None:
            kill_uid(self.slot.uid)
        self.wait(5.0)
        if self.returncode is None:
            log.error("bot process %s did not die after SIGKILL", self.popen.pid)

    def cleanup(self) -> None:
        """Close the pipes, release the slot and delete the per-match copy (after :meth:`kill`)."""
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self.slot is not None:
            self.slot.release()
            self.slot = None
        shutil.rmtree(self.workdir, ignore_errors=True)


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
