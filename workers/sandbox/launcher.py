"""Starting a launcher and handing it a bot: the slot's directory, the copy, the launch file, the gate.

A launcher (``workers.sandbox.command``) is started by :func:`spawn`, moved into its
slot's control group, and waits at its gate; :func:`hand_out` gives it a bot:
fresh ``/tmp`` and ``/dev/shm`` mounts, a copy of the bot, bubblewrap's
options, the launch file, the CPU, and then opens the gate.  ``workers.sandbox.warm``
keeps spawned launchers for later; ``workers.sandbox.start.start_bot`` uses both.
"""

from __future__ import annotations

import os
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


def spawn(
    plan: command.LaunchPlan, runtime: Path, slot: Slot | None, group: SlotGroup | None, nproc: int | None
) -> Launcher:
    """Start a launcher (it waits at its gate) and move it into ``group``."""
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
    launcher = Launcher(popen, slot, group, workdir, args_fd, seccomp_fd)
    if group is not None:
        try:
            group.attach(popen.pid)
        except BaseException:
            launcher.close()
            raise
    return launcher


def hand_out(
    launcher: Launcher,
    plan: command.LaunchPlan,
    program: BotProgram,
    cpu_seconds: int,
    cpu: int | None,
    empty: bool,
) -> BotProcess:
    """Give a waiting launcher its bot: the copy, the mounts, the launch file, the CPU; open the gate."""
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
    fd = os.open(workdir / "launch", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, plan.launch_file_text(argv, cwd).encode())
    finally:
        os.close(fd)
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
