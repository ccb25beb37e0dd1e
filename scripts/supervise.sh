#!/usr/bin/env bash
# Run a command, and start it again whenever it exits, until this script is told to stop.
#
#   scripts/supervise.sh COMMAND [ARGS...]
#
# SIGTERM or SIGINT to this script is passed to the command and ends the loop once the
# command has exited (a Celery worker finishes its running matches first).  A command that
# keeps dying at once is started again less and less often, at most a minute apart.
# make start and deploy/run-local.sh run their processes under it; systemd units use
# Restart=always instead (deploy/systemd/).
set -u
stopping=0
child=0
on_stop() {
    stopping=1
    if [ "$child" -gt 0 ]; then kill -TERM "$child" 2>/dev/null || true; fi
}
trap on_stop TERM INT

delay=1
while :; do
    started=$SECONDS
    "$@" &
    child=$!
    code=0
    wait "$child" || code=$?
    # A trapped signal ends the wait early: wait for the command itself.
    while kill -0 "$child" 2>/dev/null; do wait "$child" || code=$?; done
    child=0
    [ "$stopping" = 1 ] && exit 0
    if [ $((SECONDS - started)) -ge 60 ]; then delay=1; else delay=$((delay * 2 > 60 ? 60 : delay * 2)); fi
    echo "supervise: $1 exited with status $code; starting it again in ${delay} s" >&2
    sleep "$delay" &
    wait $! || true
    [ "$stopping" = 1 ] && exit 0
done
