"""The kernel holds every bot to its share: memory the bot never maps, CPU while off move, files.

Real bots through the real sandbox.  Memory held outside any process (SysV
shared memory, a memfd, tmpfs files, empty files' inodes) ends as
``memory_limit`` where the memory cgroup counts it, and is refused or capped
by the stopgaps everywhere.  An opponent's background work does not slow a
bot on move: the bot's own real time per move is compared with its time
against a calm opponent in the same test.
"""

from __future__ import annotations

import json
import shutil
import statistics
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.referee.support import make_limits, random_bot, require_cgroups, survivors
from tests.waiting import wait_for
from workers.match import Clock, MatchRecord, MatchSpec
from workers.referee.play import play_match
from workers.sandbox.cpus import lease_cpu
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.slots import pids_of_uid, stat_fields
from workers.sandbox.start import BotProgram

BOTS = Path(__file__).parent / "bots"
CLOCK = Clock(move_ms=1000, game_ms=60_000, startup_ms=10_000)


def bot(tmp_path: Path, name: str, label: str = "", **params: Any) -> BotProgram:
    directory = tmp_path / (label or name)
    directory.mkdir()
    shutil.copy(BOTS / f"{name}.py", directory / "main.py")
    shutil.copy(BOTS / "arbiter_common.py", directory / "arbiter_common.py")
    (directory / "params.json").write_text(json.dumps(params))
    return BotProgram(directory=directory, command=("python3", "main.py"))


def play(limits: SandboxLimits, bots: list[BotProgram], target: int = 12) -> MatchRecord:
    spec = MatchSpec(match_id="", engine_id="count-test", options={"target": target}, seed=5, seats=2, clock=CLOCK)
    return play_match(spec, bots, limits=limits)


def tagged(record: MatchRecord, seat: int, tag: str) -> list[str]:
    return [x.split(":", 1)[1] for x in record.seat_records[seat].stderr.splitlines() if x.startswith(tag + ":")]


def host_shmem_mib() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Shmem:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no Shmem in /proc/meminfo")


@pytest.mark.parametrize(
    ("how", "extra"),
    [
        ("shm", {"shared_memory": True}),
        ("memfd", {"shared_memory": True}),
        ("tmpfs", {"tmp_mb": 2048}),
        ("inodes", {"tmp_inodes": 1_000_000, "memory_mb": 96}),
    ],
)
def test_memory_no_process_maps_is_counted(
    tmp_path: Path, runtime: Path, limits: SandboxLimits, how: str, extra: dict[str, Any]
) -> None:
    """1 GiB (or a million empty files) held where no rlimit looks: the kernel stops the bot."""
    limits = make_limits(runtime, **{"memory_mb": 256, **extra})
    require_cgroups(limits)
    before = host_shmem_mib()
    amount = 1_000_000 if how == "inodes" else 1024
    record = play(limits, [bot(tmp_path, "hoard", how=how, mib=amount), random_bot(tmp_path / "r")])
    seat = record.seat_records[0]
    assert seat.status == "memory_limit", (record.reason, seat.stderr[-500:])
    assert record.ranks == [2, 1] and tagged(record, 0, "HELD") == []
    assert survivors() == {}
    # The memory went back: shared memory lives on until its IPC namespace is torn down.
    wait_for(lambda: host_shmem_mib() <= before + 64, 10, f"shared memory back near {before} MiB")


@pytest.mark.parametrize("cgroups", ["auto", "off"])
def test_stopgaps_refuse_unmapped_memory(tmp_path: Path, runtime: Path, limits: SandboxLimits, cgroups: str) -> None:
    """With the default settings, with or without control groups: refused or capped, the bot plays on."""
    limits = make_limits(runtime, cgroups=cgroups)
    for how, amount in (("shm", 1024), ("memfd", 1024), ("inodes", 200_000)):
        record = play(
            limits, [bot(tmp_path, "hoard", f"{how}-{cgroups}", how=how, mib=amount), random_bot(tmp_path / how)]
        )
        assert [s.status for s in record.seat_records] == ["ok", "ok"], record.reason
        refused = tagged(record, 0, "REFUSED")
        expected = "No space left on device" if how == "inodes" else "Operation not permitted"
        assert len(refused) == 1 and expected in refused[0], record.seat_records[0].stderr[-300:]
    assert survivors() == {}


def move_times(record: MatchRecord, seat: int) -> list[float]:
    return [float(x) for x in tagged(record, seat, "WALL")]


def test_off_move_work_does_not_slow_the_bot_on_move(tmp_path: Path, runtime: Path, limits: SandboxLimits) -> None:
    """3 spinners, 12 children in their own sessions, a stderr flood: at most 1.3x the calm median."""
    limits = make_limits(runtime)
    require_cgroups(limits)
    steady = bot(tmp_path, "steady")
    ratios = {}
    for how in ("spinners", "sessions", "flood"):
        # Calm and hostile in turn, twice, so that the machine's other load hits both alike.
        calm: list[float] = []
        hostile: list[float] = []
        for round_ in range(2):
            for kind, times in (("calm", calm), (how, hostile)):
                pest = bot(tmp_path, "pest", f"{how}-{kind}-{round_}", how=kind)
                record = play(limits, [steady, pest], target=16)
                assert [s.status for s in record.seat_records] == ["ok", "ok"], (kind, record.reason)
                times += move_times(record, 0)
        ratios[how] = statistics.median(hostile) / statistics.median(calm)
    assert all(r <= 1.3 for r in ratios.values()), ratios
    assert survivors() == {}


def running(limits: SandboxLimits) -> list[int]:
    """The processes of the limits' slots that are running or ready to run (state R)."""
    uids = range(limits.first_uid, limits.first_uid + limits.slots)
    return [pid for uid in uids for pid in pids_of_uid(uid) if (stat_fields(pid) or ["?"])[0] == "R"]


def test_concurrent_matches_keep_apart(tmp_path: Path, runtime: Path, limits: SandboxLimits) -> None:
    """A match whose bots spin on another of the worker's CPUs does not slow this one (bound: 1.3x)."""
    limits = make_limits(runtime)
    require_cgroups(limits)
    steady = bot(tmp_path, "steady")
    # The calm run on the CPU the busy run will get: the other one is taken meanwhile.
    held = lease_cpu(limits.lock_path())
    try:
        calm = move_times(play(limits, [steady, bot(tmp_path, "pest", "calm", how="calm")], target=16), 0)
    finally:
        held.release()
    stop = threading.Event()

    def neighbour() -> None:
        i = 0
        while not stop.is_set():
            pests = [bot(tmp_path, "pest", f"n{i}a", how="spinners"), bot(tmp_path, "pest", f"n{i}b", how="spinners")]
            play(limits, pests, target=40)
            i += 1

    other = threading.Thread(target=neighbour)
    other.start()
    try:
        # The neighbour's match is on: its two pests' six spinners are running.
        wait_for(lambda: len(running(limits)) >= 6, 60, "the neighbour's spinners to run", every=0.02)
        busy = move_times(play(limits, [steady, bot(tmp_path, "pest", "calm2", how="calm")], target=16), 0)
    finally:
        stop.set()
        other.join(60)
    assert statistics.median(busy) / statistics.median(calm) <= 1.3, (calm, busy)
    assert survivors() == {}


def host_available_mib() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no MemAvailable in /proc/meminfo")


def test_two_copies_cannot_pass_a_byte(tmp_path: Path, runtime: Path, limits: SandboxLimits) -> None:
    """Files, sockets and the machine's counters in /proc: nothing seat 0 does reaches seat 1."""
    limits = make_limits(runtime)
    spy = bot(tmp_path, "spy")
    seen_outside: list[int] = []
    stop = threading.Event()

    def watch() -> None:  # a reading every 10 ms until the match ends
        while True:
            seen_outside.append(host_available_mib())
            if stop.wait(0.01):
                return

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        record = play(limits, [spy, spy], target=60)
    finally:
        stop.set()
        watcher.join()
    assert [s.status for s in record.seat_records] == ["ok", "ok"], record.reason
    assert "LEAK:" not in record.seat_records[1].stderr, record.seat_records[1].stderr[:2000]
    sent = tagged(record, 0, "SENT")
    assert {"0", "1"} <= set(sent), sent
    # The sender really moved the machine's memory (seen from outside the sandbox): half its 200 MiB block at least,
    # since the rest of the machine allocates and frees meanwhile (141-149 MiB were seen on busy runs)...
    assert max(seen_outside) - min(seen_outside) >= 100, (min(seen_outside), max(seen_outside))
    # ...but every counter the receiver read was the same on every one of its turns.
    readings: dict[str, set[str]] = {}
    for entry in tagged(record, 1, "SEEN"):
        name, _, digest = entry.rpartition(":")
        readings.setdefault(name, set()).add(digest)
    assert len(readings) >= 5 and all(len(d) == 1 for d in readings.values()), readings
    assert len(tagged(record, 1, "SEEN")) >= 5 * 10
    assert survivors() == {}
