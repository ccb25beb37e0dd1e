"""A look at a bot's stalls reads its group's thread list again only when the group's task count moved
or a listed thread ended; a thread that took an ended one's place is seen in that same look.

The threads are real threads of this test process (their /proc files are read); the group's list
and count are played by the test, so each case is exact.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from workers.sandbox.stalls import Stalls


@contextmanager
def waiting_thread() -> Iterator[int]:
    """A live thread of this process (its native id) until the block ends; then it has ended."""
    started, release = threading.Event(), threading.Event()
    tid: list[int] = []

    def run() -> None:
        tid.append(threading.get_native_id())
        started.set()
        release.wait(60)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    started.wait(60)
    try:
        yield tid[0]
    finally:
        release.set()
        thread.join(60)


class Group:
    """What a slot's group says: its thread list (every read counted) and its task count."""

    def __init__(self, tids: list[int]) -> None:
        self.tids, self.count, self.reads = tids, len(tids), 0

    def threads(self) -> list[int]:
        self.reads += 1
        return list(self.tids)


def test_the_list_is_kept_while_the_count_holds_and_read_again_when_it_moves() -> None:
    with waiting_thread() as first, waiting_thread() as second:
        group = Group([first])
        stalls = Stalls(group.threads, stops_are_outside=True, count=lambda: group.count)
        stalls.look()
        stalls.look()
        stalls.look()
        assert group.reads == 1
        group.tids, group.count = [first, second], 2
        stalls.look()
        assert group.reads == 2
        assert set(stalls._last) == {first, second}
        stalls.look()
        assert group.reads == 2
        stalls.close()


def test_a_thread_in_the_place_of_an_ended_one_is_seen_in_the_same_look() -> None:
    with waiting_thread() as staying:
        with waiting_thread() as leaving:
            group = Group([staying, leaving])
            stalls = Stalls(group.threads, stops_are_outside=True, count=lambda: group.count)
            stalls.look()
            assert group.reads == 1
        # The count is the same (one thread ended, another started): only the ended one's files tell.
        with waiting_thread() as arriving:
            group.tids = [staying, arriving]
            stalls.look()
            assert group.reads == 2
            assert set(stalls._last) == {staying, arriving}
        stalls.close()


def test_a_group_whose_count_is_not_its_list_is_listed_at_every_look() -> None:
    with waiting_thread() as bot, waiting_thread() as bwrap:
        # A zombie counts in the group but is not listed: the count says nothing about the list.
        group = Group([bot, bwrap])
        group.count = 3
        stalls = Stalls(group.threads, stops_are_outside=True, count=lambda: group.count, leave_out=lambda: {bwrap})
        stalls.look()
        stalls.look()
        assert group.reads == 2
        assert set(stalls._last) == {bot}
        stalls.close()


def test_without_a_count_every_look_lists_the_threads() -> None:
    with waiting_thread() as bot:
        group = Group([bot])
        stalls = Stalls(group.threads, stops_are_outside=True)
        stalls.look()
        stalls.look()
        assert group.reads == 2
        stalls.close()
