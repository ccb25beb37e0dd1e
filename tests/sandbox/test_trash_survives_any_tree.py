"""The thread that deletes copies on disk (workers.sandbox.trash) survives any tree, and is started again if it dies."""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ci import need
from tests.waiting import wait_for
from workers.sandbox import trash
from workers.sandbox.mounts import mount_tmpfs, unmount

DEPTH = 1100  # deeper than Python's recursion limit, its path (5 bytes a level) longer than PATH_MAX


def deep_tree(top: Path, depth: int) -> None:
    """``top`` with folders ``depth`` deep and a file in each, made through descriptors (no path is that long)."""
    os.mkdir(top)
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.close(os.open("f", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
            os.mkdir("dddd", dir_fd=fd)
            child = os.open("dddd", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)


def emptied(bin_: Path) -> bool:
    return not os.listdir(bin_)


@pytest.fixture
def bin_(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "trash"


def test_a_tree_1100_deep_is_deleted_and_the_thread_goes_on(tmp_path: Path, bin_: Path) -> None:
    undeleted = trash.trash_counts()["undeleted"]
    deep_tree(tmp_path / "copy", DEPTH)
    trash.discard(tmp_path / "copy", bin_)
    wait_for(lambda: emptied(bin_), 30, "the trash to be emptied")
    assert trash.trash_running()
    assert trash.trash_counts()["undeleted"] == undeleted


def test_what_cannot_be_deleted_is_counted_and_the_rest_goes(tmp_path: Path, bin_: Path) -> None:
    need(os.geteuid() == 0, "mounting a file system nobody can delete needs root")
    copy = tmp_path / "copy"
    deep_tree(copy, 50)
    (copy / "held").mkdir()
    mount_tmpfs(copy / "held", 1 << 20, 16, 0)  # a mount point: rmdir says EBUSY
    try:
        undeleted = trash.trash_counts()["undeleted"]
        trash.discard(copy, bin_)
        wait_for(lambda: trash.trash_counts()["undeleted"] > undeleted, 30, "the undeletable entry to be counted")
        assert trash.trash_running()
        (left,) = os.listdir(bin_)
        assert os.listdir(bin_ / left) == ["held"]  # everything else went
    finally:
        (held,) = bin_.glob("*/held")
        unmount(held)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the kill, on purpose
def test_a_dead_thread_is_started_again_and_counted(tmp_path: Path, bin_: Path) -> None:
    (tmp_path / "first").mkdir()
    trash.discard(tmp_path / "first", bin_)
    wait_for(lambda: emptied(bin_), 30, "the trash to be emptied")
    (thread,) = [t for t in threading.enumerate() if t.name == "arbiter-trash"]
    restarts = trash.trash_counts()["restarts"]
    # Killed from outside: the exception is raised in the thread when it next runs (woken by a discard).
    assert ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident or 0), ctypes.py_object(SystemExit))
    (tmp_path / "second").mkdir()
    trash.discard(tmp_path / "second", bin_)
    wait_for(lambda: not thread.is_alive(), 30, "the trash thread to die")
    (tmp_path / "third").mkdir()
    trash.discard(tmp_path / "third", bin_)
    assert trash.trash_running()
    assert trash.trash_counts()["restarts"] == restarts + 1
    wait_for(lambda: emptied(bin_), 30, "the restarted thread to empty the trash")
