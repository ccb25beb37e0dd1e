"""The embedded broker never hands a consumer half a message, and a file that never parses kills nothing.

Kombu's own file-system transport creates a message file under its final
name, then writes it: a consumer can take the file in between.  The first
tests hold such a writer halfway, on real files, and show kombu's reader
choking on the half (the message gone) where ``arbiterfs`` waits for the
writer and gets it whole; ``arbiterfs`` writers leave only a hidden part
file until the message is whole.  The last ones drop a torn message file
into the queue of a real embedded Celery worker: kombu's transport kills the
worker, ``arbiterfs`` quarantines the file and goes on working.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kombu
import pytest

from tests.live import ProcessSet
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for
from workers import broker_files

# What kombu's Channel._put does (open under the final name, lock, write, unlock), stopped halfway:
# it writes half the message, says so, and writes the rest when told to on stdin.
IN_PLACE_WRITER = """
import fcntl, sys
path, data = sys.argv[1], sys.argv[2].encode()
with open(path, "wb", buffering=0) as f:
    fcntl.flock(f.fileno(), fcntl.LOCK_EX)
    f.write(data[: len(data) // 2])
    print("half", flush=True)
    sys.stdin.readline()
    f.write(data[len(data) // 2 :])
    fcntl.flock(f.fileno(), fcntl.LOCK_UN)
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    broker = tmp_path / uuid.uuid4().hex[:8]
    for part in ("queue", "processed", "control", "quarantine"):
        (broker / part).mkdir(parents=True)
    return broker


def _connection(transport: str, folder: Path) -> kombu.Connection:
    broker_files.register()
    options = {
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "processed_folder": str(folder / "processed"),
        "control_folder": str(folder / "control"),
        "quarantine_folder": str(folder / "quarantine"),
        "read_wait_s": 2.0,
    }
    return kombu.Connection(f"{transport}://", transport_options=options)


def _queue(folder: Path) -> str:
    # A process remembers the bindings it declared per queue name, not per folder: a name per folder.
    return f"torn-{folder.parent.name}-{folder.name}"


def _message(folder: Path, body: dict[str, Any]) -> bytes:
    """The bytes kombu's producer writes for ``body``: a whole message, sent through a scratch folder."""
    scratch = folder / "scratch"
    for part in ("queue", "processed", "control", "quarantine"):
        (scratch / part).mkdir(parents=True)
    with _connection("filesystem", scratch) as conn:
        conn.SimpleQueue(_queue(scratch)).put(body)
    (sent,) = (scratch / "queue").iterdir()
    return sent.read_bytes()


@pytest.fixture
def half_written(folder: Path) -> Iterator[tuple[subprocess.Popen[str], dict[str, Any]]]:
    """A message file written in place by another process, held after its first half."""
    body = {"match": 7, "pad": "x" * 4000}
    data = _message(folder, body)
    path = folder / "queue" / f"1_writer.{_queue(folder)}.msg"
    writer = subprocess.Popen(
        [sys.executable, "-c", IN_PLACE_WRITER, str(path), data.decode()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None and writer.stdout.readline() == "half\n"
    try:
        yield writer, body
    finally:
        writer.kill()
        writer.wait()


def _finish(writer: subprocess.Popen[str]) -> None:
    assert writer.stdin is not None
    writer.stdin.write("go\n")
    writer.stdin.flush()


def test_kombus_reader_chokes_on_a_half_written_message_and_loses_it(
    folder: Path, half_written: tuple[subprocess.Popen[str], dict[str, Any]]
) -> None:
    writer, _ = half_written
    with _connection("filesystem", folder) as conn:
        queue = conn.SimpleQueue(_queue(folder))
        with pytest.raises(ValueError):  # JSONDecodeError: what stops a Celery worker
            queue.get_nowait()
        _finish(writer)
        assert writer.wait(10) == 0
        with pytest.raises(queue.Empty):  # and the message is gone
            queue.get_nowait()


def test_arbiterfs_waits_for_the_writer_and_gets_the_whole_message(
    folder: Path, half_written: tuple[subprocess.Popen[str], dict[str, Any]]
) -> None:
    writer, body = half_written
    got: list[Any] = []
    with _connection(broker_files.ALIAS, folder) as conn:
        queue = conn.SimpleQueue(_queue(folder))
        reader = threading.Thread(target=lambda: got.append(queue.get_nowait().payload))
        reader.start()
        reader.join(0.5)
        assert reader.is_alive(), "the reader did not wait for the writer's lock"
        _finish(writer)
        reader.join(10)
        assert got == [body]
    assert not os.listdir(folder / "quarantine")


def test_arbiterfs_writers_show_a_message_only_once_it_is_whole(folder: Path) -> None:
    with _connection(broker_files.ALIAS, folder) as conn:
        queue = conn.SimpleQueue(_queue(folder))
        data = _message(folder, {"match": 8})
        # A writer stopped halfway leaves this, and only this, in the folder.
        part = folder / "queue" / f".1_writer.{_queue(folder)}.msg{broker_files.PART_SUFFIX}"
        part.write_bytes(data[: len(data) // 2])
        with pytest.raises(queue.Empty):
            queue.get_nowait()
        queue.put({"match": 9})
        assert [n for n in os.listdir(folder / "queue") if not n.startswith(".")] != []
        assert queue.get_nowait().payload == {"match": 9}
    assert not os.listdir(folder / "quarantine")


def test_arbiterfs_quarantines_a_file_that_never_parses(folder: Path) -> None:
    before = broker_files.quarantined_count()
    with _connection(broker_files.ALIAS, folder) as conn:
        queue = conn.SimpleQueue(_queue(folder))
        (folder / "queue" / f"0_torn.{_queue(folder)}.msg").write_bytes(_message(folder, {"match": 1})[:40])
        queue.put({"match": 2})
        assert queue.get_nowait().payload == {"match": 2}
    assert os.listdir(folder / "quarantine") == [f"0_torn.{_queue(folder)}.msg"]
    assert broker_files.quarantined_count() == before + 1


# -- a real embedded Celery worker ---------------------------------------------------------


def _torn_file(procs: ProcessSet) -> Path:
    """Half of a message in the worker's queue folder, first in line."""
    path = procs.base_dir / "var" / "broker" / "queue" / f"0_torn.{procs.queue}.msg"
    path.write_text('{"body": "eyJ0YXNrIjogInRvdXJuYW1lbnRzLm1hdGNoZXMudGFza3MucnVuX25leHQi')
    return path


def _send_sweep(procs: ProcessSet) -> None:
    procs.shell("from tournaments.matches.tasks import matches_sweep\nmatches_sweep.delay()\nprint(1)")


@pytest.mark.slow
def test_a_torn_file_kills_a_worker_on_kombus_transport(live_processes: LiveFactory) -> None:
    procs = live_processes(embedded=True, workers=1, env={"CELERY_BROKER_URL": "filesystem://"})
    _torn_file(procs)
    wait_for(lambda: "Unrecoverable error: JSONDecodeError" in procs.log("w1"), 60, "the worker to choke")
    wait_for(procs.procs["w1"].exited, 30, "the worker to exit")


@pytest.mark.slow
def test_a_torn_file_is_quarantined_and_the_worker_goes_on(live_processes: LiveFactory) -> None:
    procs = live_processes(embedded=True, workers=1)
    torn = _torn_file(procs)
    quarantine = procs.base_dir / "var" / "broker" / "quarantine"
    wait_for(lambda: (quarantine / torn.name).exists(), 60, "the torn file in quarantine")
    _send_sweep(procs)
    wait_for(lambda: "matches_sweep" in procs.log("w1") and "succeeded" in procs.log("w1"), 60, "the next task")
    assert f"message file {torn.name} does not hold a whole message" in procs.log("w1")
    assert not procs.procs["w1"].exited()
