"""A bot's view: one tmpfs of its own holding every file the sandbox binds from the worker.

A bot can read its mount table (``/proc/self/mountinfo``, ``mounts`` and
``mountstats``).  For each bind, mountinfo names the source's path inside the
source's own file system: bound from the worker's disk, that is the worker's
runtime directory, the slot's directory (with the slot's number) and the
copy's name.  Covering the file is no cure: it is a per-process file under a
fresh ``/proc``, and the processes a bot will start do not exist when the
sandbox is built.  So nothing is bound from the worker's disk any more.
Where the worker may mount (root, as in production), each bot gets a tmpfs,
mounted in its slot's directory, that holds::

    /bot          the bot's copy            (bound at /bot)
    /engines      the game engines          (bound at /arbiter/engines)
    /proc/...     the static /proc files    (bound over /proc/..., workers.sandbox.procmask)

and the mount table names exactly these: ``/bot``, ``/engines``,
``/proc/meminfo``.  Every other bind comes from a path the bot sees anyway
(``/usr``, three files of ``/etc``, the devices of ``/dev``), and ``/tmp`` and
``/dev/shm`` are tmpfs mounts of their own (``workers.sandbox.mounts``).  This
holds whatever the runtime directory is called and wherever it is, which
masking paths one by one would not.  What the table still shows is the
machine's device numbers, mount ids, each mount's options and the bot's own
uid as the owner of bubblewrap's root and ``/dev`` (the number ``getuid()``
returns); none of it changes while the bot runs.

The view is root's, read-only for the bot, sized to what it holds: the copy,
the engines and the /proc files, plus for a build (whose ``/bot`` is writable)
``SandboxLimits.bot_room_mb`` for what it makes.  Its memory is counted to
whoever writes it (the worker for the copy, a build for its output) and goes
the moment it is unmounted, when the bot is gone.  A worker that may not
mount keeps binding from its disk (``/healthz`` lists that gap).
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from pathlib import Path

from workers.sandbox import mounts

_PAGE = resource.getpagesize()
_SLACK_BYTES = 1 << 20  # directories, long link targets, rounding
_SLACK_INODES = 64


@dataclass(frozen=True)
class Footprint:
    """What a tree takes in a tmpfs: bytes (each file rounded up to pages) and inodes."""

    size: int = 0
    inodes: int = 0

    def __add__(self, other: Footprint) -> Footprint:
        return Footprint(self.size + other.size, self.inodes + other.inodes)


def footprint(top: Path) -> Footprint:
    """The footprint of the tree at ``top`` (links are not followed)."""
    size, inodes = 0, 1
    for root, dirs, files in os.walk(top):
        for name in [*dirs, *files]:
            inodes += 1
            info = os.lstat(os.path.join(root, name))
            size += -(-info.st_size // _PAGE) * _PAGE
    return Footprint(size, inodes)


@dataclass(frozen=True)
class ViewContents:
    """What every bot's view of one launch plan holds besides the bot: the engines and the /proc files.

    Read once per plan and kept in memory: a bot's start only writes them.
    """

    dirs: tuple[str, ...]  # made first, parents before children (paths inside the view)
    files: tuple[tuple[str, bytes, int], ...]  # (path inside the view, content, mode)
    proc_files: tuple[str, ...]  # paths under /proc covered by a static file
    proc_dirs: tuple[str, ...]  # directories under /proc shown empty
    footprint: Footprint  # of all of it in a view

    @classmethod
    def of(cls, engines: Path, proc_files: dict[str, str], proc_dirs: list[str]) -> ViewContents:
        """The contents for a plan: the engines' tree under ``engines`` (regular files and
        directories), and the /proc files and directories (from ``workers.sandbox.procmask``)."""
        dirs = ["engines", "proc"]
        files: list[tuple[str, bytes, int]] = []
        for root, subdirs, names in os.walk(engines):
            inside = os.path.join("engines", os.path.relpath(root, engines))
            dirs += [os.path.normpath(os.path.join(inside, d)) for d in sorted(subdirs)]
            for name in sorted(names):
                path = os.path.join(root, name)
                with open(path, "rb") as source:
                    files.append((os.path.normpath(os.path.join(inside, name)), source.read(), 0o644))
        for name, text in proc_files.items():
            parts = name.split("/")
            dirs += ["/".join(["proc", *parts[:i]]) for i in range(1, len(parts))]
            files.append((f"proc/{name}", text.encode(), 0o444))
        dirs += [f"proc/{name}" for name in proc_dirs]
        dirs = list(dict.fromkeys(dirs))
        size = sum(-(-len(data) // _PAGE) * _PAGE for _, data, _ in files)
        return cls(tuple(dirs), tuple(files), tuple(proc_files), tuple(proc_dirs),
                   Footprint(size, len(dirs) + len(files) + 1))  # fmt: skip

    def binds(self, view: Path) -> list[str]:
        """bubblewrap's options that bind the engines and the /proc files from ``view``."""
        options = ["--ro-bind", str(view / "engines"), "/arbiter/engines"]
        for name in (*self.proc_files, *self.proc_dirs):
            options += ["--ro-bind", str(view / "proc" / name), f"/proc/{name}"]
        return options


def make_view(view: Path, contents: ViewContents, bot: Footprint) -> Path:
    """Mount ``view`` sized for ``contents`` and ``bot``, fill it but for the bot; the path for the bot's copy.

    ``bot``: what the copy needs, plus the room a writable ``/bot`` may use.  Whatever a
    previous holder of the slot left mounted there is detached first.
    """
    need = contents.footprint + bot
    os.makedirs(view, 0o755, exist_ok=True)
    mounts.unmount(view)
    mounts.mount_tmpfs(view, need.size + _SLACK_BYTES, need.inodes + _SLACK_INODES, 0, mode=0o755)
    # Modes set explicitly: the worker's umask must not hide a file from the bot.
    for name in contents.dirs:
        os.mkdir(view / name)
        os.chmod(view / name, 0o755)
    for name, data, mode in contents.files:
        fd = os.open(view / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
    return view / "bot"


def resize_view(view: Path, contents: ViewContents, bot: Footprint) -> None:
    """Size a view made by :func:`make_view` before its bot was known for ``contents`` and ``bot``.

    A sandbox built ahead (``workers.sandbox.warm``) binds the view's empty ``bot`` directory;
    the copy written into it afterwards shows in the sandbox, within the new size.
    """
    need = contents.footprint + bot
    mounts.resize_tmpfs(view, need.size + _SLACK_BYTES, need.inodes + _SLACK_INODES)
