"""workers.sandbox.containers: a failed sandbox self-test in a container names the container option it lacks.

Each case is a fake root with the /proc files a worker container shows: what podman 4.3 and
Docker show with their default seccomp profile, masked /proc paths, a missing capability,
AppArmor, and a correctly configured worker.  (The real containers are exercised by
deploy/image-smoke.sh, which starts a worker without each option.)
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.ci import need
from workers.sandbox import containers, start

# CapEff of a worker with exactly deploy/docker-compose.yml's cap_add list.
WORKER_CAPS = sum(1 << bit for bit in containers.REQUIRED_CAPABILITIES.values())
PROC_MOUNTS = (
    "600 590 0:60 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
    "601 600 0:61 / /proc/kcore ro,nosuid - tmpfs tmpfs ro\n"
    "602 600 0:61 / /proc/keys ro,nosuid - tmpfs tmpfs ro\n"
    "603 600 0:60 /sys /proc/sys ro,relatime - proc proc rw\n"
)


def fake_root(
    tmp_path: Path,
    *,
    engine: str = "podman",
    seccomp: int = 0,
    masked: bool = False,
    caps: int = WORKER_CAPS,
    apparmor: str = "",
    userns: int = 15000,
) -> Path:
    root = tmp_path / "root"
    (root / "proc/self/attr").mkdir(parents=True)
    (root / "proc/1").mkdir()
    (root / "proc/sys/user").mkdir(parents=True)
    (root / "run").mkdir()
    if engine == "podman":
        (root / "run/.containerenv").write_text("engine=podman\n")
    elif engine == "docker":
        (root / ".dockerenv").write_text("")
    (root / "proc/1/environ").write_bytes(b"PATH=/usr/bin\0" + (b"container=podman\0" if engine == "podman" else b""))
    (root / "proc/1/cgroup").write_text("0::/\n" if engine != "docker" else "12:pids:/docker/abc123\n")
    (root / "proc/self/status").write_text(
        f"Name:\tpython\nCapEff:\t{caps:016x}\nCapBnd:\t{caps:016x}\nSeccomp:\t{seccomp}\nSeccomp_filters:\t{seccomp}\n"
    )
    mounts = "590 1 0:50 / / rw - overlay overlay rw\n"
    mounts += PROC_MOUNTS if masked else "600 590 0:60 / /proc rw,nosuid - proc proc rw\n"
    (root / "proc/self/mountinfo").write_text(mounts)
    (root / "proc/self/attr/current").write_text(apparmor)
    (root / "proc/sys/user/max_user_namespaces").write_text(f"{userns}\n")
    return root


def test_a_well_configured_worker_container_lacks_nothing(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    assert containers.in_container(root)
    assert containers.missing_options(root, euid=0) == []


def test_not_a_container(tmp_path: Path) -> None:
    root = fake_root(tmp_path, engine="none")
    assert not containers.in_container(root)
    reason = start.unavailable_reason(1, "bwrap: No permissions to creating new namespace", root)
    assert "install the Debian package `bubblewrap`" in reason and "container" not in reason


def test_default_seccomp_profile_names_seccomp_unconfined(tmp_path: Path) -> None:
    root = fake_root(tmp_path, seccomp=2)
    reason = start.unavailable_reason(1, "bwrap: Can't set hostname to arbiter: Operation not permitted\n", root)
    assert "in this container" in reason and "seccomp=unconfined" in reason
    assert "Can't set hostname" in reason  # what bwrap said is kept
    assert "systempaths" not in reason and "user namespaces" not in reason


def test_masked_proc_names_systempaths_unconfined(tmp_path: Path) -> None:
    root = fake_root(tmp_path, engine="docker", masked=True)
    assert containers.in_container(root)
    [only] = containers.missing_options(root, euid=0)
    assert "systempaths=unconfined" in only and "/proc/kcore" in only


def test_missing_capabilities_are_named(tmp_path: Path) -> None:
    caps = WORKER_CAPS & ~(1 << containers.REQUIRED_CAPABILITIES["SETUID"]) & ~(1 << 19)
    root = fake_root(tmp_path, caps=caps)
    [only] = containers.missing_options(root, euid=0)
    assert "SETUID" in only and "SYS_PTRACE" in only and "--cap-add SETUID,SYS_PTRACE" in only
    # A worker that does not run as root uses no capabilities (its bots share its uid).
    assert containers.missing_options(root, euid=10001) == []


def test_apparmor_and_user_namespaces(tmp_path: Path) -> None:
    root = fake_root(tmp_path, apparmor="docker-default (enforce)\n", userns=0)
    found = containers.missing_options(root, euid=0)
    assert any("apparmor=unconfined" in f and "docker-default" in f for f in found)
    assert any("user.max_user_namespaces" in f for f in found)
    assert containers.missing_options(fake_root(tmp_path / "u", apparmor="unconfined\n"), euid=0) == []


def test_everything_missing_at_once(tmp_path: Path) -> None:
    root = fake_root(tmp_path, seccomp=2, masked=True, caps=0)
    reason = start.unavailable_reason(1, "bwrap: Can't set hostname", root)
    for option in ("seccomp=unconfined", "systempaths=unconfined", "--cap-add SETUID,SETGID,KILL"):
        assert option in reason


def test_a_container_that_looks_right_still_points_at_the_docs(tmp_path: Path) -> None:
    reason = start.unavailable_reason(1, "bwrap: something new", fake_root(tmp_path))
    assert "docs/deploy.md" in reason and "something new" in reason


def test_bots_find_the_distributions_python_first(tmp_path: Path) -> None:
    # A python3 in /usr/local/bin, as python:3.11-slim has one, must not be the one bots run.
    local, usr = tmp_path / "usr/local/bin", tmp_path / "usr/bin"
    for folder in (local, usr):
        folder.mkdir(parents=True)
        (folder / "python3").write_text("#!/bin/sh\n")
        os.chmod(folder / "python3", 0o755)
    search = ":".join(str(tmp_path) + part for part in start.BOT_ENV["PATH"].split(":"))
    assert shutil.which("python3", path=search) == str(usr / "python3")


def test_this_machine_reads_without_errors() -> None:
    need(os.path.exists("/proc/self/mountinfo"), "needs Linux /proc")
    # On the real /proc nothing raises, whatever the answer.
    assert isinstance(containers.missing_options(), list)
    assert isinstance(containers.in_container(), bool)
