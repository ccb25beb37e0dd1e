#!/bin/sh
# Entrypoint of the Debian Redis image (deploy/services.Dockerfile), doing what the official
# image's does for the compose file: /data (a volume) belongs to redis, the server runs as
# redis, and with no password protected mode is off (the network is the compose project's own).
set -eu
if [ "${1:-}" = redis-server ]; then
    if [ "$(id -u)" = 0 ]; then
        chown redis:redis /data
        exec runuser -u redis -- "$@" --protected-mode no
    fi
    exec "$@" --protected-mode no
fi
exec "$@"
