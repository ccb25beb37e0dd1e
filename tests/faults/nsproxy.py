"""A TCP forwarder that listens inside one network namespace and connects out of another.

    python nsproxy.py /run/netns/NAME LISTEN_HOST:PORT=TARGET_HOST:PORT ...

The listening sockets are created after ``setns`` into the named namespace
(so other namespaces reach them at an address that exists only there); the
process then switches back, and every outgoing connection is made from the
namespace it started in.  The fault tests use it to make the PostgreSQL and
Redis of the root namespace look like a database host at 10.x.y.1.
Prints ``ready`` once every listener is up.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import socket
import sys
import threading

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


def _serve(listener: socket.socket, target: tuple[str, int]) -> None:
    while True:
        client, _ = listener.accept()
        try:
            upstream = socket.create_connection(target, timeout=10)
            upstream.settimeout(None)
        except OSError:
            client.close()
            continue
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=_pipe, args=(a, b), daemon=True).start()


def main(argv: list[str]) -> None:
    netns, routes = argv[0], argv[1:]
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    there = os.open(netns, os.O_RDONLY)
    listeners = []
    _setns(there)
    try:
        for route in routes:
            listen, target = route.split("=")
            host, port = listen.rsplit(":", 1)
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, int(port)))
            s.listen(64)
            thost, tport = target.rsplit(":", 1)
            listeners.append((s, (thost, int(tport))))
    finally:
        _setns(home)  # threads started from here on connect out of the original namespace
    for s, target in listeners:
        threading.Thread(target=_serve, args=(s, target), daemon=True).start()
    print("ready", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main(sys.argv[1:])
