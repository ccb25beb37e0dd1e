"""Two copies of this bot play each other; seat 0 tries to signal seat 1 through the machine's figures.

Seat 0 sends one bit per turn: for a 1 it starts 24 processes, holds 120 MiB,
fills 8 MiB of its /tmp and /dev/shm and spins for 150 ms; for a 0 it lets all
of that go.  Seat 1, on each of its turns, reads what a program can learn of
the machine: sysinfo(2), statvfs and fstatvfs of every mount it has,
/proc/loadavg and its own mountinfo, mounts and mountstats.

Seat 1 reports its first readings as ``SEEN:<name>:<value>``, a digest of all
of a turn's readings as ``TURN:<digest>``, any reading unlike its first as
``CHANGED:<name>``, and once the texts of its mount tables (``TEXT:<file>:<line>``)
and its uid (``UID:<uid>``): the tests look for the worker's paths in them.
"""

import ctypes
import hashlib
import os
import re
import time

from arbiter_common import play, report

SECRET = b"\xa5"
BITS = [(byte >> i) & 1 for byte in SECRET for i in range(8)]
TABLES = ("mountinfo", "mounts", "mountstats")
# Read even where mountinfo cannot be: the places every bot has.
KNOWN_MOUNTS = ("/", "/bot", "/tmp", "/dev/shm", "/usr", "/proc", "/dev", "/arbiter/engines")
libc = ctypes.CDLL(None, use_errno=True)
seat = []
first = {}
held = {"children": [], "memory": None}


def start(msg):
    seat.append(msg["seat"])


# Seat 0: what it can move.


def hold():
    for _ in range(24):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            for _, earlier in held["children"]:
                os.close(earlier)  # else an earlier child would never see its pipe's end
            os.close(w)
            os.read(r, 1)  # until the parent closes its end
            os._exit(0)
        os.close(r)
        held["children"].append((pid, w))
    block = bytearray(120 << 20)
    block[::4096] = b"\1" * (len(block) // 4096)  # every page touched: really resident
    held["memory"] = block
    for place in ("/tmp/fill", "/dev/shm/fill"):
        with open(place, "wb") as f:
            f.write(os.urandom(8 << 20))
    end = time.monotonic() + 0.15
    while time.monotonic() < end:
        pass


def let_go():
    for pid, w in held["children"]:
        os.close(w)
        os.waitpid(pid, 0)
    held["children"].clear()
    held["memory"] = None
    for place in ("/tmp/fill", "/dev/shm/fill"):
        if os.path.exists(place):
            os.unlink(place)


# Seat 1: what it can read.


def text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError as exc:
        return f"unavailable-{exc.errno}"


def sysinfo():
    buf = ctypes.create_string_buffer(256)
    if libc.sysinfo(buf) != 0:
        return f"unavailable-{ctypes.get_errno()}"
    return buf.raw[8:112].hex()  # all of it but the uptime, a clock (the load, memory, processes...)


def fs_figures(target):
    try:
        s = os.statvfs(target)
    except OSError as exc:
        return f"unavailable-{exc.errno}"
    return f"{s.f_bsize} {s.f_blocks} {s.f_bfree} {s.f_bavail} {s.f_files} {s.f_ffree} {s.f_favail}"


def mount_points(mountinfo):
    points = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) > 4:
            points.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4]))
    return points


def readings():
    out = {"sysinfo": sysinfo(), "loadavg": text("/proc/loadavg")}
    for table in TABLES:
        out[table] = text(f"/proc/self/{table}")
    for point in dict.fromkeys([*mount_points(out["mountinfo"]), *KNOWN_MOUNTS]):
        out[f"statvfs:{point}"] = fs_figures(point)
        try:
            fd = os.open(point, os.O_PATH)
        except OSError as exc:
            out[f"fstatvfs:{point}"] = f"unavailable-open-{exc.errno}"
            continue
        try:
            out[f"fstatvfs:{point}"] = fs_figures(fd)
        finally:
            os.close(fd)
    return out


def look():
    now = readings()
    if not first:
        first.update(now)
        report("UID", os.getuid())
        for table in TABLES:
            for line in now[table].splitlines():
                report("TEXT", f"{table}:{line}")
        for name, value in now.items():
            if name not in TABLES:
                report("SEEN", f"{name}:{value.strip().replace(chr(10), '|')}")
    for name, value in now.items():
        if first.get(name) != value:
            report("CHANGED", name)
    digest = hashlib.sha256(repr(sorted(now.items())).encode()).hexdigest()[:16]
    report("TURN", digest)


def turn(msg):
    if seat[0] == 0:
        bit = BITS[(msg["ply"] // 2) % len(BITS)]
        let_go()
        if bit:
            hold()
        report("SENT", bit)
    else:
        look()
    return msg["legal_moves"][0]


play(on_start=start, on_turn=turn)
