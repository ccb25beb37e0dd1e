#!/usr/bin/env bash
# Run Arbiter's production process set on this machine, without Docker:
# gunicorn (web), N Celery workers and one Celery beat, against an existing
# PostgreSQL and Redis.  Each process runs in its own session, under a loop
# that starts it again when it exits; its pid and log go to the run directory,
# and `stop` ends every process group it started (loops included).
#
#   DATABASE_URL=postgres://... REDIS_URL=redis://... deploy/run-local.sh start
#   deploy/run-local.sh status
#   deploy/run-local.sh stop
#
# Settings (environment):
#   ARBITER_RUN_DIR           pids and logs                       var/run
#   ARBITER_BIND              gunicorn's address                  127.0.0.1:8000
#   WEB_CONCURRENCY           gunicorn worker processes           2
#   ARBITER_WORKERS           Celery worker processes (machines)  2
#   ARBITER_WORKER_CONCURRENCY  matches at once per worker        2
#   ARBITER_STOP_TIMEOUT      seconds a warm shutdown may take    60
#   ARBITER_CACHE_URL         the web processes' shared cache     REDIS_URL
#   PYTHON                    interpreter with Arbiter installed  .venv/bin/python, else python3
# Everything else (SECRET_KEY, ALLOWED_HOSTS, ARBITER_*) is passed through to Django.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
RUN_DIR="${ARBITER_RUN_DIR:-$ROOT/var/run}"
BIND="${ARBITER_BIND:-127.0.0.1:8000}"
WORKERS="${ARBITER_WORKERS:-2}"
CONCURRENCY="${ARBITER_WORKER_CONCURRENCY:-2}"
STOP_TIMEOUT="${ARBITER_STOP_TIMEOUT:-60}"
if [ -z "${PYTHON:-}" ]; then
    if [ -x "$ROOT/.venv/bin/python" ]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi
export WEB_CONCURRENCY="${WEB_CONCURRENCY:-2}" ARBITER_BIND="$BIND" PYTHONUNBUFFERED=1
export DJANGO_SETTINGS_MODULE=tournaments.settings

say() { printf 'run-local: %s\n' "$*" >&2; }

# Names of the processes this run dir knows about, in stop order (web first: no new matches).
names() {
    local f
    for f in "$RUN_DIR"/web.pid "$RUN_DIR"/beat.pid "$RUN_DIR"/worker*.pid; do
        [ -e "$f" ] && basename "$f" .pid
    done
    return 0
}

# A process group is alive while any member is still running.  Zombies do not count: when the
# caller is a child subreaper (as test runners that played matches are), our orphans' zombies
# wait there to be reaped, and kill -0 would take them for live processes.
alive() {
    local want="$1" f line fields
    for f in /proc/[0-9]*/stat; do
        read -r line 2>/dev/null <"$f" || continue
        # Fields after the command name, which may hold spaces: state ppid pgrp ...
        read -r -a fields <<<"${line##*) }"
        [ "${fields[2]}" = "$want" ] && [ "${fields[0]}" != Z ] && return 0
    done
    return 1
}

spawn() {
    local name="$1"
    shift
    # Not a group leader here, so setsid makes the command a new session (pid = pgid) and execs it;
    # the command runs under a restart loop (scripts/supervise.sh): a process that dies comes back.
    setsid "$ROOT/scripts/supervise.sh" "$@" >>"$RUN_DIR/$name.log" 2>&1 </dev/null &
    echo $! >"$RUN_DIR/$name.pid"
    say "$name started (pid $!, log $RUN_DIR/$name.log)"
}

wait_healthy() {
    "$PYTHON" - "$BIND" <<'PY'
import sys, time, urllib.error, urllib.request
host, _, port = sys.argv[1].rpartition(":")
host = "127.0.0.1" if host in ("", "0.0.0.0", "[::]") else host
url = f"http://{host}:{port}/healthz"
deadline = time.monotonic() + 90
while True:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            print(r.read().decode(), file=sys.stderr)
            sys.exit(0)
    except urllib.error.HTTPError as exc:  # up, but a check fails: report it, do not wait forever
        print(exc.read().decode(), file=sys.stderr)
        sys.exit(0 if exc.code != 503 else 3)
    except OSError:
        if time.monotonic() > deadline:
            print(f"no answer from {url}", file=sys.stderr)
            sys.exit(2)
        time.sleep(0.5)
PY
}

start() {
    : "${DATABASE_URL:?set DATABASE_URL (postgres://...)}"
    : "${REDIS_URL:?set REDIS_URL (redis://...)}"
    # Several gunicorn workers: their throttle counts must live in one shared cache.
    export ARBITER_CACHE_URL="${ARBITER_CACHE_URL:-$REDIS_URL}"
    mkdir -p "$RUN_DIR"
    local name
    for name in $(names); do
        if alive "$(cat "$RUN_DIR/$name.pid")"; then
            say "$name is already running; run '$0 stop' first"
            exit 1
        fi
        rm -f "$RUN_DIR/$name.pid"
    done
    "$PYTHON" manage.py migrate --noinput -v0
    "$PYTHON" manage.py collectstatic --noinput -v0
    spawn web "$PYTHON" -m gunicorn -c deploy/gunicorn.conf.py tournaments.wsgi:application
    local n
    for n in $(seq 1 "$WORKERS"); do
        spawn "worker$n" "$PYTHON" -m celery -A workers.celery_app worker -l info -c "$CONCURRENCY" \
            -n "worker$n-$$@%h" --without-gossip --without-mingle
    done
    spawn beat "$PYTHON" -m celery -A workers.celery_app beat -l info \
        -s "$RUN_DIR/celerybeat-schedule" --pidfile "$RUN_DIR/beat.celery.pid"
    # One small worker for the beat queue alone, so sweeps, dispatches and scheduled
    # starts never wait behind long matches (docs/operations.md).
    spawn worker-maintenance "$PYTHON" -m celery -A workers.celery_app worker -l info -c 1 \
        -Q "${ARBITER_QUEUE:-celery}.beat" -n "maintenance-$$@%h" --without-gossip --without-mingle
    if ! wait_healthy; then
        say "the web did not come up healthy; see $RUN_DIR/web.log (processes left running: '$0 stop')"
        exit 1
    fi
    say "running; stop with: ARBITER_RUN_DIR=$RUN_DIR $0 stop"
}

stop() {
    local name pid pids=() waited=0
    for name in $(names); do
        pid="$(cat "$RUN_DIR/$name.pid")"
        if alive "$pid"; then
            # TERM: gunicorn and beat exit, a Celery worker finishes its running matches first.
            kill -TERM -- "-$pid" 2>/dev/null || true
            pids+=("$pid")
        fi
    done
    while :; do
        local left=()
        for pid in "${pids[@]}"; do alive "$pid" && left+=("$pid"); done
        [ "${#left[@]}" -eq 0 ] && break
        if [ "$waited" -ge $((STOP_TIMEOUT * 10)) ]; then
            # Matches cut short here are re-delivered (late acks) and re-run elsewhere.
            say "killing what did not stop within ${STOP_TIMEOUT}s: ${left[*]}"
            for pid in "${left[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
            sleep 0.5
            break
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    for name in $(names); do rm -f "$RUN_DIR/$name.pid"; done
    rm -f "$RUN_DIR/beat.celery.pid"
    say "stopped"
}

status() {
    local name pid code=0
    for name in $(names); do
        pid="$(cat "$RUN_DIR/$name.pid")"
        if alive "$pid"; then echo "$name running (pid $pid)"; else echo "$name stopped"; code=1; fi
    done
    return "$code"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    restart) stop; start ;;
    *) echo "usage: $0 start|stop|status|restart" >&2; exit 2 ;;
esac
