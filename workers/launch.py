"""The command line that starts a bot, built once per worker and filled in per bot.

Everything that is the same for every bot (tool paths, bubblewrap's options,
the seccomp program, the static /proc files, what the host allows) is worked
out once per process and settings; a start only adds the slot, its directory,
the CPU limit and the bot's command.  The chain, all exec wrappers so nothing
runs in a forked copy of a threaded worker::

    sh -c 'read gate; ulimit ...; exec "$@"'
      setpriv --reuid SLOT --regid SLOT --clear-groups --
        bwrap --args FD -- COMMAND

``sh`` waits on its first input line: the worker moves it into the slot's
control group and onto the match's CPU first, so that nothing the bot ever
starts is outside them.  Then it applies the rlimits and becomes ``setpriv``.
"""

from __future__ import annotations

import os
import resource
import shutil
from dataclasses import dataclass
from pathlib import Path

from workers import procmask, seccomp
from workers.cgroups import CgroupSupport, detect
from workers.cpus import worker_cpus
from workers.limits import SandboxLimits
from workers.mounts import can_mount

# Harmless parts of /etc that toolchains need (dynamic linker cache, alternatives symlinks).
_ETC_WHITELIST = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime")
_SEARCH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
GATE = b"\n"  # what the worker writes to let the launcher go on


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
    own_tmpfs: bool  # /tmp and /dev/shm mounted by the worker, with inode caps
    cpus: tuple[int, ...]

    def rlimit_script(self, cpu_seconds: int, nproc: int | None) -> str:
        """The launcher's script: wait for the gate, set the rlimits, exec the rest of the chain.

        Limits above what the worker itself may have are lowered to that (a process may lower
        its hard limits but not raise them), so the script cannot fail half-way.
        """
        lim = self.limits
        wanted = [
            ("c", resource.RLIMIT_CORE, 0, 1),
            ("v", resource.RLIMIT_AS, lim.memory_mb << 20, 1024),
            ("n", resource.RLIMIT_NOFILE, lim.open_files, 1),
            ("f", resource.RLIMIT_FSIZE, lim.file_size_mb << 20, 512),
        ]
        if nproc is not None:
            wanted.append(("p", resource.RLIMIT_NPROC, nproc, 1))
        parts = ["read -r _ || exit 125"]
        for flag, which, value, unit in wanted:
            parts.append(f"ulimit -{flag} {_capped(which, value) // unit}")
        hard_cpu = _capped(resource.RLIMIT_CPU, cpu_seconds + 1)
        parts += [f"ulimit -t {hard_cpu}", f"ulimit -S -t {min(cpu_seconds, hard_cpu)}", 'exec "$@"']
        return " && ".join(parts)

    def bwrap_options(self, workdir: Path, botdir: Path, seccomp_fd: int | None) -> list[str]:
        """bubblewrap's options for one bot whose mounts are in ``workdir`` and copy in ``botdir``."""
        options = list(self.bwrap_head)
        if self.own_tmpfs:
            options += ["--bind", str(workdir / "shm"), "/dev/shm", "--bind", str(workdir / "tmp"), "/tmp"]
        else:
            options += ["--size", str(self.limits.shm_mb << 20), "--tmpfs", "/dev/shm"]
            options += ["--size", str(self.limits.tmp_mb << 20), "--tmpfs", "/tmp"]
        options += ["--ro-bind", str(botdir), "/bot", "--chdir", "/bot"]
        # bwrap's own root is a tmpfs the bot could otherwise fill without limit: freeze it last.
        options += ["--remount-ro", "/"]
        if seccomp_fd is not None:
            options += ["--seccomp", str(seccomp_fd)]
        return options


def _capped(which: int, value: int) -> int:
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _bwrap_head(limits: SandboxLimits, bwrap: str, masks: list[str]) -> tuple[str, ...]:
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
    masks: list[str] = []
    if sandboxed:
        masks = procmask.prepare(runtime / "proc-view", limits.memory_mb, 1 if limits.pin_cpu else len(cpus))
    built = LaunchPlan(
        limits=limits,
        sandboxed=sandboxed,
        sh=tool("sh", "dash"),
        setpriv=tool("setpriv", "util-linux") if is_root else None,
        bwrap=bwrap,
        seccomp_program=program,
        bwrap_head=_bwrap_head(limits, bwrap, masks) if bwrap else (),
        cgroups=cgroups,
        own_tmpfs=sandboxed and is_root and can_mount(runtime),
        cpus=cpus,
    )
    _plans[key] = built
    return built


def forget() -> None:
    """Drop every cached plan (after a change of the host, or in tests)."""
    _plans.clear()
