#!/bin/sh
# Entrypoint of the Debian PostgreSQL image (deploy/services.Dockerfile): on an empty data
# directory, create the cluster with POSTGRES_USER / POSTGRES_PASSWORD (password logins over
# the network, scram-sha-256) and the database POSTGRES_DB; then run the server as postgres.
set -eu

: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
data="${PGDATA:-/var/lib/postgresql/data}"

if [ "$(id -u)" = 0 ]; then
    mkdir -p "$data"
    chown postgres:postgres "$data"
    chmod 700 "$data"
    if [ ! -s "$data/PG_VERSION" ]; then
        echo "postgres-entrypoint: creating the cluster in $data for $user, database $db" >&2
        pwfile="$(mktemp)"
        printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
        chown postgres "$pwfile"
        runuser -u postgres -- initdb -D "$data" -U "$user" --pwfile="$pwfile" \
            --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
        rm -f "$pwfile"
        echo "host all all all scram-sha-256" >>"$data/pg_hba.conf"
        # Only the local socket while the database is made: nobody connects half-way.
        runuser -u postgres -- pg_ctl -D "$data" -w -o "-c listen_addresses=''" start >/dev/null
        if [ "$db" != postgres ]; then
            runuser -u postgres -- createdb -U "$user" "$db"
        fi
        runuser -u postgres -- pg_ctl -D "$data" -m fast -w stop >/dev/null
    fi
    exec runuser -u postgres -- "$@" -D "$data" -c listen_addresses='*'
fi
exec "$@" -D "$data" -c listen_addresses='*'
