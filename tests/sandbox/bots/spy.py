"""Two copies of this bot play each other and try to pass a secret from seat 0 to seat 1.

Seat 0 leaves the secret in every writable place (/tmp, /dev/shm, an abstract and a
named socket) and, on each of its turns, holds 200 MiB or frees it (one bit of the
secret per turn) to move the machine's memory counters.  Seat 1 looks for the
files and sockets and reads the host-wide counters in /proc on each of its turns.
Found data is reported as ``LEAK:``, the counters as ``SEEN:<file>:<digest>``.
"""

import hashlib
import os
import socket

from arbiter_common import leak, play, report

SECRET = b"covert-7e1"
BITS = [(byte >> i) & 1 for byte in SECRET for i in range(8)]
COUNTERS = ("meminfo", "stat", "loadavg", "vmstat", "uptime", "sys/fs/file-nr", "pressure/memory")
held = []
servers = []
seat = []


def plant(msg):
    seat.append(msg["seat"])
    if msg["seat"] != 0:
        return
    for path in ("/tmp/secret", "/dev/shm/secret"):
        with open(path, "wb") as f:
            f.write(SECRET)
    for address in ("\0arbiter-spy", "/tmp/spy.sock"):
        server = socket.socket(socket.AF_UNIX)
        server.bind(address)
        server.listen()
        servers.append(server)


def look():
    for path in ("/tmp/secret", "/dev/shm/secret"):
        if os.path.exists(path):
            leak(f"found {path}")
    for address in ("\0arbiter-spy", "/tmp/spy.sock"):
        try:
            socket.socket(socket.AF_UNIX).connect(address)
            leak(f"connected to {address!r}")
        except OSError:
            pass
    for name in COUNTERS:
        try:
            with open(f"/proc/{name}", "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()[:16]
        except OSError as exc:
            digest = f"unreadable-{exc.errno}"
        report("SEEN", f"{name}:{digest}")


def turn(msg):
    if seat[0] == 0:
        bit = BITS[(msg["ply"] // 2) % len(BITS)]
        held.clear()
        if bit:
            block = bytearray(200 << 20)
            for i in range(0, len(block), 4096):
                block[i] = 1
            held.append(block)
        report("SENT", bit)
    else:
        look()
    return msg["legal_moves"][0]


play(on_start=plant, on_turn=turn)
