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

from workers import launch, mounts, seccomp, slots
from workers.botgroup import prime_migration, slot_group
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
    slot = _acquire(limits) if os.geteuid() == 0 else None
    # A slot's directory lives at a fixed path, kept between bots: only the holder of the slot's
    # lock touches it.  Each bot gets its own fresh copy in it.
    workdir = runtime / (f"slot-{slot.uid}" if slot is not None else f"bot-{uuid.uuid4().hex}")
    botdir = workdir / f"bot-{uuid.uuid4().hex[:12]}"
    group = None
    try:
        if slot is not None and plan.cgroups.usable:
            prime_migration(plan.cgroups)
            group = slot_group(plan.cgroups, slot.uid)
            group.prepare(limits.memory_mb << 20, limits.processes, cpu)
        _make_workdir(workdir, botdir, program, limits, plan, slot, _empty)
        popen = _launch(plan, workdir, botdir, program, slot, cpu_seconds, group is None)
    except (OSError, CgroupError) as exc:
        _abandon(slot, workdir, botdir)
        raise InfrastructureError(f"could not start a bot: {exc}") from exc
    except InfrastructureError:
        _abandon(slot, workdir, botdir)
        raise
    filtered = plan.seccomp_program is not None
    proc = BotProcess(popen, slot, workdir, sandboxed, limits.memory_mb, group, filtered, botdir)
    try:
        if group is not None:
            group.attach(popen.pid)
        if cpu is not None:
            os.sched_setaffinity(popen.pid, {cpu})
        os.write(popen.stdin.fileno(), launch.GATE)  # type: ignore[union-attr]
    except OSError as exc:
        proc.kill()
        proc.cleanup()
        raise InfrastructureError(f"could not place a bot in its control group: {exc}") from exc
    return proc


def _acquire(limits: SandboxLimits) -> Slot:
    try:
        return acquire_slot(limits.lock_path(), limits.first_uid, limits.slots)
    except NoFreeSlotError as exc:
        raise InfrastructureError(str(exc)) from None
    except SlotRangeError as exc:
        raise SandboxUnavailableError(str(exc)) from None


def _make_workdir(
    workdir: Path,
    botdir: Path,
    program: BotProgram,
    limits: SandboxLimits,
    plan: launch.LaunchPlan,
    slot: Slot | None,
    empty: bool,
) -> None:
    """The slot's directory with fresh /tmp and /dev/shm mounts (where the worker may mount), and the copy."""
    own = plan.own_tmpfs and slot is not None
    sizes = {"tmp": limits.tmp_mb << 20, "shm": limits.shm_mb << 20} if own else None
    mounts.prepare_slot_dir(workdir, sizes, limits.tmp_inodes, slot.uid if slot is not None else os.geteuid())
    if empty:
        os.mkdir(botdir, 0o755)
    else:
        copy_bot(Path(program.directory), botdir)


def _launch(
    plan: launch.LaunchPlan,
    workdir: Path,
    botdir: Path,
    program: BotProgram,
    slot: Slot | None,
    cpu_seconds: int,
    need_nproc: bool,
) -> subprocess.Popen[bytes]:
    """Start the launch chain, waiting at its gate (see ``workers.launch``)."""
    limits = plan.limits
    nproc = None
    if slot is not None and need_nproc:
        nproc = limits.processes  # RLIMIT_NPROC counts every task of the real uid: one uid per bot
    elif slot is None and os.geteuid() != 0:
        # Without slot uids the bot shares the worker's uid: allow what already runs plus the limit.
        nproc = tasks_of_uid(os.getuid()) + limits.processes
    argv = [plan.sh, "-c", plan.rlimit_script(cpu_seconds, nproc), "sh"]
    if slot is not None and plan.setpriv:
        argv += [plan.setpriv, "--reuid", str(slot.uid), "--regid", str(slot.uid), "--clear-groups", "--"]
    seccomp_fd = args_fd = None
    try:
        if plan.sandboxed:
            if plan.seccomp_program is not None:
                seccomp_fd = seccomp.filter_fd(plan.seccomp_program)
            options = plan.bwrap_options(workdir, botdir, seccomp_fd)
            # Options go through a file descriptor (--args): the bot can read its init's
            # /proc/1/cmdline, which then shows no host paths.
            args_fd = seccomp.filter_fd(b"".join(o.encode() + b"\0" for o in options[1:]))
            argv += [options[0], "--args", str(args_fd), "--", *program.command]
            cwd = "/"
        else:
            argv += list(program.command)
            cwd = str(botdir)
        return subprocess.Popen(
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


def _abandon(slot: Slot | None, workdir: Path, botdir: Path) -> None:
    mounts.release_slot_dir(workdir, botdir, keep=slot is not None)
    if slot is not None:
        slot.release()
