"""The embedded broker: kombu's file-system transport with whole message files only.

Kombu's own file-system transport creates a message file under its final name
and then writes it, holding an advisory lock that its reader never takes: a
consumer polling the folder can take a file that is still empty or half
written, and the JSON error it then raises stops the Celery worker
("Unrecoverable error: JSONDecodeError"), the message gone with it.

Here a producer writes each message to a hidden ``.<name>.part`` file in the
same folder and renames it into place, so a reader only ever lists complete
files.  A reader takes a file by renaming it into the processed folder (one
consumer wins, the others move on), waits for any writer still holding the
file's lock (a producer of kombu's own transport, from before an upgrade), and
gives a file that still does not parse to the quarantine folder, logged and
counted, instead of raising.  Registered as ``arbiterfs://`` by
:func:`register`; the settings use it when no Redis is configured.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import threading
import time
import uuid
from pathlib import Path
from queue import Empty
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem, virtual
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

log = logging.getLogger(__name__)

ALIAS = "arbiterfs"
PART_SUFFIX = ".part"

_counted = threading.Lock()
_quarantined = 0


def quarantined_count() -> int:
    """How many message files this process has put in quarantine since it started."""
    return _quarantined


def quarantined_files(folder: str | Path) -> int:
    """How many message files wait in quarantine folder ``folder`` (every process's, until someone looks)."""
    try:
        return sum(1 for entry in os.scandir(folder) if entry.is_file())
    except FileNotFoundError:
        return 0


def register() -> None:
    """Make ``arbiterfs://`` name this transport (kombu resolves the alias when it connects)."""
    TRANSPORT_ALIASES[ALIAS] = f"{__name__}:Transport"


class Channel(filesystem.Channel):
    """A file-system channel whose message files appear whole or not at all."""

    # Kombu's stubs give the base and the file-system channel different signatures; this is the latter.
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        """Write ``payload`` under a hidden name, then rename it into the queue folder."""
        # Kombu's name: milliseconds first keeps the folder's sorted order the sending order.
        name = f"{round(time.monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        part = os.path.join(self.data_folder_out, f".{name}{PART_SUFFIX}")
        try:
            with open(part, "xb", buffering=0) as f:
                f.write(str_to_bytes(dumps(payload)))
            os.rename(part, final)
        except OSError as exc:
            _remove(part)
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue: str, timeout: float | None = None) -> Any:
        """The oldest whole message of ``queue``; files that never parse are quarantined, not raised."""
        wanted = f"{queue}.msg"
        # A missing processed folder would make every rename below fail like a lost race: never take anything.
        os.makedirs(self.processed_folder, exist_ok=True)
        for name in sorted(os.listdir(self.data_folder_in)):
            if name.startswith(".") or name.partition(".")[2] != wanted:
                continue
            taken = os.path.join(self.processed_folder, name)
            try:
                # Atomic within one file system: of several consumers, exactly one gets the file.
                os.rename(os.path.join(self.data_folder_in, name), taken)
            except FileNotFoundError:
                continue
            except OSError as exc:
                if exc.errno == errno.EXDEV:
                    raise ChannelError("the broker's queue and processed folders must share a file system") from exc
                continue
            payload = self._read_taken(taken)
            if payload is not None:
                return payload
        raise Empty()

    def _read_taken(self, path: str) -> dict[str, Any] | None:
        """The message in a file this consumer took; None when it was quarantined."""
        deadline = time.monotonic() + self.read_wait_s
        while True:
            data: bytes | None = None
            try:
                data = _read_unlocked(path, deadline)
                payload = loads(bytes_to_str(data)) if data is not None else None
            except (ValueError, UnicodeDecodeError):
                payload = None
            except OSError as exc:
                raise ChannelError(f"Cannot read file {path!r} from queue.") from exc
            if isinstance(payload, dict):
                if not self.store_processed:
                    _remove(path)
                return payload
            if time.monotonic() >= deadline:
                self._quarantine(path, data)
                return None
            # A writer that creates the file before it locks it leaves a moment of an empty, unlocked file.
            time.sleep(0.02)

    def _quarantine(self, path: str, data: bytes | None) -> None:
        global _quarantined
        target = Path(self.quarantine_folder) / Path(path).name
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)
        with _counted:
            _quarantined += 1
            count = _quarantined
        size = "still locked by its writer" if data is None else f"{len(data)} bytes"
        log.error(
            "broker: message file %s does not hold a whole message (%s); moved to %s "
            "(%d quarantined by this process); its match is sent again by the dispatcher",
            Path(path).name,
            size,
            target.parent,
            count,
        )

    def get_table(self, exchange: str) -> list[Any]:
        """The exchange's bindings; none while another process creates its file (kombu writes it in place)."""
        try:
            return super().get_table(exchange)
        except ValueError:
            return []

    @property
    def quarantine_folder(self) -> str:
        default = os.path.join(os.path.dirname(os.path.abspath(self.processed_folder)), "quarantine")
        return str(self.transport_options.get("quarantine_folder", default))

    @property
    def read_wait_s(self) -> float:
        return float(self.transport_options.get("read_wait_s", 2.0))


class Transport(filesystem.Transport):
    """Kombu's file-system transport with :class:`Channel`."""

    Channel = Channel
    # Bindings this process has declared: its own, not shared with kombu's transport in the same process.
    global_state = virtual.BrokerState()
    driver_type = driver_name = ALIAS


def _read_unlocked(path: str, deadline: float) -> bytes | None:
    """The file's bytes once no writer holds its lock; None if one still does at ``deadline``."""
    with open(path, "rb") as f:
        while True:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return None
                time.sleep(0.01)
        try:
            return f.read()
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)
