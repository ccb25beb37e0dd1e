"""Sandbox uids of a live set: a band of its own from a test-only range.

A sandbox slot is a uid, and a worker kills every process of a slot's uid
before it hands the slot to a bot.  Two sets (or a set and the live service on
this machine, which uses 60000 and up) that shared uids would kill each
other's bots, so each set holds a band of uids no one else holds: a lock file
per band in one machine-wide directory, held (``flock``) for the set's life.
The kernel drops the lock when its holder dies, so a crashed run frees its band.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import tempfile
from pathlib import Path

from tests.waiting import poll

# Above the service default (60000-60063) and the fixed in-process ranges of the referee
# tests (61200-61215), the kit tests (61700-61715) and the slot-lock tests (61900-61901): a
# worker refuses a range that
# overlaps another live one, so the bands must never reach those.
FIRST_UID = 62000
LAST_UID = 64999
WIDTH = 32  # slots per set: 4 workers x 2 processes x 4 seats with room to spare
LOCK_DIR = Path(tempfile.gettempdir()) / "arbiter-test-uid-bands"


def _children_of(parent: int) -> list[tuple[int, str, str, int]]:
    """(pid, state, command name, session id) of each child of ``parent``, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The name is in parentheses and may hold spaces: split after its closing one.
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == parent:
            found.append((int(entry.name), fields[0], name, int(fields[3])))
    return found


class UidBand:
    """``WIDTH`` consecutive uids held by this process until :meth:`release`."""

    def __init__(self, first: int, fd: int) -> None:
        self.first = first
        self.count = WIDTH
        self._fd: int | None = fd

    @classmethod
    def acquire(cls) -> UidBand:
        """Lock the first free band of the test range; fail when every band is taken."""
        LOCK_DIR.mkdir(parents=True, exist_ok=True)
        for first in range(FIRST_UID, LAST_UID + 1 - WIDTH + 1, WIDTH):
            fd = os.open(LOCK_DIR / f"band-{first}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return cls(first, fd)
        raise RuntimeError(f"every sandbox uid band in {FIRST_UID}-{LAST_UID} is taken (locks in {LOCK_DIR})")

    @property
    def uids(self) -> range:
        return range(self.first, self.first + self.count)

    def _reap_launchers(self) -> None:
        """Kill and reap the set's bot launchers that ended up as this process's children.

        A worker or web process of the set that is killed leaves its waiting launchers
        (root ``sh`` processes in a session of their own, in a slot's control group) to
        the nearest subreaper, which is this test process once the referee has run in it.
        Unreaped, each stays a zombie charged to its slot's group, and the next set given
        this band finds those slots "still holding processes" for good.
        """
        me = os.getpid()
        slots = tuple(f"/arbiter/slot-{uid}\n" for uid in self.uids)

        def none_left() -> bool:
            """Reap the zombie launchers, SIGKILL the live ones; True once none was alive."""
            waiting = False
            for pid, state, comm, session in _children_of(me):
                if state == "Z":
                    if comm in ("sh", "dash", "bwrap") and session == pid:
                        with contextlib.suppress(ChildProcessError):
                            os.waitpid(pid, os.WNOHANG)
                    continue
                try:
                    groups = Path(f"/proc/{pid}/cgroup").read_text()
                except OSError:
                    continue
                if any(slot in groups for slot in slots):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                    waiting = True
            return not waiting

        # Round after round until one finds no launcher alive (the killed ones are reaped as zombies
        # in the next); 5 s at most, then the release goes on anyway.
        poll(none_left, 5.0, every=0.05)

    def release(self) -> None:
        """Kill what still runs under the band's uids (a bot of a SIGKILLed worker), then unlock."""
        if self._fd is None:
            return
        from workers.sandbox.slots import kill_uid  # no Django: safe in bench and tests alike

        try:
            for uid in self.uids:
                kill_uid(uid)
            self._reap_launchers()
        finally:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
