"""Walking and deleting trees a bot may have made: iterative, bounded, never following a link.

A build writes what it likes into its ``/bot``: folders thousands deep (deeper
than Python's recursion limit, with paths longer than ``PATH_MAX``), hundreds
of thousands of entries, links pointing anywhere.  Every walk over such a tree
(packing a build's result, sizing and copying a bot, deleting a copy) goes
through here: an explicit stack instead of recursion, each directory opened
relative to its parent's descriptor with ``O_NOFOLLOW`` (no path grows with the
depth, no link is followed), and bounds on depth and entries whose breach is a
``TreeError`` the caller turns into the build's failure.

A package's own files (a bot's copy, a build's sources) are not such a tree:
they were unpacked from a checked archive (at most 1000 files, paths of at
most 1020 bytes), so copying and sizing them may use ``os.walk``.

Deleting (``tree_remove``) has no bound but holds one directory descriptor at a
time and climbs back through ``..``: it is for trees nobody writes any more
(the bot is gone), and it counts, never raises, what it could not delete.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class TreeError(ValueError):
    """A tree past a walk's bounds (too deep, too many entries); the message is meant for the bot's author."""


@dataclass(frozen=True)
class Entry:
    """One entry of a walk: its path below the top, its own status (a link is not followed), where it is.

    ``dir_fd`` (the open directory holding it) is valid only until the walk goes on.
    """

    path: str
    name: str
    info: os.stat_result
    dir_fd: int
    depth: int

    @property
    def is_dir(self) -> bool:
        """Whether the entry is a directory (a link to one is not)."""
        return stat.S_ISDIR(self.info.st_mode)


def tree_walk(top: Path | int, *, max_depth: int, max_entries: int) -> Iterator[Entry]:
    """Every entry below ``top``, each directory before its contents, names sorted; TreeError past a bound.

    ``max_depth``: folders may nest this deep (an entry of ``top`` is at depth 1).
    """
    fds: list[int] = []
    try:
        # An open directory (a build's /bot, whose mount may be gone from every namespace) is walked from "."
        fds.append(os.open(top, _DIR_FLAGS) if isinstance(top, Path) else os.open(".", _DIR_FLAGS, dir_fd=top))
        # One frame per open directory: its descriptor, its path, its depth, the names still to visit.
        stack: list[tuple[int, str, int, list[str]]] = [(fds[0], "", 0, _sorted_names(fds[0]))]
        seen = 0
        while stack:
            fd, prefix, depth, names = stack[-1]
            if not names:
                stack.pop()
                os.close(fds.pop())
                continue
            name = names.pop()
            info = os.lstat(name, dir_fd=fd)
            seen += 1
            if seen > max_entries:
                raise TreeError(f"it holds more than {max_entries} files and folders")
            if depth + 1 > max_depth:
                raise TreeError(f"its folders are nested more than {max_depth} deep")
            entry = Entry(prefix + name, name, info, fd, depth + 1)
            yield entry
            if entry.is_dir:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                fds.append(child)
                stack.append((child, entry.path + "/", depth + 1, _sorted_names(child)))
    finally:
        for fd in fds:
            os.close(fd)


def _sorted_names(fd: int) -> list[str]:
    """The names in the open directory ``fd``, last first (the walk pops them in order)."""
    with os.scandir(fd) as listing:
        return sorted((e.name for e in listing), reverse=True)


def tree_open(entry: Entry) -> int:
    """A read-only descriptor of the regular file ``entry`` (never through a link)."""
    return os.open(entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=entry.dir_fd)


def tree_remove(top: Path) -> int:
    """Delete ``top`` and everything below it, however deep; how many entries could not be deleted.

    One directory is open at a time: the walk goes down into a child's descriptor and back
    up through ``..``, keeping only names, so that no depth runs out of descriptors.
    """
    try:
        info = os.lstat(top)
    except FileNotFoundError:
        return 0
    except OSError:
        return 1
    if not stat.S_ISDIR(info.st_mode):
        return _unlink(str(top), None)
    try:
        fd = os.open(top, _DIR_FLAGS)
    except OSError:
        return 1
    failed = 0
    # Per level below ``top``: the directory's name in its parent, the parent's subfolders still to do.
    path: list[tuple[str, list[str]]] = []
    subdirs = _clear_files(fd)
    failed += subdirs[1]
    pending = subdirs[0]
    while True:
        if pending:
            name = pending.pop()
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                failed += 1
                continue
            os.close(fd)
            fd = child
            path.append((name, pending))
            pending, lost = _clear_files(fd)
            failed += lost
            continue
        if not path:
            break
        name, pending = path.pop()
        try:
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
        except OSError:
            os.close(fd)
            return failed + 1
        os.close(fd)
        fd = parent
        try:
            os.rmdir(name, dir_fd=fd)
        except FileNotFoundError:
            pass
        except OSError:
            failed += 1
    os.close(fd)
    try:
        os.rmdir(top)
    except FileNotFoundError:
        pass
    except OSError:
        failed += 1
    return failed


def _clear_files(fd: int) -> tuple[list[str], int]:
    """Unlink everything but folders in the open directory ``fd``: (its folders, how many could not go)."""
    folders: list[str] = []
    failed = 0
    try:
        with os.scandir(fd) as listing:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in listing]
    except OSError:
        return [], 1
    for name, is_dir in entries:
        if is_dir:
            folders.append(name)
        else:
            failed += _unlink(name, fd)
    return folders, failed


def _unlink(name: str, dir_fd: int | None) -> int:
    """Unlink one non-folder: 0 when gone, 1 when it could not be deleted."""
    with contextlib.suppress(FileNotFoundError):
        try:
            os.unlink(name, dir_fd=dir_fd)
        except OSError:
            return 1
    return 0
