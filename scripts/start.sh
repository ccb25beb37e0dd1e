#!/usr/bin/env bash
# One command for a newcomer: venv, bubblewrap, database, demo data, a worker, the web server.
# Embedded mode (SQLite + file-system broker under var/) unless DATABASE_URL / REDIS_URL are set.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh

if ! command -v bwrap >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "==> installing bubblewrap (the bots' sandbox)"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap
    else
        echo "Arbiter runs every bot inside bubblewrap, which is not installed. Install it with:" >&2
        echo "    sudo apt-get install -y bubblewrap" >&2
        echo "then run 'make start' again." >&2
        exit 1
    fi
fi

mkdir -p var
echo "==> migrating the database"
.venv/bin/python manage.py migrate --noinput -v0
echo "==> loading the demo (users, reference bots, round robins)"
.venv/bin/python manage.py demo

echo "==> starting a Celery worker in the background (log: var/worker.log)"
.venv/bin/celery -A workers.celery_app worker -B -s var/celerybeat-schedule -l info >var/worker.log 2>&1 &
worker=$!
stop_worker() {
    if kill -0 "$worker" 2>/dev/null; then
        echo "==> stopping the worker"
        kill -TERM "$worker" 2>/dev/null || true
        wait "$worker" 2>/dev/null || true
    fi
}
trap stop_worker EXIT
trap 'exit 130' INT TERM

port="${PORT:-8000}"
# Loopback only unless asked: this is DEBUG with the demo's well-known passwords.
host="${ARBITER_START_HOST:-127.0.0.1}"
if [ "$host" = "127.0.0.1" ] || [ "$host" = "localhost" ]; then
    reach="only from this machine (ARBITER_START_HOST=0.0.0.0 opens it to the network)"
else
    reach="from the network on ${host} -- with DEBUG on and the demo passwords below: trusted networks only"
fi
cat <<BANNER

  Arbiter is starting on http://localhost:${port}/, listening on ${host}:${port}
  reachable ${reach}.
    Pages:  http://localhost:${port}/games/       (leaderboards, tournaments, replays)
    API:    http://localhost:${port}/api/         (demo user: demo / demo)
    Admin:  http://localhost:${port}/admin/       (admin / admin)
  The demo round robins run now; watch them at http://localhost:${port}/api/tournaments/
  Ctrl-C stops the server and the worker.

BANNER
.venv/bin/python manage.py runserver "${host}:${port}"
