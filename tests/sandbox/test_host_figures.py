"""No figure of the machine reaches a bot: what one bot does cannot be read by another, nor the worker's paths.

Two copies of a real bot through the real sandbox (tests/sandbox/bots/figures.py):
seat 0 moves everything it can (processes, memory, its file systems, CPU),
seat 1 reads sysinfo(2), statvfs of every mount, /proc/loadavg and its mount
tables on every turn.  Seen from outside, the machine's figures move; seen
from inside, nothing ever does, and the mount tables name only the sandbox's
own paths.
"""

from __future__ import annotations

import ctypes
import errno
import json
import re
import shutil
import threading
from pathlib import Path

from tests.referee.support import FIRST_UID, REPO, SLOTS, make_limits, survivors
from workers.match import Clock, MatchRecord, MatchSpec
from workers.referee.play import play_match
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import BotProgram

BOTS = Path(__file__).parent / "bots"
CLOCK = Clock(move_ms=1000, game_ms=60_000, startup_ms=10_000)
_libc = ctypes.CDLL(None, use_errno=True)


def figures_bot(tmp_path: Path) -> BotProgram:
    directory = tmp_path / "figures"
    directory.mkdir()
    shutil.copy(BOTS / "figures.py", directory / "main.py")
    shutil.copy(BOTS / "arbiter_common.py", directory / "arbiter_common.py")
    (directory / "params.json").write_text(json.dumps({}))
    return BotProgram(directory=directory, command=("python3", "main.py"))


def tagged(record: MatchRecord, seat: int, tag: str) -> list[str]:
    return [x.split(":", 1)[1] for x in record.seat_records[seat].stderr.splitlines() if x.startswith(tag + ":")]


def host_figures() -> tuple[int, int]:
    """The machine's process count and free memory (MiB), as sysinfo(2) gives them outside the sandbox."""
    buf = ctypes.create_string_buffer(256)
    assert _libc.sysinfo(buf) == 0, ctypes.get_errno()
    free = int.from_bytes(buf.raw[40:48], "little") * int.from_bytes(buf.raw[104:108], "little")
    return int.from_bytes(buf.raw[80:82], "little"), free >> 20


def test_two_bots_cannot_pass_a_bit_through_the_machines_figures(
    tmp_path: Path, runtime: Path, limits: SandboxLimits
) -> None:
    """Seat 0 moves processes, memory, its file systems and the load; seat 1's readings never change."""
    limits = make_limits(runtime)
    bot = figures_bot(tmp_path)
    seen_outside: list[tuple[int, int]] = []
    stop = threading.Event()

    def watch() -> None:  # a reading every 10 ms until the match ends
        while True:
            seen_outside.append(host_figures())
            if stop.wait(0.01):
                return

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        spec = MatchSpec(match_id="", engine_id="count-test", options={"target": 40}, seed=5, seats=2, clock=CLOCK)
        record = play_match(spec, [bot, bot], limits=limits)
    finally:
        stop.set()
        watcher.join()
    assert [s.status for s in record.seat_records] == ["ok", "ok"], (record.reason, record.seat_records[0].stderr)
    assert {"0", "1"} <= set(tagged(record, 0, "SENT"))
    # The sender really moved the machine's figures (seen from outside the sandbox)...
    procs = [p for p, _ in seen_outside]
    free = [f for _, f in seen_outside]
    assert max(procs) - min(procs) >= 20 and max(free) - min(free) >= 100, (min(procs), max(procs), min(free))
    # ...but whatever the receiver could read was the same on every one of its turns.
    turns = tagged(record, 1, "TURN")
    assert len(turns) >= 15 and len(set(turns)) == 1, tagged(record, 1, "CHANGED")
    seen = dict(x.rsplit(":", 1) for x in tagged(record, 1, "SEEN"))
    assert len([n for n in seen if n.startswith("statvfs:")]) >= 8, sorted(seen)
    # sysinfo and the file systems' figures are unavailable (as on a kernel without those calls).
    assert seen["sysinfo"] == f"unavailable-{errno.ENOSYS}", seen["sysinfo"]
    assert {v for n, v in seen.items() if "statvfs:" in n} == {f"unavailable-{errno.ENOSYS}"}, seen
    assert survivors() == {}


def test_a_bots_mount_tables_name_none_of_the_workers_paths(
    tmp_path: Path, runtime: Path, limits: SandboxLimits
) -> None:
    """mountinfo, mounts and mountstats show the sandbox's own paths: no runtime dir, slot or source dir."""
    limits = make_limits(runtime)
    bot = figures_bot(tmp_path)
    spec = MatchSpec(match_id="", engine_id="count-test", options={"target": 4}, seed=5, seats=2, clock=CLOCK)
    record = play_match(spec, [bot, bot], limits=limits)
    assert [s.status for s in record.seat_records] == ["ok", "ok"], record.reason
    tables = "\n".join(tagged(record, 1, "TEXT"))
    assert tables.count("mountinfo:") >= 10 and "unavailable" not in tables, tables
    for path in (runtime, runtime.resolve(), tmp_path, REPO):
        assert str(path) not in tables, (path, tables)
    assert "slot-" not in tables, tables
    # The only number of the slot range is the bot's own uid (which getuid() gives it anyway),
    # as the owner of bubblewrap's own root and /dev.
    (uid,) = tagged(record, 1, "UID")
    slot_numbers = {n for n in re.findall(r"\d+", tables) if FIRST_UID <= int(n) < FIRST_UID + SLOTS}
    assert slot_numbers <= {uid}, slot_numbers
    assert set(re.findall(rf"\w+={uid}\b", tables)) <= {f"uid={uid}", f"gid={uid}"}, tables
    # The bind sources are named by the sandbox's own paths.
    mountinfo = [line.split(":", 1)[1].split() for line in tagged(record, 1, "TEXT") if line.startswith("mountinfo:")]
    roots = {fields[4]: fields[3] for fields in mountinfo}
    assert roots["/bot"] == "/bot" and roots["/arbiter/engines"] == "/engines", roots
    assert roots["/proc/meminfo"] == "/proc/meminfo", roots
    assert survivors() == {}
