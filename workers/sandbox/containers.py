"""Why the sandbox cannot start inside a container: which container option is missing.

bubblewrap's own errors inside a badly configured container ("Can't set hostname",
"Can't mount proc", setpriv's "setresuid failed") point at the wrong cure (install
bubblewrap, enable user namespaces).  The real causes can be read from ``/proc`` without
starting anything, so :func:`missing_options` reads them and names the option that lifts
each one, in the spelling of a compose file and of ``docker run`` / ``podman run``.  It is
only consulted after the sandbox's self-test has failed; ``docs/deploy.md`` explains every
option.  Pure file reads, no Django, so the worker and ``deploy/`` scripts can use it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["REQUIRED_CAPABILITIES", "in_container", "missing_options"]

# Capabilities the worker uses when it runs as root (deploy/docker-compose.yml, cap_add).
REQUIRED_CAPABILITIES = {
    "SETUID": 7,
    "SETGID": 6,
    "KILL": 5,
    "SYS_NICE": 23,
    "SYS_PTRACE": 19,
    "DAC_OVERRIDE": 1,
}
# Runtimes and orchestrators that set `container=` in their init's environment.
_CONTAINER_CGROUP_WORDS = ("docker", "libpod", "podman", "kubepods", "containerd", "crio", "lxc")


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def in_container(root: Path = Path("/")) -> bool:
    """Whether this process runs in a container (Docker, podman, Kubernetes, LXC, nspawn)."""
    if (root / ".dockerenv").exists() or (root / "run/.containerenv").exists():
        return True
    proc = root / "proc"
    try:
        environ = (proc / "1/environ").read_bytes()
    except OSError:
        environ = b""
    if any(item.startswith(b"container=") for item in environ.split(b"\0")):
        return True
    cgroups = _read(proc / "1/cgroup")
    return any(word in cgroups for word in _CONTAINER_CGROUP_WORDS)


def _status_fields(proc: Path) -> dict[str, str]:
    fields = {}
    for line in _read(proc / "self/status").splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def _masked_proc_paths(proc: Path) -> list[str]:
    """Mount points below /proc: engines hide parts of it that way (``/proc/kcore``, ``/proc/keys``...)."""
    found = []
    for line in _read(proc / "self/mountinfo").splitlines():
        parts = line.split()
        if len(parts) > 4 and parts[4].startswith("/proc/"):
            found.append(parts[4])
    return found


def missing_options(root: Path = Path("/"), euid: int | None = None) -> list[str]:
    """What this container lacks for bubblewrap, one sentence per missing option ([] if nothing is seen).

    ``root`` is where ``/proc`` is read from (tests pass a fake tree), ``euid`` the worker's
    effective uid (the capabilities matter only to a worker that runs as root, as it should).
    """
    proc = root / "proc"
    euid = os.geteuid() if euid is None else euid
    status = _status_fields(proc)
    found = []
    if status.get("Seccomp", "0") not in ("", "0"):
        # The engines' default profiles allow the namespace and mount calls bwrap makes only to
        # containers with CAP_SYS_ADMIN; bwrap then fails at the first of them.
        found.append(
            "a seccomp filter confines the container: security_opt seccomp=unconfined "
            "(run: --security-opt seccomp=unconfined), or the profile described in docs/deploy.md"
        )
    masked = _masked_proc_paths(proc)
    if masked:
        # The kernel refuses a fresh procfs in a new user namespace while parts of /proc are hidden.
        shown = ", ".join(masked[:3]) + (", ..." if len(masked) > 3 else "")
        found.append(
            f"parts of /proc are masked ({shown}): security_opt systempaths=unconfined "
            "(run: --security-opt systempaths=unconfined)"
        )
    apparmor = (_read(proc / "self/attr/apparmor/current") or _read(proc / "self/attr/current")).strip()
    if apparmor and not apparmor.startswith("unconfined"):
        found.append(
            f"AppArmor profile {apparmor.split()[0]!r} denies mount: security_opt apparmor=unconfined "
            "(run: --security-opt apparmor=unconfined)"
        )
    if euid == 0:
        try:
            effective = int(status.get("CapEff", "0"), 16)
        except ValueError:
            effective = 0
        lacking = [name for name, bit in REQUIRED_CAPABILITIES.items() if not effective >> bit & 1]
        if lacking:
            found.append(
                f"capabilities {', '.join(lacking)} are missing: cap_add them (run: --cap-add {','.join(lacking)})"
            )
    if _read(proc / "sys/user/max_user_namespaces").strip() == "0":
        found.append("the host kernel allows no user namespaces: set user.max_user_namespaces above 0 on the host")
    return found
