"""Starting one bot in a bubblewrap sandbox, measuring it, and killing all of it.

Each running bot gets a slot: an unprivileged uid/gid (``first_uid + n``) that
no other bot uses at the same time, locked machine-wide (``workers.slots``),
and that slot's control group (``workers.botgroup``), which holds every
process the bot ever starts.  The launch chain (``workers.launch``) is::

    sh (gate, rlimits) -> setpriv --reuid SLOT -> bwrap --unshare-all ... --seccomp FD -> COMMAND

The worker moves the first process into the slot's control group and onto the
match's CPU before it may go on, so nothing escapes either.  ``bwrap`` then
builds an unprivileged user namespace with no network, a read-only ``/usr``,
the bot's own read-only copy at ``/bot``, small ``/tmp`` and ``/dev/shm``
(mounted by the worker with an inode cap where it may mount), a fresh
``/proc`` whose host-wide counters are replaced by static files, and no
``/etc``, ``/home``, ``/root``, project files or sockets.

:func:`capabilities` reports what this host allows (control groups, inode
caps, seccomp) and what falls back; ``/healthz`` and the worker's start-up
log show it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workers import launch, mounts, seccomp, slots, warm
from workers.botgroup import SlotGroup, prime_migration, slot_group
from workers.botprocess import BotProcess
from workers.cgroups import CgroupError, detect
from workers.limits import SandboxLimits
from workers.slots import (
    NoFreeSlotError,
    Slot,
    SlotRangeError,
    acquire_slot,
    become_subreaper,
    ensure_private_dir,
    tasks_of_uid,
)

log = logging.getLogger(__name__)

BWRAP = "bwrap"
# The only environment a bot (and bwrap itself) ever sees: nothing of the worker's.
BOT_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp"}


class InfrastructureError(RuntimeError):
    """The service's fault (sandbox could not start, no free slot...): not a forfeit; re-run the match."""


class SandboxUnavailableError(InfrastructureError):
    """bubblewrap (or util-linux) is missing or cannot create a sandbox on this machine."""


class ExternalKillError(InfrastructureError):
    """A bot was killed (or its memory taken) by something outside the sandbox, not by its own doing.

    The attempt says nothing about the bots: the service runs the match again and never rates it.
    """

    def __init__(self, seat: int, detail: str) -> None:
        super().__init__(f"seat {seat}: {detail}")
        self.seat, self.detail = seat, detail


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
    key = (limits, BWRAP)
    if key in _checked:
        return
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
        raise SandboxUnavailableError(
            f"bubblewrap cannot start a sandbox here (exit status {code}: {err.strip()[:500]}); install the "
            "Debian package `bubblewrap` and enable unprivileged user namespaces"
        )
    _checked[key] = None


def capabilities(limits: SandboxLimits) -> dict[str, Any]:
    """What this worker's sandbox has and lacks, JSON-ready (for /healthz and the start-up log).

    Runs the self-test (remembered once passed).  ``gaps`` lists, in words, every protection
    that falls back to something weaker here; empty on a fully equipped host.
    """
    sandboxed = sandbox_available(limits)
    runtime = ensure_private_dir(limits.runtime_path())
    plan = launch.plan(limits, sandboxed, runtime, BWRAP)
    gaps = []
    if not sandboxed:
        gaps.append("no bubblewrap: bots run unsandboxed (ARBITER_ALLOW_UNSANDBOXED)")
    if os.geteuid() != 0:
        gaps.append("not root: no slot uids, no control groups; bots share the worker's uid")
    if not plan.cgroups.usable:
        gaps.append(f"no control groups ({plan.cgroups.reason}): memory is limited per process and by sampling, "
                    "off-move bots are reniced, the clock sums /proc")  # fmt: skip
    if sandboxed and not plan.own_tmpfs:
        gaps.append("no inode cap on /tmp and /dev/shm (the worker may not mount)")
    if sandboxed and plan.seccomp_program is None:
        gaps.append("no seccomp filter (turned off, or no syscall table for this machine)")
    return {
        "sandbox": "bubblewrap" if sandboxed else "none",
        "cgroups": plan.cgroups.describe(),
        "tmpfs_inode_cap": plan.own_tmpfs,
        "seccomp": plan.seccomp_program is not None,
        "cpus": list(plan.cpus) if limits.pin_cpu else None,
        "slots": {"first_uid": limits.first_uid, "count": limits.slots, "lock_dir": str(limits.lock_path())},
        "incidents": dict(slots.incidents),
        "gaps": gaps,
    }


def uses_cgroups(limits: SandboxLimits) -> bool:
    """True when bots get a control group each on this worker (root, and v1 or v2 usable)."""
    return os.geteuid() == 0 and detect(limits.cgroups).usable


def start_bot(
    program: BotProgram,
    limits: SandboxLimits,
    cpu_seconds: int,
    *,
    cpu: int | None = None,
    _skip_check: bool = False,
    _empty: bool = False,
) -> BotProcess:
    """Start ``program`` in its own sandbox, slot and control group, stdin/stdout/stderr as pipes.

    ``cpu`` pins the bot (and everything it starts) to that CPU.  Raises
    SandboxUnavailableError when bwrap is missing (unless unsandboxed runs are allowed) or this
    installation's uid range collides with another's, and InfrastructureError when no slot is
    free or the slot's group or per-match copy cannot be made.
    """
    sandboxed = True if _skip_check else sandbox_available(limits)
    # The sandbox's init often outlives bwrap: as a subreaper we reap it at once, where the
    # machine's init might take its time (and the slot waits for it to be gone).
    become_subreaper()
    try:
        runtime = ensure_private_dir(limits.runtime_path())
        plan = launch.plan(limits, sandboxed, runtime, BWRAP)
    except launch.ToolMissingError as exc:
        raise SandboxUnavailableError(str(exc)) from None
    except OSError as exc:
        raise InfrastructureError(f"sandbox runtime directory unusable: {exc}") from exc
    warm_ok = os.geteuid() == 0 and plan.cgroups.usable
    key = (limits, sandboxed, str(runtime), BWRAP)
    launcher = warm.take(key) if warm_ok else None
    if launcher is None:
        launcher = _cold_launcher(plan, runtime, limits)
    try:
        proc = _hand_out(launcher, plan, program, cpu_seconds, cpu, _empty)
    except (OSError, CgroupError) as exc:
        launcher.close()
        raise InfrastructureError(f"could not start a bot: {exc}") from exc
    if warm_ok:
        warm.refill(key, limits.warm, lambda: _warm_launcher(plan, runtime, limits))
    return proc


def _cold_launcher(plan: launch.LaunchPlan, runtime: Path, limits: SandboxLimits) -> warm.Launcher:
    """A launcher started now: slot, group (moved into it while other work goes on), process."""
    slot = _acquire(limits) if os.geteuid() == 0 else None
    try:
        group = None
        if slot is not None and plan.cgroups.usable:
            prime_migration(plan.cgroups)
            group = slot_group(plan.cgroups, slot.uid)
            group.prepare(limits.memory_mb << 20, limits.processes)
        nproc = None
        if slot is not None and group is None:
            nproc = limits.processes  # RLIMIT_NPROC counts every task of the real uid: one uid per bot
        elif slot is None and os.geteuid() != 0:
            # Without slot uids the bot shares the worker's uid: allow what already runs plus the limit.
            nproc = tasks_of_uid(os.getuid()) + limits.processes
        return _spawn(plan, runtime, slot, group, nproc)
    except (OSError, CgroupError) as exc:
        if slot is not None:
            slot.release()
        raise InfrastructureError(f"could not start a bot: {exc}") from exc


def _warm_launcher(plan: launch.LaunchPlan, runtime: Path, limits: SandboxLimits) -> warm.Launcher | None:
    """A launcher for later, in a slot free right now (None when there is none)."""
    try:
        slot = acquire_slot(limits.lock_path(), limits.first_uid, limits.slots, wait_s=0)
    except NoFreeSlotError:
        return None
    try:
        group = slot_group(plan.cgroups, slot.uid)
        group.prepare(limits.memory_mb << 20, limits.processes)
        return _spawn(plan, runtime, slot, group, None)
    except BaseException:
        slot.release()
        raise


def _spawn(
    plan: launch.LaunchPlan, runtime: Path, slot: Slot | None, group: SlotGroup | None, nproc: int | None
) -> warm.Launcher:
    """Start a launcher (it waits at its gate) and move it into ``group``."""
    # A slot's directory lives at a fixed path, kept between bots: only the holder of the slot's
    # lock touches it.  Each bot gets its own fresh copy in it.
    workdir = runtime / (f"slot-{slot.uid}" if slot is not None else f"bot-{uuid.uuid4().hex}")
    with contextlib.suppress(FileExistsError):
        os.mkdir(workdir, 0o711)
    seccomp_fd = args_fd = None
    try:
        if plan.sandboxed:
            if plan.seccomp_program is not None:
                seccomp_fd = seccomp.filter_fd(plan.seccomp_program)
            args_fd = seccomp.filter_fd(b"")
        popen = subprocess.Popen(
            [plan.sh, "-c", plan.launcher_script(nproc, workdir / "launch"), "sh"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd="/",
            env=dict(BOT_ENV),
            close_fds=True,
            pass_fds=tuple(fd for fd in (seccomp_fd, args_fd) if fd is not None),
            start_new_session=True,
        )
    except BaseException:
        if args_fd is not None:
            os.close(args_fd)
        raise
    finally:
        if seccomp_fd is not None:
            os.close(seccomp_fd)
    launcher = warm.Launcher(popen, slot, group, workdir, args_fd, seccomp_fd)
    if group is not None:
        try:
            group.attach(popen.pid)
        except BaseException:
            launcher.close()
            raise
    return launcher


def _hand_out(
    launcher: warm.Launcher,
    plan: launch.LaunchPlan,
    program: BotProgram,
    cpu_seconds: int,
    cpu: int | None,
    empty: bool,
) -> BotProcess:
    """Give a waiting launcher its bot: the copy, the mounts, the launch file, the CPU; open the gate."""
    slot, workdir = launcher.slot, launcher.workdir
    botdir = workdir / f"bot-{uuid.uuid4().hex[:12]}"
    try:
        _write_launch(launcher, plan, program, botdir, empty)
        if launcher.group is not None:
            launcher.group.start(cpu if plan.cgroups.cpuset else None)
        if cpu is not None:
            os.sched_setaffinity(launcher.popen.pid, {cpu})
    except BaseException:
        mounts.release_slot_dir(workdir, botdir, keep=slot is not None)
        raise
    filtered = plan.seccomp_program is not None
    proc = BotProcess(launcher.popen, slot, workdir, plan.sandboxed, plan.limits.memory_mb, launcher.group, filtered,
                      botdir)  # fmt: skip
    try:
        os.write(launcher.popen.stdin.fileno(), plan.gate_line(cpu_seconds))  # type: ignore[union-attr]
    except OSError:
        launcher.slot = None  # the bot's cleanup gives it back (or holds it back)
        proc.kill()
        proc.cleanup()
        raise
    return proc


def _write_launch(
    launcher: warm.Launcher, plan: launch.LaunchPlan, program: BotProgram, botdir: Path, empty: bool
) -> None:
    """The copy and mounts, bubblewrap's options (into the launcher's memfd) and the launch file."""
    slot, workdir = launcher.slot, launcher.workdir
    _make_workdir(workdir, botdir, program, plan, slot, empty)
    argv: list[str] = []
    if slot is not None and plan.setpriv:
        argv += [plan.setpriv, "--reuid", str(slot.uid), "--regid", str(slot.uid), "--clear-groups", "--"]
    cwd = None
    if plan.sandboxed:
        options = plan.bwrap_options(workdir, botdir, launcher.seccomp_fd)
        # Options go through a file descriptor (--args): the bot can read its init's
        # /proc/1/cmdline, which then shows no host paths.
        assert launcher.args_fd is not None
        os.pwrite(launcher.args_fd, b"".join(o.encode() + b"\0" for o in options[1:]), 0)
        argv += [options[0], "--args", str(launcher.args_fd), "--", *program.command]
    else:
        argv += list(program.command)
        cwd = str(botdir)
    fd = os.open(workdir / "launch", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, plan.launch_file_text(argv, cwd).encode())
    finally:
        os.close(fd)
    if launcher.args_fd is not None:  # the launcher has its own copy
        os.close(launcher.args_fd)
        launcher.args_fd = None


def _acquire(limits: SandboxLimits) -> Slot:
    try:
        return acquire_slot(limits.lock_path(), limits.first_uid, limits.slots)
    except NoFreeSlotError as exc:
        raise InfrastructureError(str(exc)) from None
    except SlotRangeError as exc:
        raise SandboxUnavailableError(str(exc)) from None


def _make_workdir(
    workdir: Path, botdir: Path, program: BotProgram, plan: launch.LaunchPlan, slot: Slot | None, empty: bool
) -> None:
    """Fresh /tmp and /dev/shm mounts in the slot's directory (where the worker may mount), and the copy."""
    limits = plan.limits
    own = plan.own_tmpfs and slot is not None
    sizes = {"tmp": limits.tmp_mb << 20, "shm": limits.shm_mb << 20} if own else None
    mounts.prepare_slot_dir(workdir, sizes, limits.tmp_inodes, slot.uid if slot is not None else os.geteuid())
    if empty:
        os.mkdir(botdir, 0o755)
    else:
        copy_bot(Path(program.directory), botdir)
