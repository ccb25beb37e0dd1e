"""A TCP forwarder in the test process that the test can cut and restore, as if the server behind it restarted.

    with TcpProxy("127.0.0.1", 5432) as proxy:
        url = proxy.address          # ("127.0.0.1", port): point the processes there
        proxy.cut()                  # every connection is reset, new ones are refused
        proxy.restore()              # connections are accepted again

Only the processes pointed at the proxy lose the server; everyone else on
the machine (other engineers' tests, the test itself) keeps using it.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading

from tests.live import free_port


def _reset(s: socket.socket) -> None:
    # SO_LINGER 0: close sends a reset, as a server process that died would.
    with contextlib.suppress(OSError):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        s.close()


class TcpProxy:
    """Forwards 127.0.0.1:<port> to ``target``; see the module docstring."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.address = ("127.0.0.1", free_port())
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self.cuts = 0

    def __enter__(self) -> TcpProxy:
        self.restore()
        return self

    def __exit__(self, *_: object) -> None:
        self.cut()

    def restore(self) -> None:
        """Listen (again) and forward every new connection."""
        with self._lock:
            if self._listener is not None:
                return
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(self.address)
            listener.listen(64)
            self._listener = listener
        threading.Thread(target=self._serve, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Stop listening (new connections are refused) and reset every open one."""
        with self._lock:
            listener, self._listener = self._listener, None
            sockets, self._open = self._open, set()
            self.cuts += 1
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for s in sockets:
            _reset(s)

    def _serve(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            try:
                upstream = socket.create_connection(self.target, timeout=10)
                upstream.settimeout(None)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                if self._listener is not listener:  # cut while connecting
                    _reset(client)
                    _reset(upstream)
                    continue
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
            src.close()  # each socket is closed by the thread that reads it
            with self._lock:
                self._open.discard(src)
                self._open.discard(dst)
