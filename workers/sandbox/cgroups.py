"""Which control groups this worker can use for its bots, and where they live.

Every bot process tree runs in the control group of its slot: the kernel then
counts all of its memory (shared memory, memfd and tmpfs pages and kernel
objects included), caps its processes, measures its CPU time, weighs its CPU
share and kills all of it at once.  Nothing a bot starts can leave its group.

Layout, under the worker's own group in each hierarchy (so that the limits the
machine or container puts on the worker still hold for its bots)::

    <worker's group>/arbiter/slot-<uid>

``arbiter`` weighs ten ordinary groups in the CPU controller: the bot on move
(full weight inside it) keeps its CPU beside busy neighbours, while bots off
move are idle-weighted inside it and get only what nothing else wants.

cgroup v2 is used where it is mounted with the memory, pids and cpu
controllers available to the worker (delegated, in a container); otherwise
cgroup v1 with the memory, pids, cpu and cpuacct hierarchies (cpuset is used
when present).  Slot groups are made once and reused by each bot of the slot,
so a start costs a few writes, not a mkdir.  :func:`detect` says which one
applies or why none does; the sandbox then falls back to rlimits and sampling
(``docs/deploy.md``).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

GROUP_DIR = "arbiter"
# Where a v2 worker moves its own processes so that its group may have child groups with
# controllers (the "no internal processes" rule).
V2_WORKER_LEAF = "arbiter-worker"
V1_NEEDED = ("memory", "pids", "cpu", "cpuacct")
V2_NEEDED = ("memory", "pids", "cpu")
# The bots' group weighs this many ordinary processes (groups) against the rest of the worker's
# machine or container: a bot on move gets its CPU even beside busy neighbours (off-move bots are
# idle-weighted inside it, so this never lifts them).
BOTS_CPU_WEIGHT = 10


class CgroupError(OSError):
    """A control group could not be set up or used."""


class GroupBusyError(CgroupError):
    """A slot's group still counts processes after the kill: zombies nobody has reaped yet.

    Their parent (the subreaper a killed worker left them to) decides when they
    go; until then the slot is held back and another one is used.
    """


@dataclass(frozen=True)
class CgroupSupport:
    """What :func:`detect` found: the version in use and each controller's base directory."""

    version: int | None  # 1, 2, or None: no usable control groups
    reason: str  # a sentence for logs and /healthz: what is used, or why nothing is
    bases: dict[str, Path] = field(default_factory=dict)  # controller -> .../arbiter ("" for v2)
    cpuset: bool = False

    @property
    def usable(self) -> bool:
        """True when bots get a control group each."""
        return self.version is not None

    def describe(self) -> dict[str, object]:
        """A JSON-ready summary (for /healthz and the worker's start-up log)."""
        controllers = sorted(self.bases) if self.version == 1 else list(V2_NEEDED) if self.version else []
        if self.cpuset and self.version == 2:
            controllers.append("cpuset")
        return {"version": self.version, "controllers": controllers, "detail": self.reason}


def read_text(path: Path) -> str:
    """A control file's contents (empty when it cannot be read)."""
    try:
        return path.read_text()
    except OSError:
        return ""


def write_text(path: Path, value: str) -> None:
    """Write one value to a control file; CgroupError naming the file when the kernel refuses."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as exc:
        raise CgroupError(exc.errno, f"cannot open {path}: {exc.strerror}") from None
    try:
        os.write(fd, value.encode())
    except OSError as exc:
        raise CgroupError(exc.errno, f"cannot write {value!r} to {path}: {exc.strerror}") from None
    finally:
        os.close(fd)


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(mount root, mount point, fstype, super options) of every cgroup file system."""
    found = []
    for line in read_text(Path("/proc/self/mountinfo")).splitlines():
        left, _, right = line.partition(" - ")
        parts, rparts = left.split(), right.split()
        if len(parts) < 5 or len(rparts) < 3 or rparts[0] not in ("cgroup", "cgroup2"):
            continue
        point = parts[4].replace("\\040", " ")
        found.append((parts[3], point, rparts[0], set(rparts[2].split(","))))
    return found


def _own_paths(source: str = "/proc/self/cgroup") -> dict[str, str]:
    """This process's group per v1 controller, and under "" its v2 group (/proc/self/cgroup)."""
    paths = {}
    for line in read_text(Path(source)).splitlines():
        _hid, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


def _inside(mount_root: str, point: str, own: str) -> Path:
    """The directory of group ``own`` in a hierarchy mounted at ``point`` with root ``mount_root``.

    Inside a container without a cgroup namespace /proc/self/cgroup shows host paths while the
    mount shows only the container's part: then the mount point itself is the worker's group.
    """
    if own == mount_root or mount_root == "/":
        rel = own
    elif own.startswith(mount_root.rstrip("/") + "/"):
        rel = own[len(mount_root.rstrip("/")) :]
    else:
        return Path(point)
    candidate = Path(point) / rel.lstrip("/")
    return candidate if candidate.is_dir() else Path(point)


def _detect_v1() -> CgroupSupport:
    own = _own_paths()
    bases: dict[str, Path] = {}
    for name in (*V1_NEEDED, "cpuset"):
        mount = next((m for m in _mounts() if m[2] == "cgroup" and name in m[3]), None)
        if mount is None:
            if name == "cpuset":
                continue
            return CgroupSupport(None, f"cgroup v1: no {name} hierarchy is mounted")
        bases[name] = _inside(mount[0], mount[1], own.get(name, "/")) / GROUP_DIR
    try:
        for name in V1_NEEDED:
            bases[name].mkdir(exist_ok=True)
        with contextlib.suppress(CgroupError):  # always on (and read-only) on recent kernels
            write_text(bases["memory"] / "memory.use_hierarchy", "1")
        write_text(bases["cpu"] / "cpu.shares", str(1024 * BOTS_CPU_WEIGHT))
    except OSError as exc:
        return CgroupSupport(None, f"cgroup v1 is mounted but not writable here ({exc})")
    if "cpuset" in bases:
        try:
            bases["cpuset"].mkdir(exist_ok=True)
            _inherit_cpuset(bases["cpuset"])
        except OSError as exc:
            log.info("cgroup v1 cpuset unusable (%s): bots are pinned with sched_setaffinity only", exc)
            bases.pop("cpuset")
    cpuset = "cpuset" in bases
    listed = ", ".join(sorted(bases))
    return CgroupSupport(1, f"cgroup v1 ({listed}) under {bases['memory'].parent}", bases, cpuset)


def _inherit_cpuset(group: Path) -> None:
    """A new v1 cpuset group is empty: give it its parent's CPUs and memory nodes before use."""
    for name in ("cpuset.cpus", "cpuset.mems"):
        if not read_text(group / name).strip():
            write_text(group / name, read_text(group.parent / name).strip())


def _detect_v2() -> CgroupSupport:
    mount = next((m for m in _mounts() if m[2] == "cgroup2"), None)
    if mount is None:
        return CgroupSupport(None, "cgroup v2 is not mounted")
    own = _inside(mount[0], mount[1], _own_paths().get("", "/"))
    available = set(read_text(own / "cgroup.controllers").split())
    missing = [c for c in V2_NEEDED if c not in available]
    if missing:
        return CgroupSupport(None, f"cgroup v2 at {own} does not offer {', '.join(missing)} to this worker")
    wanted = [*V2_NEEDED, *(["cpuset"] if "cpuset" in available else [])]
    try:
        _v2_enable(own, wanted, is_root=own == Path(mount[1]))
        base = own / GROUP_DIR
        base.mkdir(exist_ok=True)
        _v2_enable(base, wanted, is_root=False)
        write_text(base / "cpu.weight", str(100 * BOTS_CPU_WEIGHT))
    except OSError as exc:
        return CgroupSupport(None, f"cgroup v2 at {own} is not delegated to this worker ({exc})")
    cpuset = "cpuset" in wanted
    return CgroupSupport(2, f"cgroup v2 ({', '.join(wanted)}) under {own}", {"": base}, cpuset)


def _v2_enable(group: Path, controllers: list[str], *, is_root: bool) -> None:
    """Enable ``controllers`` for the children of ``group``, first moving its processes to a leaf.

    Only the root group may hold processes and give controllers to children at once: a
    delegated group (a container's) has its processes moved into ``arbiter-worker``.
    """
    enabled = set(read_text(group / "cgroup.subtree_control").split())
    todo = [c for c in controllers if c not in enabled]
    if not todo:
        return
    if not is_root:
        leaf = group / V2_WORKER_LEAF
        leaf.mkdir(exist_ok=True)
        for _ in range(100):  # processes may fork while they are moved
            pids = read_text(group / "cgroup.procs").split()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, CgroupError):
                    write_text(leaf / "cgroup.procs", pid)
    write_text(group / "cgroup.subtree_control", " ".join(f"+{c}" for c in todo))


_detected: dict[str, CgroupSupport] = {}


def detect(mode: str = "auto") -> CgroupSupport:
    """The control groups this worker uses for bots (``mode``: auto, v1, v2 or off); cached.

    auto prefers v2 where it has every controller, then v1.  Only root (or a delegated v2
    group) can use them; without them bots run under rlimits and sampling only.
    """
    if mode in _detected:
        return _detected[mode]
    if mode == "off":
        found = CgroupSupport(None, "control groups are turned off (ARBITER_SANDBOX_CGROUPS=off)")
    elif mode == "v1":
        found = _detect_v1()
    elif mode == "v2":
        found = _detect_v2()
    else:
        v2 = _detect_v2()
        found = v2 if v2.usable else _detect_v1()
        if not found.usable:
            found = CgroupSupport(None, f"{v2.reason}; {found.reason}")
    if found.usable:
        log.info("sandbox control groups: %s", found.reason)
    else:
        log.warning("sandbox control groups unavailable: %s; bots get rlimits and sampling only", found.reason)
    _detected[mode] = found
    return found


def current_group(controller: str) -> Path | None:
    """The directory of the calling thread's group for a v1 ``controller`` ("" for v2), if mounted."""
    own = _own_paths("/proc/thread-self/cgroup").get(controller)
    kind = "cgroup2" if controller == "" else "cgroup"
    mount = next((m for m in _mounts() if m[2] == kind and (controller == "" or controller in m[3])), None)
    if own is None or mount is None:
        return None
    return _inside(mount[0], mount[1], own)


def group_name(uid: int) -> str:
    """The directory name of slot ``uid``'s group."""
    return f"slot-{uid}"


def is_missing(exc: OSError) -> bool:
    """True for errors meaning the process or group is already gone."""
    return exc.errno in (errno.ESRCH, errno.ENOENT)
