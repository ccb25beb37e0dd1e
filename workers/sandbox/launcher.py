"""Starting a launcher and handing it a bot: the slot's directory, the copy, the launch file, the gate.

A launcher (``workers.sandbox.command``) is started by :func:`spawn`, moved into its
slot's control group, and waits at its gate; :func:`hand_out` gives it a bot:
fresh ``/tmp`` and ``/dev/shm`` mounts, a copy of the bot, bubblewrap's
options, the launch file, the CPU, and then opens the gate.  ``workers.sandbox.warm``
keeps spawned launchers for later; ``workers.sandbox.start.start_bot`` uses both.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import shutil
import stat
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from workers.sandbox import buildroot, command, mounts, seccomp, view
from workers.sandbox.group import SlotGroup
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.process import BotProcess
from workers.sandbox.slots import Slot
from workers.sandbox.warm import Launcher

# The only environment a bot (and bwrap itself) ever sees: nothing of the worker's.
# /usr/bin comes first so that `python3` is the distribution's (docs/bots.md), even where an image
# (such as python:3.11-slim) or an administrator put another one in /usr/local/bin.
BOT_ENV = {
    "PATH": "/usr/bin:/bin:/usr/local/bin",
    "LANG": "C.UTF-8",
    "HOME": "/tmp",
    "PYTHONPATH": command.ENGINES_MOUNT,
}


def bot_env(sandboxed: bool) -> dict[str, str]:
    """A bot's whole environment; unsandboxed (trusted bots only) the engines are found where they are."""
    env = dict(BOT_ENV)
    if not sandboxed:
        env["PYTHONPATH"] = str(command.ENGINES_DIR.parent)
    return env


@dataclass(frozen=True)
class BotProgram:
    """A bot ready to run: its unpacked files and the argv to run inside them.

    ``writable``: a build, never a bot: its ``/bot``, ``/tmp`` and ``/dev/shm`` are tmpfs mounts
    with caps that it makes in a user namespace of its own (``workers.sandbox.buildroot``), its
    ``/bot`` a writable copy of ``directory``, handed over at the Unix socket ``handoff``.
    """

    directory: Path
    command: tuple[str, ...]
    writable: bool = False
    handoff: str = ""


def copy_bot(source: Path, dest: Path, *, into: bool = False) -> None:
    """Copy the bot's regular files and directories into ``dest``, readable but not writable by a slot.

    Symbolic links are copied as links (they resolve inside the sandbox, never on the host);
    devices, fifos and sockets are skipped.  ``into``: ``dest`` exists already (and is empty).
    """
    # List everything before copying: the destination may lie inside the source.
    tree = list(os.walk(source))
    if not into:
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


def can_build_ahead(plan: command.LaunchPlan) -> bool:
    """Whether launchers of ``plan`` can build their sandbox before their bot is known.

    Where the worker mounts each bot's file systems itself, with slot uids and control
    groups: the view's ``bot`` directory is bound empty and filled at the bot's start.
    """
    return (
        plan.sandboxed
        and plan.own_tmpfs
        and plan.view is not None
        and plan.cgroups.usable
        # Its processes run as the slot's uid by then: only the group's cpuset can still pin them.
        and (plan.cgroups.cpuset or not plan.limits.pin_cpu)
        and plan.setpriv is not None
        and plan.sh.startswith("/usr/")  # the inner gate runs it inside the sandbox
    )


def fits_ahead(program: BotProgram) -> bool:
    """Whether ``program`` can start in a sandbox built ahead: a read-only ``/bot``, a one-line command."""
    return not program.writable and not any("\n" in word or "\0" in word for word in program.command)


def spawn(
    plan: command.LaunchPlan,
    runtime: Path,
    slot: Slot | None,
    group: SlotGroup | None,
    nproc: int | None,
    *,
    ahead: bool = False,
    cpu_seconds: int = 0,
) -> Launcher:
    """Start a launcher and move it into ``group``: it waits at its gate, or with ``ahead`` builds
    its whole sandbox, with the CPU rlimits of ``cpu_seconds``, and waits at the inner gate (slot
    and group required).

    Those rlimits are set before the sandbox is built because nothing can set them afterwards:
    the seccomp filter forbids it inside, and from outside ``prlimit`` on another uid's process
    needs CAP_SYS_RESOURCE, which containers often drop.  So a launcher built ahead serves only
    bots with the same CPU limit (``workers.sandbox.warm`` keys its pool by it).
    """
    # A slot's directory lives at a fixed path, kept between bots: only the holder of the slot's
    # lock touches it.  Each bot gets its own fresh copy in it.
    workdir = runtime / (f"slot-{slot.uid}" if slot is not None else f"bot-{uuid.uuid4().hex}")
    try:
        os.mkdir(workdir, 0o711)
    except FileExistsError:
        pass
    else:  # once per slot: the mount points a build in it needs (a bot's are made as it starts)
        buildroot.make_mount_points(workdir)
    seccomp_fd = args_fd = None
    try:
        if plan.sandboxed:
            if plan.seccomp_program is not None:
                seccomp_fd = seccomp.filter_fd(plan.seccomp_program)
            args_fd = seccomp.filter_fd(b"")
        if ahead:
            assert slot is not None and group is not None
            _prepare_ahead(plan, workdir, slot, seccomp_fd, args_fd)
        popen = subprocess.Popen(
            [plan.sh, "-c", plan.launcher_script(nproc, workdir / "launch"), "sh"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd="/",
            env=bot_env(plan.sandboxed),
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
    launcher = Launcher(popen, slot, group, workdir, args_fd, seccomp_fd, ahead, cpu_seconds if ahead else None)
    if group is not None:
        try:
            group.attach(popen.pid)
            if ahead:  # in its group: go on and build the sandbox (its bwrap options are in the memfd)
                os.write(popen.stdin.fileno(), plan.gate_line(cpu_seconds))  # type: ignore[union-attr]
                os.close(args_fd)  # type: ignore[arg-type]
                launcher.args_fd = None
        except BaseException:
            launcher.close()
            raise
    return launcher


def _prepare_ahead(
    plan: command.LaunchPlan, workdir: Path, slot: Slot, seccomp_fd: int | None, args_fd: int | None
) -> None:
    """Fresh mounts with an empty view for a bot not known yet, bubblewrap's options, the launch file."""
    limits = plan.limits
    assert plan.view is not None and args_fd is not None and plan.setpriv is not None
    sizes = {"tmp": limits.tmp_mb << 20, "shm": limits.shm_mb << 20}
    mounts.prepare_slot_dir(workdir, sizes, limits.tmp_inodes, slot.uid)
    botdir = view.make_view(workdir / mounts.VIEW_DIR, plan.view, view.Footprint())
    os.mkdir(botdir, 0o755)
    os.chmod(botdir, 0o755)  # the worker's umask must not hide it from the bot
    options = plan.bwrap_options(workdir, botdir, seccomp_fd)
    os.pwrite(args_fd, b"".join(o.encode() + b"\0" for o in options[1:]), 0)
    argv = [plan.setpriv, "--reuid", str(slot.uid), "--regid", str(slot.uid), "--clear-groups", "--"]
    argv += [options[0], "--args", str(args_fd), "--", plan.sh, "-c", command.INNER_GATE, "sh"]
    _write_launch_file(workdir, plan.launch_file_text(argv))


def _write_launch_file(workdir: Path, text: str) -> None:
    fd = os.open(workdir / "launch", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def hand_out(
    launcher: Launcher,
    plan: command.LaunchPlan,
    program: BotProgram,
    cpu_seconds: int,
    cpu: int | None,
    empty: bool,
) -> BotProcess:
    """Give a waiting launcher its bot: the copy, the mounts, the launch file, the CPU; open the gate."""
    if launcher.ahead:
        return _hand_out_ahead(launcher, plan, program, cpu_seconds, cpu)
    slot, workdir = launcher.slot, launcher.workdir
    # In the bot's view where the worker mounts one, else a fresh copy on disk.
    own = _own_mounts(plan, slot)
    botdir = workdir / mounts.VIEW_DIR / "bot" if own else workdir / f"bot-{uuid.uuid4().hex[:12]}"
    try:
        _write_launch(launcher, plan, program, botdir, empty)
        if launcher.group is not None:
            launcher.group.start(cpu if plan.cgroups.cpuset else None)
        if cpu is not None:
            os.sched_setaffinity(launcher.popen.pid, {cpu})
    except BaseException:
        mounts.release_slot_dir(workdir, botdir, keep=slot is not None)
        raise
    return _open_gate(launcher, plan, botdir, plan.gate_line(cpu_seconds))


def _open_gate(launcher: Launcher, plan: command.LaunchPlan, botdir: Path, line: bytes) -> BotProcess:
    """The started bot: its launcher's gate opened with ``line``; a gate that will not open ends it."""
    proc = BotProcess(launcher.popen, launcher.slot, launcher.workdir, plan.sandboxed, plan.limits.memory_mb,
                      launcher.group, plan.seccomp_program is not None, botdir)  # fmt: skip
    try:
        os.write(launcher.popen.stdin.fileno(), line)  # type: ignore[union-attr]
    except OSError:
        launcher.slot = None  # the bot's cleanup gives it back (or holds it back)
        proc.kill()
        proc.cleanup()
        raise
    return proc


def _write_launch(launcher: Launcher, plan: command.LaunchPlan, program: BotProgram, botdir: Path, empty: bool) -> None:
    """The copy and mounts, bubblewrap's options (into the launcher's memfd) and the launch file."""
    slot, workdir = launcher.slot, launcher.workdir
    _make_workdir(workdir, botdir, program, plan, slot, empty)
    argv: list[str] = []
    if slot is not None and plan.setpriv:
        argv += [plan.setpriv, "--reuid", str(slot.uid), "--regid", str(slot.uid), "--clear-groups", "--"]
    cwd = None
    if plan.sandboxed and program.writable:
        argv += _build_child(workdir, botdir, program, plan.limits)
    if plan.sandboxed:
        options = plan.bwrap_options(workdir, botdir, launcher.seccomp_fd, writable=program.writable)
        # Options go through a file descriptor (--args): the bot can read its init's
        # /proc/1/cmdline, which then shows no host paths.
        assert launcher.args_fd is not None
        os.pwrite(launcher.args_fd, b"".join(o.encode() + b"\0" for o in options[1:]), 0)
        argv += [options[0], "--args", str(launcher.args_fd), "--", *program.command]
    else:
        argv += list(program.command)
        cwd = str(botdir)
    _write_launch_file(workdir, plan.launch_file_text(argv, cwd))
    if launcher.args_fd is not None:  # the launcher has its own copy
        os.close(launcher.args_fd)
        launcher.args_fd = None


def _own_mounts(plan: command.LaunchPlan, slot: Slot | None) -> bool:
    """Whether the bot's /tmp, /dev/shm and view are tmpfs mounts of its own (else: --tmpfs, and its copy on disk)."""
    return plan.own_tmpfs and plan.view is not None and slot is not None


def _make_workdir(
    workdir: Path, botdir: Path, program: BotProgram, plan: command.LaunchPlan, slot: Slot | None, empty: bool
) -> None:
    """Fresh /tmp, /dev/shm and view mounts in the slot's directory (where the worker may mount), and the copy."""
    limits = plan.limits
    own = _own_mounts(plan, slot)
    # A build mounts its own /tmp and /dev/shm (workers.sandbox.buildroot); the worker makes their mount points.
    sizes = {"tmp": limits.tmp_mb << 20, "shm": limits.shm_mb << 20} if own and not program.writable else None
    mounts.prepare_slot_dir(workdir, sizes, limits.tmp_inodes, slot.uid if slot is not None else os.geteuid())
    if program.writable:
        buildroot.make_mount_points(workdir)  # a slot directory made before they were
    if own and plan.view is not None:
        need = view.Footprint() if empty else view.footprint(Path(program.directory))
        view.make_view(workdir / mounts.VIEW_DIR, plan.view, need)
    if empty:
        os.mkdir(botdir, 0o755)
    else:
        copy_bot(Path(program.directory), botdir)


def _build_child(workdir: Path, botdir: Path, program: BotProgram, limits: SandboxLimits) -> list[str]:
    """The command that gives a build its capped file systems, before bubblewrap's (``workers.sandbox.buildroot``).

    ``/bot`` holds the copy (``botdir``, read by the slot's uid) plus the build's room.
    """
    copy = view.footprint(botdir)
    sizes = {
        buildroot.BOT: (copy.size + (limits.bot_room_mb << 20) + (1 << 20), copy.inodes + limits.bot_files + 64),
        buildroot.TMP: (limits.tmp_mb << 20, limits.tmp_inodes),
        buildroot.SHM: (limits.shm_mb << 20, limits.tmp_inodes),
    }
    python = os.path.realpath(sys.executable)
    return buildroot.child_argv(python, workdir, botdir, program.handoff, sizes)


# How long a bot's start waits for a sandbox built ahead to say it is ready (it usually is).
READY_WAIT_S = 30.0


def _hand_out_ahead(
    launcher: Launcher, plan: command.LaunchPlan, program: BotProgram, cpu_seconds: int, cpu: int | None
) -> BotProcess:
    """Give a sandbox built ahead its bot: the copy into its view, its counters and CPU; open the gate."""
    slot, group, workdir = launcher.slot, launcher.group, launcher.workdir
    assert slot is not None and group is not None and plan.view is not None
    botdir = workdir / mounts.VIEW_DIR / "bot"
    if launcher.cpu_seconds != cpu_seconds:
        raise OSError(
            errno.EINVAL, f"a sandbox built for {launcher.cpu_seconds} s of CPU cannot run a bot of {cpu_seconds} s"
        )
    if cpu is not None and not plan.cgroups.cpuset:
        raise OSError(errno.EINVAL, "a sandbox built ahead can only be pinned by its group's cpuset")
    try:
        _wait_ready(launcher)
        view.resize_view(workdir / mounts.VIEW_DIR, plan.view, view.footprint(Path(program.directory)))
        copy_bot(Path(program.directory), botdir, into=True)
        # The group's cpuset moves every process of the sandbox (the bot to be) onto the match's CPU.
        group.start(cpu)
    except BaseException:
        mounts.release_slot_dir(workdir, botdir, keep=True)
        raise
    return _open_gate(launcher, plan, botdir, plan.inner_gate_line(program.command))


def _wait_ready(launcher: Launcher) -> None:
    """Read the byte the inner gate writes once the sandbox is built; OSError if it never comes."""
    fd = launcher.popen.stdout.fileno()  # type: ignore[union-attr]
    if not select.select([fd], [], [], READY_WAIT_S)[0]:
        raise OSError(errno.ETIMEDOUT, f"a sandbox built ahead was not ready within {READY_WAIT_S:g} s")
    if os.read(fd, 1) != b".":
        err = b""
        with contextlib.suppress(OSError):
            os.set_blocking(launcher.popen.stderr.fileno(), False)  # type: ignore[union-attr]
            err = os.read(launcher.popen.stderr.fileno(), 4096)  # type: ignore[union-attr]
        raise OSError(errno.EIO, f"a sandbox built ahead failed: {err.decode(errors='replace').strip()[:500]}")
