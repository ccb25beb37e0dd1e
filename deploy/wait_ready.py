"""Wait until the database and the broker answer (and, with ``--migrated``, the schema is current), then exec a command.

``python deploy/wait_ready.py [--migrated] [--timeout S] -- COMMAND [ARG...]``

The compose file starts every Arbiter process through this, so the start order holds
whatever the engine supports: Docker Compose waits for "healthy" and for migrate to finish,
but podman-compose on podman older than 4.6 starts everything at once.  ``migrate`` waits for
PostgreSQL to accept connections; web, workers, beat and flower wait, with ``--migrated``,
until every migration has been applied.  Progress goes to stderr; after ``--timeout`` seconds
(180) it gives up with exit status 1, and the container's restart policy takes over.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from pathlib import Path

# Run as a script (the image's health check, compose's entrypoint): the packages sit beside deploy/.
_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))
config = importlib.import_module("workers.config")

ROOT = Path(__file__).resolve().parents[1]


def _say(message: str) -> None:
    print(f"wait_ready: {message}", file=sys.stderr, flush=True)


def pending(migrated: bool) -> str:
    """What is still missing ("" when ready): the database, the broker, or migrations."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor
    from django.db.utils import Error

    from tournaments.ops.health import check_broker

    try:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        if migrated:
            executor = MigrationExecutor(connection)
            plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
            if plan:
                return f"{len(plan)} migration(s) not applied yet (the migrate service applies them)"
    except Error as exc:
        connection.close()  # a fresh connection next time, not a broken one
        return f"database: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}"
    broker = check_broker()
    return "" if broker.ok else f"broker: {broker.detail}"


def main(argv: list[str]) -> int:
    """Parse ``argv``, wait, then exec the command (returns only on a timeout or a usage error)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--migrated", action="store_true", help="also wait until no migration is pending")
    parser.add_argument("--timeout", type=float, default=config.read("ARBITER_WAIT_TIMEOUT"))
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("a command to run is required after --")
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")
    import django

    django.setup()
    deadline = time.monotonic() + args.timeout
    last = None
    while missing := pending(args.migrated):
        if missing != last:
            _say(f"waiting: {missing}")
            last = missing
        if time.monotonic() > deadline:
            _say(f"gave up after {args.timeout:.0f} s: {missing}")
            return 1
        time.sleep(1)
    if last is not None:
        _say("ready")
    from django.db import connection

    connection.close()  # the command opens its own
    os.execvp(command[0], command)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
