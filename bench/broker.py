"""The embedded broker: kombu's ``filesystem://`` against Arbiter's ``arbiterfs://`` (workers/broker_files.py).

Two measurements per transport, each in a fresh folder:

1. throughput: one process sends ``--messages`` messages, then takes them all
   back (messages/s each way; no polling sleep, ``get_nowait``);
2. race: ``--producers`` processes send ``--per-producer`` messages each of
   ``--size`` bytes while one consumer takes them as they come; it counts the
   messages lost (sent, never received), duplicated (received twice) and
   choked on (a read that raised: a Celery worker dies of it).

The payload size widens the window in which kombu's own transport lets a
reader see a half-written file; a Celery ``run_next`` message is about 1 KB.

    python -m bench.broker [--messages 2000] [--producers 4] [--per-producer 500] [--size 1024 --size 262144]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import kombu

from workers import broker_files

TRANSPORTS = ("filesystem", broker_files.ALIAS)


def _options(folder: Path) -> dict[str, Any]:
    for part in ("queue", "processed", "control", "quarantine"):
        (folder / part).mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "processed_folder": str(folder / "processed"),
        "control_folder": str(folder / "control"),
        "quarantine_folder": str(folder / "quarantine"),
        "store_processed": False,
        "read_wait_s": 2.0,
    }


def _queue(folder: Path) -> str:
    # A process remembers the bindings it declared (per transport, not per folder): a new name per folder.
    return f"bench-{uuid.uuid5(uuid.NAMESPACE_URL, str(folder)).hex[:8]}"


def _connection(transport: str, folder: Path) -> kombu.Connection:
    broker_files.register()
    return kombu.Connection(f"{transport}://", transport_options=_options(folder))


def throughput(transport: str, folder: Path, messages: int) -> tuple[float, float]:
    """(sent/s, consumed/s) for ``messages`` 1 KB messages, one process."""
    body = {"pad": "x" * 1000}
    with _connection(transport, folder) as conn:
        queue = conn.SimpleQueue(_queue(folder))
        start = time.perf_counter()
        for i in range(messages):
            queue.put({**body, "i": i})
        sent = time.perf_counter() - start
        start = time.perf_counter()
        for _ in range(messages):
            queue.get_nowait().ack()
        consumed = time.perf_counter() - start
        queue.close()
    return messages / sent, messages / consumed


def _produce(transport: str, folder: str, producer: int, count: int, size: int) -> None:
    with _connection(transport, Path(folder)) as conn:
        queue = conn.SimpleQueue(_queue(Path(folder)))
        for i in range(count):
            queue.put({"id": f"{producer}:{i}", "pad": "x" * size})
        queue.close()


def race(transport: str, folder: Path, producers: int, per_producer: int, size: int) -> dict[str, int]:
    """Concurrent producers and one consumer: how many messages were lost, duplicated and choked on."""
    context = multiprocessing.get_context("spawn")
    procs = [
        context.Process(target=_produce, args=(transport, str(folder), p, per_producer, size)) for p in range(producers)
    ]
    received: list[str] = []
    choked = 0
    with _connection(transport, folder) as conn:
        queue = conn.SimpleQueue(_queue(folder))
        for proc in procs:
            proc.start()
        while True:
            running = any(p.is_alive() for p in procs)
            try:
                message = queue.get_nowait()
            except queue.Empty:
                if not running:
                    break
                continue
            except ValueError:  # kombu's own transport: a half-written file's JSON error
                choked += 1
                continue
            received.append(message.payload["id"])
            message.ack()
        queue.close()
    for proc in procs:
        proc.join()
    sent = producers * per_producer
    unique = set(received)
    return {
        "sent": sent,
        "received": len(received),
        "lost": sent - len(unique),
        "duplicated": len(received) - len(unique),
        "choked": choked,
        "quarantined": len(os.listdir(folder / "quarantine")),
    }


def main() -> None:
    """Print both measurements for both transports."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--producers", type=int, default=4)
    parser.add_argument("--per-producer", type=int, default=500)
    parser.add_argument("--size", type=int, action="append", help="payload bytes (repeatable; 1024 and 262144)")
    args = parser.parse_args()
    sizes = args.size or [1024, 262144]
    print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for transport in TRANSPORTS:
        with tempfile.TemporaryDirectory(prefix="arbiter-bench-broker-") as tmp:
            sent, consumed = throughput(transport, Path(tmp), args.messages)
        print(f"{transport:>10}  throughput: {sent:8.0f} sent/s  {consumed:8.0f} consumed/s  ({args.messages} x 1 KB)")
        for size in sizes:
            with tempfile.TemporaryDirectory(prefix="arbiter-bench-broker-") as tmp:
                r = race(transport, Path(tmp), args.producers, args.per_producer, size)
            print(
                f"{transport:>10}  race: {args.producers} producers x {args.per_producer} x {size} B + 1 consumer: "
                f"sent {r['sent']}, received {r['received']}, lost {r['lost']}, duplicated {r['duplicated']}, "
                f"choked on {r['choked']}, quarantined {r['quarantined']}"
            )


if __name__ == "__main__":
    main()
