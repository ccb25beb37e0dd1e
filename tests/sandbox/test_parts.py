"""The sandbox's building blocks: slots, the seccomp program, the process killer, concurrency."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.ci import need
from tests.referee.support import FAST, REPO, make_limits, random_bot, require_cgroups, survivors
from tests.waiting import wait_for
from workers.match import MatchSpec
from workers.referee.play import play_match
from workers.sandbox import seccomp
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.slots import NoFreeSlotError, acquire_slot, kill_uid, pids_of_uid


def test_slots_are_exclusive_across_processes(tmp_path: Path) -> None:
    # Holds a slot until it is killed (or its input ends, should the test die first).
    holder = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys; from pathlib import Path; from workers.sandbox.slots import acquire_slot\n"
            f"s = acquire_slot(Path({str(tmp_path)!r}), 61900, 2)\n"
            "print(s.uid, flush=True); sys.stdin.read()"
        )],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    try:
        held = int(holder.stdout.readline())  # type: ignore[union-attr]
        mine = acquire_slot(tmp_path, 61900, 2, wait_s=1)
        assert {held, mine.uid} == {61900, 61901}
        with pytest.raises(NoFreeSlotError):
            acquire_slot(tmp_path, 61900, 2, wait_s=0.1)
        mine.release()
        again = acquire_slot(tmp_path, 61900, 2, wait_s=0.1)
        assert again.uid == mine.uid
        again.release()
    finally:
        holder.kill()
        holder.communicate()
    # The holder's death freed its slot.
    with acquire_slot(tmp_path, 61900, 2, wait_s=0.5) as a, acquire_slot(tmp_path, 61900, 2, wait_s=0.5) as b:
        assert {a.uid, b.uid} == {61900, 61901}


def test_seccomp_program_shape() -> None:
    program = seccomp.build_filter("x86_64")
    assert program is not None and len(program) % 8 == 0 and len(program) // 8 < 160
    first = struct.unpack("<HBBI", program[:8])
    assert first == (0x20, 0, 0, 4)  # load the architecture first
    assert seccomp.build_filter("riscv64") is None


def test_kill_uid_kills_detached_processes(limits: SandboxLimits) -> None:
    need(Path("/usr/bin/setpriv").exists(), "needs setpriv (apt-get install util-linux)")
    # The slot is taken as the sandbox takes one: a launcher kept warm by an earlier test holds a slot of the
    # same range, and a uid picked by hand could be its (CI once counted its processes here, and killed them).
    with acquire_slot(limits.lock_path(), limits.first_uid, limits.slots, wait_s=10) as slot:
        uid = slot.uid
        # Bot code: a process under the slot's uid and its child in a session of its own, asleep until killed.
        script = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\ntime.sleep(60)\n"
        proc = subprocess.Popen(
            ["setpriv", "--reuid", str(uid), "--regid", str(uid), "--clear-groups", "/usr/bin/python3", "-c", script],
            start_new_session=True,
        )
        wait_for(lambda: len(pids_of_uid(uid)) >= 2, 5, "the process and its detached child", every=0.01)
        assert len(pids_of_uid(uid)) == 2
        assert kill_uid(uid)
        proc.wait(5)
        assert pids_of_uid(uid) == []


def test_concurrent_matches_in_threads(tmp_path: Path, runtime: Path, limits: SandboxLimits) -> None:
    limits = make_limits(runtime)
    results: list[object] = []

    def run(i: int) -> None:
        bots = [random_bot(tmp_path / f"a{i}"), random_bot(tmp_path / f"b{i}")]
        try:
            spec = MatchSpec(match_id="", engine_id="count-test", options={"target": 200}, seed=i, seats=2, clock=FAST)
            record = play_match(spec, bots, limits=limits)
            results.append([s.status for s in record.seat_records])
        except Exception as exc:  # reported below
            results.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [["ok", "ok"]] * 3
    assert survivors() == {}


def test_capabilities_say_what_is_used_and_what_is_missing(runtime: Path, limits: SandboxLimits) -> None:
    """The report /healthz and the worker's start-up log show: here, everything; without cgroups, the gap."""
    from workers.sandbox.start import capabilities, report_at_start

    require_cgroups(limits)
    full = capabilities(limits)
    assert full["sandbox"] == "bubblewrap" and full["seccomp"] is True
    assert full["cgroups"]["version"] in (1, 2), full
    assert {"memory", "pids", "cpu"} <= set(full["cgroups"]["controllers"])
    assert full["gaps"] == [] or not full["tmpfs_inode_cap"], full["gaps"]
    assert full["runtimes"]["python3"] is True  # Debian's, in /usr: what Python bots run
    bare = report_at_start(make_limits(runtime, cgroups="off"))
    assert bare["cgroups"]["version"] is None
    assert any("no control groups" in gap for gap in bare["gaps"]), bare["gaps"]


def test_clock_charges_nothing_for_the_referees_own_stall() -> None:
    """The clock's arithmetic: a late wake-up counts only what the referee meant to wait."""
    from workers.referee import clock

    cpu = [0]
    now = [100.0]
    k = clock.BotClock(lambda: cpu[0], budget_ms=1000, wall_limit_ms=3000, now=lambda: now[0])
    now[0] += 0.1
    cpu[0] += 90_000_000  # 90 ms of CPU in a 100 ms wait: all of it charged
    k.update(0.1)
    assert k.charged_ms == 90 and k.wall_ms == 100
    now[0] += 15.0
    cpu[0] += 15_000_000_000  # stopped for 15 s while the bot computed: at most 150 ms counts
    k.update(0.1)
    assert k.charged_ms == 90 + 150 and k.wall_ms == 250 and k.lost_s > 14.8
    assert not k.out()


def test_clock_leaves_out_waits_for_a_cpu_and_outside_stops() -> None:
    """The clock's arithmetic with the bot's stalls: waits and stops are not counted, a long stop gives up."""
    from workers.referee import clock
    from workers.sandbox.stalls import Look

    cpu, now, look = [0], [100.0], [Look(waited_ns=0, stopped=False)]
    k = clock.BotClock(
        lambda: cpu[0], 1000, 1400, lambda: now[0], stalls=lambda: look[0], stopped_limit_s=5.0
    )  # fmt: skip
    now[0] += 0.1
    cpu[0] += 10_000_000
    look[0] = Look(waited_ns=80_000_000, stopped=False)  # 10 ms of CPU, 80 ms waiting for it, 10 ms asleep
    k.update(0.1)
    assert (k.charged_ms, k.wall_ms) == (10, 20)
    now[0] += 0.1
    look[0] = Look(waited_ns=280_000_000, stopped=False)  # two threads waited the whole 100 ms each
    k.update(0.1)
    assert k.wall_ms == 20 and round(k.excused_s, 3) == 0.18
    for tenth in range(1, 50):  # stopped from outside for 4.9 s: nothing counted, not yet given up
        now[0] += 0.1
        look[0] = Look(waited_ns=280_000_000, stopped=True, stopped_s=tenth / 10)
        k.update(0.1)
    assert k.wall_ms == 20 and not k.stopped_out() and not k.out()
    now[0] += 0.2
    look[0] = Look(waited_ns=280_000_000, stopped=True, stopped_s=5.1)
    k.update(0.2)
    assert k.stopped_out()
    now[0] += 0.1
    look[0] = Look(waited_ns=280_000_000, stopped=False)  # let go: it stays given up
    k.stop(0.1)
    assert k.stopped_out() and k.wall_ms == 120 and "5.1 s" in k.describe_stop()


def test_clean_text_escapes_what_steers_a_terminal() -> None:
    from workers.referee.conversation import clean_text

    assert clean_text("ok\tline\n") == "ok\tline\n"
    assert clean_text("\x1b]0;t\x07\r\x00\x7f\x9b\u202e\ud800é") == "\\x1b]0;t\\x07\\x0d\\x00\\x7f\\x9b\\u202e?é"


def test_a_group_removed_by_another_process_is_used_again(limits: SandboxLimits) -> None:
    """A slot's group removed behind a worker's back (another worker's clean-up at exit) is made
    again and used: the worker's open control files of the old group are not."""
    from workers.sandbox.cgroups import detect
    from workers.sandbox.group import slot_group

    require_cgroups(limits)
    support = detect(limits.cgroups)
    uid = 61902  # beside the slot-lock tests' uids, outside every other test range
    group = slot_group(support, uid)
    group.prepare(64 * 1024 * 1024, 8)
    assert group.empty()
    for directory in set(group.dirs.values()):
        directory.rmdir()  # what remove_idle_groups in another process does
    try:
        group.prepare(64 * 1024 * 1024, 8)
        assert group.empty() and group.memory_now() == 0
    finally:
        group.remove()


def test_a_slot_holding_zombies_is_held_back_and_the_bot_starts_in_another(
    tmp_path: Path, runtime: Path, limits: SandboxLimits
) -> None:
    """A worker killed mid-match leaves its launchers to a subreaper (the worker's parent, the test
    process) that may never reap them: as zombies they still count in their slot's group, which no
    kill empties.  That slot is held back and the match plays in the others, not failed."""
    import dataclasses

    from workers.sandbox import slots, warm
    from workers.sandbox.cgroups import detect
    from workers.sandbox.group import slot_group

    require_cgroups(limits)
    first = 61904  # beside the slot-lock tests' uids, outside every other test range
    limits = dataclasses.replace(limits, first_uid=first, slots=3, warm=0)
    # The pool tries uids from an offset that depends on the pid: poison the first one this process tries.
    uid = first + os.getpid() % 3
    group = slot_group(detect(limits.cgroups), uid)
    group.prepare(64 * 1024 * 1024, 8)
    leftover = subprocess.Popen(["cat"], stdin=subprocess.PIPE)  # never reaped until the end: a zombie in the group
    group.attach(leftover.pid)
    assert leftover.stdin is not None
    leftover.stdin.close()  # it ends once it is in the group
    wait_for(lambda: Path(f"/proc/{leftover.pid}/stat").read_text().split()[2] == "Z", 10, "cat to exit", every=0.01)
    assert not group.empty()
    held_back = slots.incidents["slot_quarantined"]
    try:
        spec = MatchSpec(match_id="", engine_id="count-test", options={"target": 20}, seed=1, seats=2, clock=FAST)
        record = play_match(spec, [random_bot(tmp_path / "a"), random_bot(tmp_path / "b")], limits=limits)
        assert [s.status for s in record.seat_records] == ["ok", "ok"]
        assert slots.incidents["slot_quarantined"] == held_back + 1
    finally:
        leftover.wait()  # what a subreaper that reaps would have done: the slot is clear again
        assert group.empty()
        with acquire_slot(limits.lock_path(), first, 3, wait_s=5) as again:  # the held-back slot comes back
            assert again.uid == uid
        warm.close_all()
        group.remove()


STRAYS = """
import os, subprocess, sys
from tests.waiting import wait_for
from workers.sandbox.slots import become_subreaper, stat_fields
from workers.sandbox.strays import reap_stray_launchers
become_subreaper()
# A worker process that dies while its launcher waits: the launcher comes to us.
worker = subprocess.Popen([sys.executable, "-c",
    "import subprocess; subprocess.Popen(['sh', '-c', 'sleep 0.2; true']); import os; os._exit(9)"])
worker.wait()
mine = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])  # a child of our own, not a launcher
def children():
    return set(open(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read().split())
# The launcher (after its 0.2 s) and our own child have exited: zombies, not reaped yet.
wait_for(lambda: all((stat_fields(int(p)) or ["Z"])[0] == "Z" for p in children()), 20, "every child to exit")
print(len(children()), reap_stray_launchers(), reap_stray_launchers(), mine.wait())
"""


def test_a_dead_workers_launchers_are_reaped_by_the_process_they_come_to() -> None:
    """Only the zombie launchers are waited for: the parent's own child keeps its exit status."""
    out = subprocess.run(
        [sys.executable, "-c", STRAYS], capture_output=True, text=True, timeout=60, check=True, cwd=REPO
    )
    assert out.stdout.split() == ["2", "1", "0", "3"], out.stderr
