"""Tries the network: the host's database ports, a listener of the test, an outside address, raw sockets."""

import socket

from arbiter_common import PARAMS, leak, play, report


def attempt(family, address):
    try:
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(1)
        s.connect(address)
        leak(f"connected to {address}")
    except OSError as exc:
        report("BLOCKED", f"{address}: {exc}")


def start(msg):
    for port in (5432, 6379, PARAMS["port"]):
        attempt(socket.AF_INET, ("127.0.0.1", port))
    attempt(socket.AF_INET6, ("::1", PARAMS["port"]))
    attempt(socket.AF_INET, ("192.0.2.1", 80))  # TEST-NET-1: never routed anywhere
    for family, kind in ((socket.AF_NETLINK, socket.SOCK_RAW), (socket.AF_PACKET, socket.SOCK_RAW)):
        try:
            socket.socket(family, kind)
            leak(f"opened a socket of family {family}")
        except OSError as exc:
            report("BLOCKED", f"family {family}: {exc}")
    for path in ("/var/run/postgresql/.s.PGSQL.5432", "/run/postgresql/.s.PGSQL.5432", "/var/run/redis/redis.sock"):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            leak(f"connected to {path}")
        except OSError as exc:
            report("BLOCKED", f"{path}: {exc}")
    report("UNIX", "ok" if socket.socketpair() else "no")


play(on_start=start)
