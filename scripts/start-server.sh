#!/usr/bin/env bash
# The last step of `make start`: the banner, then the development server in the foreground.
# PORT (8000) and ARBITER_START_HOST (127.0.0.1) say where it listens.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${PORT:-8000}"
# Loopback only unless asked: this is DEBUG with the demo's well-known passwords.
host="${ARBITER_START_HOST:-127.0.0.1}"
if [ "$host" = "127.0.0.1" ] || [ "$host" = "localhost" ]; then
    reach="only from this machine (ARBITER_START_HOST=0.0.0.0 opens it to the network)"
else
    reach="from the network on ${host} -- with DEBUG on and the demo passwords below: trusted networks only"
fi
# DEMO_ROUND_ROBINS_STARTED: how many round robins `manage.py demo` started just now (scripts/start.sh).
tournaments="http://localhost:${port}/api/tournaments/"
case "${DEMO_ROUND_ROBINS_STARTED:-}" in
    "") demo="The demo's round robins: ${tournaments}" ;;
    0) demo="The demo's round robins were made by an earlier start; see them at ${tournaments}" ;;
    1) demo="The demo's new round robin runs now; watch it at ${tournaments}" ;;
    *) demo="The demo's ${DEMO_ROUND_ROBINS_STARTED} new round robins run now; watch them at ${tournaments}" ;;
esac
cat <<BANNER

  Arbiter is starting on http://localhost:${port}/, listening on ${host}:${port}
  reachable ${reach}.
    Pages:  http://localhost:${port}/games/       (leaderboards, tournaments, replays)
    API:    http://localhost:${port}/api/         (demo user: demo / demo)
    Admin:  http://localhost:${port}/admin/       (admin / admin)
  ${demo}
  The ladders rank the reference bots within a minute: http://localhost:${port}/games/gamesup/leaderboard/
  Ctrl-C stops the server and the worker.

BANNER
exec .venv/bin/python manage.py runserver "${host}:${port}"
