"""Container health probe: exit status 0 when healthy, 1 otherwise (prints the checks as JSON).

``healthcheck.py http [URL]``: ask a running web process (default http://127.0.0.1:8000/healthz).
``healthcheck.py local``: run the same checks (database, broker, sandbox self-test) in this
process, with this container's privileges; that is how a worker, which serves no HTTP, proves
that it can still reach both services and start a sandbox.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request


def _http(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=8) as response:
            print(response.read().decode())
            return 0 if response.status == 200 else 1
    except urllib.error.HTTPError as exc:
        print(exc.read().decode())
        return 1
    except OSError as exc:
        print(f"{url}: {exc}")
        return 1


def _local() -> int:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")
    import django

    django.setup()
    from tournaments.ops.health import health_report

    ok, body = health_report()
    print(json.dumps(body))
    return 0 if ok else 1


def main(argv: list[str]) -> int:
    mode = argv[1] if len(argv) > 1 else "http"
    if mode == "http":
        return _http(argv[2] if len(argv) > 2 else "http://127.0.0.1:8000/healthz")
    if mode == "local":
        return _local()
    print(f"usage: {argv[0]} http [URL] | local", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
