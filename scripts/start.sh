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

# Bots in other languages need their runtime in the workers' /usr; say so, do not install it unasked.
for runtime in gcc:gcc:C node:nodejs:JavaScript g++:g++:C++ rustc:rustc:Rust go:golang-go:Go \
    javac:openjdk-17-jdk-headless:Java; do
    IFS=: read -r program package language <<<"$runtime"
    [ -x "/usr/bin/$program" ] ||
        echo "note: $program is not installed; for bots in $language: sudo apt-get install -y $package"
done

mkdir -p var
echo "==> migrating the database"
.venv/bin/python manage.py migrate --noinput -v0
echo "==> loading the demo (users, reference bots, round robins)"
demo_said="$(.venv/bin/python manage.py demo)"
echo "$demo_said"
# The banner says what this start did: a warm start finds the demo's round robins made already.
started="$(sed -nE 's/.* ([0-9]+) round robins? started.*/\1/p' <<<"$demo_said")"
export DEMO_ROUND_ROBINS_STARTED="${started:-0}"

echo "==> starting a Celery worker in the background, restarted if it exits (log: var/worker.log)"
scripts/supervise.sh .venv/bin/celery -A workers.celery_app worker -B -s var/celerybeat-schedule -l info \
    >var/worker.log 2>&1 &
worker=$!
stop_worker() {
    if kill -0 "$worker" 2>/dev/null; then
        echo "==> stopping the worker"
        kill -TERM "$worker" 2>/dev/null || true
        wait "$worker" 2>/dev/null || true
    fi
}
trap stop_worker EXIT
# Ctrl-C is how a developer stops `make start`: a normal end, not a failure for make to report.
trap 'exit 0' INT TERM

scripts/start-server.sh
