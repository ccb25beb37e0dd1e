"""Starting one bot in a bubblewrap sandbox, measuring it, and killing all of it.

Each running bot gets a slot: an unprivileged uid/gid (``first_uid + n``) that
no other bot uses at the same time, locked machine-wide (``workers.sandbox.slots``),
and that slot's control group (``workers.sandbox.group``), which holds every
process the bot ever starts.  The launch chain (``workers.sandbox.command``) is::

    sh (gate, rlimits) -> setpriv --reuid SLOT -> bwrap --unshare-all ... --seccomp FD -> COMMAND

The worker moves the first process into the slot's control group and onto the
match's CPU before it may go on, so nothing escapes either.  Where the worker
mounts each bot's file systems itself, the chain is run before the bot is
known, up to a gate inside the sandbox (``command.INNER_GATE``): the bot's
start then copies it into the view, puts the sandbox on the match's CPU and
sends the gate the bot's command (its CPU rlimits were set before, for the
limit of the bots it may serve).  ``bwrap`` then
builds an unprivileged user namespace with no network, a read-only ``/usr``,
the bot's own read-only copy at ``/bot``, small ``/tmp`` and ``/dev/shm``
(mounted by the worker with an inode cap where it may mount), a fresh
``/proc`` whose host-wide counters are replaced by static files, and no
``/etc``, ``/home``, ``/root``, project files or sockets.  Where the worker
may mount, everything bound from it lives on a tmpfs of the bot's own
(``workers.sandbox.view``), so the bot's mount table names no path of the worker.

:func:`capabilities` reports what this host allows (control groups, inode
caps, seccomp) and what falls back; ``/healthz`` and the worker's start-up
log show it.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from workers.sandbox import command, containers, launcher, slots, warm
from workers.sandbox.group import SlotGroup, prime_migration, slot_group
from workers.sandbox.launcher import BOT_ENV, BotProgram, copy_bot
from workers.sandbox.process import BotProcess
from workers.sandbox.runtimes import program_limits, runtimes_report

__all__ = [
    "BOT_ENV",
    "BotProgram",
    "capabilities",
    "copy_bot",
    "report_at_start",
    "sandbox_available",
    "start_bot",
]
from workers.sandbox.cgroups import CgroupError, GroupBusyError, detect
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.slots import (
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


class InfrastructureError(RuntimeError):
    """The service's fault (sandbox could not start, no free slot...): not a forfeit; re-run the match."""


class SandboxUnavailableError(InfrastructureError):
    """bubblewrap (or util-linux) is missing or cannot create a sandbox on this machine."""


class SlotRangeConflictError(SandboxUnavailableError):
    """This installation's slot uids overlap another's on this machine: it must not run bots."""


class ExternalKillError(InfrastructureError):
    """A bot was killed (or its memory taken) by something outside the sandbox, not by its own doing.

    The attempt says nothing about the bots: the service runs the match again and never rates it.
    """

    def __init__(self, seat: int, detail: str) -> None:
        super().__init__(f"seat {seat}: {detail}")
        self.seat, self.detail = seat, detail


class ExternalStopError(ExternalKillError):
    """A bot stayed stopped (SIGSTOP, a tracer) from outside its sandbox for longer than its bound.

    Under the seccomp filter a bot cannot stop itself; the stopped time was never charged to
    it, and past ``SandboxLimits.stopped_s`` the match is given up and run again, never rated.
    """


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
        raise SandboxUnavailableError(unavailable_reason(code, err))
    _checked[key] = None


def capabilities(limits: SandboxLimits) -> dict[str, Any]:
    """What this worker's sandbox has and lacks, JSON-ready (for /healthz and the start-up log).

    Runs the self-test (remembered once passed).  ``gaps`` lists, in words, every protection
    that falls back to something weaker here; empty on a fully equipped host.
    """
    sandboxed = sandbox_available(limits)
    runtime = ensure_private_dir(limits.runtime_path())
    plan = command.plan(limits, sandboxed, runtime, BWRAP)
    gaps = []
    if not sandboxed:
        gaps.append("no bubblewrap: bots run unsandboxed (ARBITER_ALLOW_UNSANDBOXED)")
    if os.geteuid() != 0:
        gaps.append("not root: no slot uids, no control groups; bots share the worker's uid")
    if not plan.cgroups.usable:
        gaps.append(f"no control groups ({plan.cgroups.reason}): memory is limited per process and by sampling, "
                    "off-move bots are reniced, the clock sums /proc")  # fmt: skip
    if not plan.own_tmpfs:
        gaps.append("no inode cap on the bots' /tmp and /dev/shm, and their mount tables show the worker's paths "
                    "(the worker may not mount)")  # fmt: skip
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
        "runtimes": runtimes_report(),
        "gaps": gaps,
    }


def report_at_start(limits: SandboxLimits) -> dict[str, Any]:
    """Log what this worker's sandbox has and lacks; raise SlotRangeConflictError to refuse to start.

    For a worker's start (``workers.celery_app``): every missing protection is a warning
    naming what falls back; a uid range that collides with another installation's is fatal.
    """
    try:
        caps = capabilities(limits)
    except SlotRangeConflictError:
        raise
    except InfrastructureError as exc:
        log.error("the bot sandbox cannot start on this worker: %s", exc)
        return {"sandbox": "unavailable", "error": str(exc)}
    log.info("bot sandbox: %s, control groups: %s", caps["sandbox"], caps["cgroups"]["detail"])
    for gap in caps["gaps"]:
        log.warning("bot sandbox runs without a protection: %s", gap)
    return caps


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
    # A runtime's quirk (Go's reserved address space) starts its own launcher, never a warm one.
    own = program_limits(program, limits)
    special, limits = own != limits, own
    # The sandbox's init often outlives bwrap: as a subreaper we reap it at once, where the
    # machine's init might take its time (and the slot waits for it to be gone).
    become_subreaper()
    try:
        runtime = ensure_private_dir(limits.runtime_path())
        plan = command.plan(limits, sandboxed, runtime, BWRAP)
    except command.ToolMissingError as exc:
        raise SandboxUnavailableError(str(exc)) from None
    except OSError as exc:
        raise InfrastructureError(f"sandbox runtime directory unusable: {exc}") from exc
    warm_ok = os.geteuid() == 0 and plan.cgroups.usable and not special
    # A sandbox built before its bot is known, where the host allows it and the bot fits one
    # (a build's writable /bot and the self-test's empty one do not: they start the old way).
    ahead = launcher.can_build_ahead(plan) and not special
    fits = launcher.fits_ahead(program) and not _empty
    # Sandboxes built ahead have their CPU rlimits already: they serve bots of that limit only.
    key = (limits, sandboxed, str(runtime), BWRAP, cpu_seconds if ahead else None)
    ready = warm.take(key) if warm_ok and (fits or not ahead) else None
    if ready is None:
        ready = _cold_launcher(plan, runtime, limits, ahead=ahead and fits, cpu_seconds=cpu_seconds)
    try:
        proc = launcher.hand_out(ready, plan, program, cpu_seconds, cpu, _empty)
    except (OSError, CgroupError) as exc:
        ready.close()
        raise InfrastructureError(f"could not start a bot: {exc}") from exc
    if warm_ok and not _empty:  # not for the self-test (a process that may never play)
        warm.refill(key, limits.warm, lambda: _warm_launcher(plan, runtime, limits, ahead, cpu_seconds))
    return proc


def _cold_launcher(
    plan: command.LaunchPlan, runtime: Path, limits: SandboxLimits, *, ahead: bool, cpu_seconds: int
) -> warm.Launcher:
    """A launcher started now: slot, group (moved into it while other work goes on), process."""
    slot, group = _acquire(plan, limits) if os.geteuid() == 0 else (None, None)
    try:
        nproc = None
        if slot is not None and group is None:
            nproc = limits.processes  # RLIMIT_NPROC counts every task of the real uid: one uid per bot
        elif slot is None and os.geteuid() != 0:
            # Without slot uids the bot shares the worker's uid: allow what already runs plus the limit.
            nproc = tasks_of_uid(os.getuid()) + limits.processes
        return launcher.spawn(
            plan, runtime, slot, group, nproc, ahead=ahead and group is not None, cpu_seconds=cpu_seconds
        )
    except (OSError, CgroupError) as exc:
        if slot is not None:
            slot.release()
        raise InfrastructureError(f"could not start a bot: {exc}") from exc


def _slot_and_group(plan: command.LaunchPlan, limits: SandboxLimits, *, wait_s: float) -> tuple[Slot, SlotGroup | None]:
    """A free slot with its control group emptied and set (no group without control groups).

    A group that will not empty holds zombies only their parent can reap (the
    launchers of a worker killed mid-match, left to a subreaper): that slot is
    held back until they go and the next free one is tried, so a leftover of
    someone else's crash never fails a match.
    """
    for _ in range(limits.slots):
        slot = acquire_slot(limits.lock_path(), limits.first_uid, limits.slots, wait_s=wait_s)
        if not plan.cgroups.usable:
            return slot, None
        group = slot_group(plan.cgroups, slot.uid)
        try:
            group.prepare(limits.memory_mb << 20, limits.processes)
        except GroupBusyError:
            slots.quarantine(slot, group.empty)
            continue
        except BaseException:
            slot.release()
            raise
        return slot, group
    raise NoFreeSlotError(f"every sandbox slot from uid {limits.first_uid} is held back or busy")


def _warm_launcher(
    plan: command.LaunchPlan, runtime: Path, limits: SandboxLimits, ahead: bool, cpu_seconds: int
) -> warm.Launcher | None:
    """A launcher for later, in a slot free right now (None when there is none); ``ahead``: its sandbox built."""
    try:
        slot, group = _slot_and_group(plan, limits, wait_s=0)
    except NoFreeSlotError:
        return None
    try:
        return launcher.spawn(
            plan, runtime, slot, group, None, ahead=ahead and group is not None, cpu_seconds=cpu_seconds
        )
    except BaseException:
        slot.release()
        raise


def _acquire(plan: command.LaunchPlan, limits: SandboxLimits) -> tuple[Slot, SlotGroup | None]:
    if plan.cgroups.usable:
        prime_migration(plan.cgroups)
    try:
        return _slot_and_group(plan, limits, wait_s=30.0)
    except NoFreeSlotError as exc:
        raise InfrastructureError(str(exc)) from None
    except SlotRangeError as exc:
        raise SlotRangeConflictError(str(exc)) from None
    except CgroupError as exc:
        raise InfrastructureError(f"could not start a bot: {exc}") from exc
