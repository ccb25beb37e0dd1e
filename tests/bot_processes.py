"""Bots seen from outside their sandbox: their processes in /proc, and whether they have played yet.

What a test waits for before it hits a match "in the middle": every bot of it
has answered a turn.  A bot writes its ``ready`` line once, then one line per
turn (the hostile test bots add a stderr report); the kernel counts its write
calls (``syscw`` in /proc/PID/io, readable by root), so a bot with more than
one write has answered a turn, and the match is past its start-up.

The Python test bots are the processes named ``python3`` whose parent is not
one (a bot's own children, such as a pondering one, are left out).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from workers.sandbox.slots import pids_of_uid, process_tree, read_proc, stat_fields

BOT_COMM = "python3"


def _comm(pid: int) -> str | None:
    text = read_proc(pid, "comm")
    return None if text is None else text.strip()


def _is_bot(pid: int) -> bool:
    fields = stat_fields(pid)
    if fields is None or fields[0] == "Z" or _comm(pid) != BOT_COMM:
        return False
    return _comm(int(fields[1])) != BOT_COMM


def bots_of_uids(uids: Iterable[int]) -> list[int]:
    """The bots running under these uids (a referee's slots)."""
    return [pid for uid in uids for pid in pids_of_uid(uid) if _is_bot(pid)]


def bots_under(root: int) -> list[int]:
    """The bots among the descendants of ``root`` (a worker's pool process) that run as a slot's uid."""
    found = []
    for pid in process_tree(root):
        try:
            slot_uid = os.stat(f"/proc/{pid}").st_uid != 0
        except OSError:
            continue
        if slot_uid and _is_bot(pid):
            found.append(pid)
    return found


def writes(pid: int) -> int:
    """How many write calls the process has made (0 once it is gone)."""
    for line in (read_proc(pid, "io") or "").splitlines():
        name, _, value = line.partition(":")
        if name == "syscw":
            return int(value)
    return 0


def all_have_played(bots: list[int], seats: int = 2) -> bool:
    """``seats`` bots, and every one of them has answered a turn (more writes than its ready line)."""
    return len(bots) == seats and all(writes(pid) >= 2 for pid in bots)
