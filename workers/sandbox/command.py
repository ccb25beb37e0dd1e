"""The command line that starts a bot, built once per worker and filled in per bot.

Everything that is the same for every bot (tool paths, bubblewrap's options,
the seccomp program, the static /proc files, what the host allows) is worked
out once per process and settings; a start only adds the slot, its directory,
the CPU limit and the bot's command.  The chain, all exec wrappers so nothing
runs in a forked copy of a threaded worker::

    sh -c 'read soft hard; ulimit ...; . LAUNCH_FILE'
      exec setpriv --reuid SLOT --regid SLOT --clear-groups --
        bwrap --args FD -- COMMAND

``sh`` (the launcher) waits for its first input line: the worker moves it into
the slot's control group and onto the match's CPU first, so that nothing the
bot ever starts is outside them.  Then it applies the rlimits and runs the
launch file the worker wrote for this bot, which execs ``setpriv``.  Because
the launcher's own command line says nothing about the bot, it can be started
and moved into its group ahead of time (``workers.sandbox.warm``): moving a process
between groups waits for an RCU grace period, which a waiting launcher has
already paid.
"""

from __future__ import annotations

import hashlib
import os
import resource
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import engines
from workers.sandbox import buildroot, procmask, seccomp
from workers.sandbox.cgroups import CgroupSupport, detect
from workers.sandbox.cpus import worker_cpus
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.mounts import VIEW_DIR, can_mount
from workers.sandbox.view import ViewContents

# Harmless parts of /etc that toolchains need (dynamic linker cache, alternatives symlinks; the
# JDK's configuration, which Debian's /usr/lib/jvm links to: javac stops without its java.security).
_ETC_WHITELIST = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime", "/etc/java-17-openjdk")
# The game engines, read-only, so bots may ``import engines`` to look ahead (PYTHONPATH in BOT_ENV).
# A worker plays with the engines it runs, so the bot sees the rules of the match's engine version.
ENGINES_DIR = Path(engines.__file__).resolve().parent
ENGINES_MOUNT = "/arbiter"
_SEARCH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
# What a sandbox built ahead runs inside until its bot is known: it says it is ready (one byte on
# the bot's stdout, read by the worker), waits for the command line (on the bot's stdin, read one
# byte at a time, so the bot gets the rest) and becomes the bot.  Everything before, from setpriv
# to the seccomp filter, was done while no match waited (``workers.sandbox.warm``).
INNER_GATE = 'printf . && read -r line || exit 125; eval "exec $line"'


class ToolMissingError(RuntimeError):
    """A program the sandbox needs is not installed (the message names the Debian package)."""


def tool(name: str, package: str) -> str:
    """The path of program ``name``; ToolMissingError naming ``package`` when it is missing."""
    path = shutil.which(name, path=_SEARCH)
    if path is None:
        raise ToolMissingError(f"{name} is not installed; install the Debian package `{package}`")
    return path


@dataclass(frozen=True)
class LaunchPlan:
    """What every bot start of one worker and one set of limits shares."""

    limits: SandboxLimits
    sandboxed: bool
    sh: str
    setpriv: str | None
    bwrap: str | None
    seccomp_program: bytes | None
    bwrap_head: tuple[str, ...]  # options before the per-bot ones
    cgroups: CgroupSupport
    own_tmpfs: bool  # /tmp, /dev/shm and the view mounted by the worker (tmpfs with inode caps)
    cpus: tuple[int, ...]
    view: ViewContents | None = None  # what each bot's view holds besides the bot (with own_tmpfs)

    def launcher_script(self, nproc: int | None, launch_file: Path) -> str:
        """The launcher's script: wait for the gate line, set the rlimits, run ``launch_file``.

        The gate line carries the CPU limits (soft, hard); ``launch_file``, written by the worker
        for each bot, execs the rest of the chain.  Limits above what the worker itself may have
        are lowered to that (a process may lower its hard limits but not raise them), so the
        script cannot fail half-way.
        """
        lim = self.limits
        wanted = [
            ("c", resource.RLIMIT_CORE, 0, 1),
            ("v", resource.RLIMIT_AS, (lim.address_space_mb or lim.memory_mb) << 20, 1024),
            ("n", resource.RLIMIT_NOFILE, lim.open_files, 1),
            ("f", resource.RLIMIT_FSIZE, lim.file_size_mb << 20, 512),
        ]
        if nproc is not None:
            wanted.append(("p", resource.RLIMIT_NPROC, nproc, 1))
        parts = ["read -r soft hard || exit 125"]
        for flag, which, value, unit in wanted:
            parts.append(f"ulimit -{flag} {_capped(which, value) // unit}")
        parts += ['ulimit -t "$hard"', 'ulimit -S -t "$soft"', f". {shlex.quote(str(launch_file))}"]
        return " && ".join(parts)

    @staticmethod
    def cpu_limits(cpu_seconds: int) -> tuple[int, int]:
        """A bot's CPU rlimits, soft and hard (one second more), within what the worker may give."""
        hard = _capped(resource.RLIMIT_CPU, cpu_seconds + 1)
        return min(cpu_seconds, hard), hard

    @staticmethod
    def gate_line(cpu_seconds: int) -> bytes:
        """What opens a launcher's gate: the bot's CPU limits, soft and hard (one second more)."""
        soft, hard = LaunchPlan.cpu_limits(cpu_seconds)
        return f"{soft} {hard}\n".encode()

    @staticmethod
    def inner_gate_line(command: tuple[str, ...]) -> bytes:
        """What opens the inner gate of a sandbox built ahead: the bot's command, quoted for sh."""
        return f"{shlex.join(command)}\n".encode()

    @staticmethod
    def launch_file_text(argv: list[str], cwd: str | None = None) -> str:
        """The launch file: (change directory and) exec ``argv``, every word quoted for sh."""
        prefix = f"cd {shlex.quote(cwd)} && " if cwd else ""
        return f"{prefix}exec {shlex.join(argv)}\n"

    def bwrap_options(
        self, workdir: Path, botdir: Path, seccomp_fd: int | None, *, writable: bool = False
    ) -> list[str]:
        """bubblewrap's options for one bot whose mounts are in ``workdir`` and copy in ``botdir``.

        ``writable``: a build, whose ``/bot``, ``/tmp`` and ``/dev/shm`` are the ones it mounted itself
        in the slot's directory (``workers.sandbox.buildroot``); ``botdir`` is then only its sources.
        """
        options = list(self.bwrap_head)
        if writable:
            options += [
                "--bind",
                str(workdir / buildroot.SHM),
                "/dev/shm",
                "--bind",
                str(workdir / buildroot.TMP),
                "/tmp",
            ]
        elif self.own_tmpfs:
            options += ["--bind", str(workdir / "shm"), "/dev/shm", "--bind", str(workdir / "tmp"), "/tmp"]
        else:
            options += ["--size", str(self.limits.shm_mb << 20), "--tmpfs", "/dev/shm"]
            options += ["--size", str(self.limits.tmp_mb << 20), "--tmpfs", "/tmp"]
        if self.own_tmpfs and self.view is not None:
            options += self.view.binds(workdir / VIEW_DIR)
        if writable:
            options += ["--bind", str(workdir / buildroot.BOT), "/bot", "--chdir", "/bot"]
        else:
            options += ["--ro-bind", str(botdir), "/bot", "--chdir", "/bot"]
        # bwrap's own root is a tmpfs the bot could otherwise fill without limit: freeze it last.
        options += ["--remount-ro", "/"]
        if seccomp_fd is not None:
            options += ["--seccomp", str(seccomp_fd)]
        return options


def _capped(which: int, value: int) -> int:
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _engines_copy(runtime: Path) -> Path:
    """The engines package copied under ``runtime``, which every slot uid can traverse.

    The checkout itself may sit where a slot uid cannot reach (a 0700 home or temp
    directory).  The copy is named by its content, so worker processes sharing the
    runtime directory share one copy, and a new version of the rules gets a new one.
    """
    sources = sorted(p for p in ENGINES_DIR.rglob("*.py") if "__pycache__" not in p.parts)
    digest = hashlib.sha256()
    for source in sources:
        digest.update(str(source.relative_to(ENGINES_DIR)).encode() + b"\0" + source.read_bytes() + b"\0")
    target = runtime / f"engines-{digest.hexdigest()[:16]}"
    if target.is_dir():
        return target
    staging = Path(tempfile.mkdtemp(prefix="engines-", dir=runtime))
    for source in sources:
        copy = staging / source.relative_to(ENGINES_DIR)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, copy)
        copy.chmod(0o644)
    for directory in [staging, *(d for d in staging.rglob("*") if d.is_dir())]:
        directory.chmod(0o755)
    try:
        staging.rename(target)
    except OSError:  # another worker process made the same copy first
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _bwrap_head(limits: SandboxLimits, bwrap: str, masks: list[str], engines_dir: Path | None) -> tuple[str, ...]:
    """What every bot's bwrap command starts with; ``masks`` and ``engines_dir``: binds from the worker's disk."""
    args = [
        bwrap,
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
    if engines_dir is not None:
        args += ["--ro-bind", str(engines_dir), f"{ENGINES_MOUNT}/engines"]
    args += ["--proc", "/proc", *masks, "--dev", "/dev", "--remount-ro", "/dev"]
    return tuple(args)


_plans: dict[tuple[SandboxLimits, bool, str, str], LaunchPlan] = {}


def plan(limits: SandboxLimits, sandboxed: bool, runtime: Path, bwrap_name: str = "bwrap") -> LaunchPlan:
    """The (cached) plan for ``limits``; ToolMissingError when a needed program is missing."""
    key = (limits, sandboxed, str(runtime), bwrap_name)
    cached = _plans.get(key)
    if cached is not None:
        return cached
    is_root = os.geteuid() == 0
    cgroups = detect(limits.cgroups if is_root else "off")
    cpus = tuple(worker_cpus())
    bwrap = tool(bwrap_name, "bubblewrap") if sandboxed else None
    program = None
    if sandboxed and limits.seccomp:
        program = seccomp.build_filter(shared_memory=limits.shared_memory)
    own_tmpfs = sandboxed and is_root and can_mount(runtime)
    cpu_count = 1 if limits.pin_cpu else len(cpus)
    if sandboxed:
        buildroot.install(runtime)  # with the plan, so that no build adds a file to the runtime directory
    view = None
    head: tuple[str, ...] = ()
    if bwrap and own_tmpfs:
        # Each bot's own view holds the engines and the /proc files (workers.sandbox.view).
        files = procmask.static_files(limits.memory_mb, cpu_count)
        view = ViewContents.of(_engines_copy(runtime), files, procmask.covered_dirs())
        head = _bwrap_head(limits, bwrap, [], None)
    elif bwrap:
        masks = procmask.prepare(runtime / "proc-view", limits.memory_mb, cpu_count)
        head = _bwrap_head(limits, bwrap, masks, _engines_copy(runtime))
    built = LaunchPlan(
        limits=limits,
        sandboxed=sandboxed,
        sh=tool("sh", "dash"),
        setpriv=tool("setpriv", "util-linux") if is_root else None,
        bwrap=bwrap,
        seccomp_program=program,
        bwrap_head=head,
        cgroups=cgroups,
        own_tmpfs=own_tmpfs,
        cpus=cpus,
        view=view,
    )
    _plans[key] = built
    return built


def forget() -> None:
    """Drop every cached plan (after a change of the host, or in tests)."""
    _plans.clear()
