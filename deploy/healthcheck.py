"""Container health probe: exit status 0 when healthy, 1 otherwise (prints what it checked).

``healthcheck.py http [URL]``: ask a running web process (default http://127.0.0.1:8000/healthz).
``healthcheck.py local``: run the same checks (database, broker, sandbox self-test) in this
process, with this container's privileges; that is how a worker, which serves no HTTP, proves
that it can still reach both services and start a sandbox.
``healthcheck.py auto``: the check for this container's role, which is ``ARBITER_ROLE`` when set
(``web``, ``worker``, ``maintenance``, ``beat``, ``flower``, ``migrate``), else read from the
command lines of the container's processes.  The image's HEALTHCHECK runs this, so every role
gets a check that fits it from one image:

* web: ``/healthz`` on its own port (``ARBITER_BIND``);
* worker: ``local``, sandbox included;
* maintenance (the worker of the beat queue, which never starts a bot): database and broker;
* beat: the beat process is alive and the broker answers;
* flower: its ``/healthcheck`` page answers;
* migrate, or a command this does not know: nothing to check (a one-shot, or a shell).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

# Run as a script (the image's health check, compose's entrypoint): the packages sit beside deploy/.
_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))
config = importlib.import_module("workers.config")

ROLES = ("web", "worker", "maintenance", "beat", "flower", "migrate")


def _http(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=8) as response:
            print(response.read().decode()[:2000])
            return 0 if response.status == 200 else 1
    except urllib.error.HTTPError as exc:
        print(exc.read().decode()[:2000])
        return 1
    except OSError as exc:
        print(f"{url}: {exc}")
        return 1


def _setup_django() -> None:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")
    import django

    django.setup()


def _local(sandbox: bool = True) -> int:
    if not sandbox:
        os.environ["ARBITER_HEALTH_SANDBOX"] = "0"
    _setup_django()
    from tournaments.ops.health import health_report

    ok, body = health_report()
    print(json.dumps(body))
    return 0 if ok else 1


def command_lines(proc: Path = Path("/proc")) -> list[list[str]]:
    """The argv of every process this container can see (other than this one)."""
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            raw = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if raw:
            found.append([part.decode(errors="replace") for part in raw.rstrip(b"\0").split(b"\0")])
    return found


def role_of(argv: list[str]) -> str | None:
    """The role one process plays, judged from its argv; None when it is none of Arbiter's."""
    names = [os.path.basename(part) for part in argv]
    if any(name.startswith("gunicorn") for name in names):
        return "web"
    if "celery" in names:
        for role in ("beat", "flower"):
            if role in argv:
                return role
        if "worker" in argv:
            # The beat queue's own worker: `-Q <queue>.beat` (docs/operations.md).
            queues = [argv[i + 1] for i, part in enumerate(argv[:-1]) if part in ("-Q", "--queues")]
            queues += [part.split("=", 1)[1] for part in argv if part.startswith("--queues=")]
            return "maintenance" if queues and all(q.endswith(".beat") for q in queues) else "worker"
    if "manage.py" in names and "migrate" in argv:
        return "migrate"
    return None


def detect_role(environ: dict[str, str] | None = None, proc: Path = Path("/proc")) -> str | None:
    """``ARBITER_ROLE`` if set, else the first role found among the container's processes."""
    role: str = config.read("ARBITER_ROLE", environ)
    if role:
        return role
    for argv in command_lines(proc):
        if (found := role_of(argv)) is not None:
            return found
    return None


def _web_url() -> str:
    host, _, port = config.read("ARBITER_BIND").rpartition(":")
    host = "127.0.0.1" if host in ("", "0.0.0.0", "[::]", "::") else host
    return f"http://{host}:{port or 8000}/healthz"


def _beat() -> int:
    if not any(role_of(argv) == "beat" for argv in command_lines()):
        print("no celery beat process in this container")
        return 1
    # Beat itself needs only the broker (its schedule lives in code and a local file).
    os.environ["ARBITER_HEALTH_SANDBOX"] = "0"
    _setup_django()
    from tournaments.ops.health import check_broker

    broker = check_broker()
    print(json.dumps({"beat": "running", "broker": broker.__dict__}))
    return 0 if broker.ok else 1


def _auto() -> int:
    role = detect_role()
    if role == "web":
        return _http(_web_url())
    if role == "worker":
        return _local(sandbox=True)
    if role == "maintenance":
        return _local(sandbox=False)
    if role == "beat":
        return _beat()
    if role == "flower":
        port = config.read("FLOWER_PORT")
        return _http(f"http://127.0.0.1:{port}/healthcheck")
    if role not in (None, "migrate"):
        print(f"ARBITER_ROLE={role!r} is none of {', '.join(ROLES)}")
        return 1
    print(f"role {role or 'unknown'}: nothing to check")
    return 0


def main(argv: list[str]) -> int:
    """Run the check named by ``argv[1]`` (``http`` by default); 0 when healthy."""
    mode = argv[1] if len(argv) > 1 else "http"
    if mode == "http":
        return _http(argv[2] if len(argv) > 2 else "http://127.0.0.1:8000/healthz")
    if mode == "local":
        return _local()
    if mode == "auto":
        return _auto()
    print(f"usage: {argv[0]} http [URL] | local | auto", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
