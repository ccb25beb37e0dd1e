#!/usr/bin/env bash
# Build Arbiter's container image with podman and smoke-test it against a PostgreSQL and a
# Redis that already run on this machine (CI starts both).  No registry is needed: the base
# image is made from Debian's archive (deploy/build-base.sh).
#
#   deploy/image-smoke.sh            # as root; needs podman, runc, catatonit, mmdebstrap, python3
#
# In order: base image (reused while younger than a week), image build, no .env or secret in
# any layer, the sandbox refusing to start without each container option and naming it, then
# migrate, web, a worker, beat and the beat queue's worker on the host network: /healthz,
# /metrics, every role's HEALTHCHECK, deploy/sandbox_probe.py in the worker, a round robin
# uploaded through the API plus `manage.py demo`, each language's starter built on the worker (which
# has the compose file's capabilities, no CAP_SYS_ADMIN) and played, and every seat of every match `ok`.
# Everything it starts is named arbiter-smoke-<run>-*, and removed on exit, pass or fail,
# with its database and its Redis keys.  Kept between runs, for speed: the base image and
# podman's build cache (only the dependency layers are reused while pyproject.toml is the same).
#
# Settings (environment):
#   ARBITER_SMOKE_DATABASE_URL   a PostgreSQL role that may create databases   postgres://postgres@127.0.0.1:5432/postgres
#   ARBITER_SMOKE_REDIS_URL      Redis (the run uses a queue of its own)       redis://127.0.0.1:6379/0
#   ARBITER_SMOKE_FIRST_UID      first sandbox uid; 2 x 32 uids from there     63000
#   ARBITER_SMOKE_BASE_MAX_AGE_DAYS  rebuild the Debian base when older        7
#   ARBITER_SMOKE_DEMO           0: skip `manage.py demo` (28 matches)         1
#   ARBITER_SMOKE_TIMEOUT        seconds for all matches to finish             480
#   ARBITER_SMOKE_TOOLCHAINS     the image's BOT_TOOLCHAINS (empty: the slim   the full image's four
#                                image, whose starters in C, Python and JavaScript alone are played)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

DB_ADMIN_URL="${ARBITER_SMOKE_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
REDIS_URL="${ARBITER_SMOKE_REDIS_URL:-redis://127.0.0.1:6379/0}"
FIRST_UID="${ARBITER_SMOKE_FIRST_UID:-63000}"
SLOTS=32
MAX_AGE_DAYS="${ARBITER_SMOKE_BASE_MAX_AGE_DAYS:-7}"
DEMO="${ARBITER_SMOKE_DEMO:-1}"
PLAY_TIMEOUT="${ARBITER_SMOKE_TIMEOUT:-480}"
TOOLCHAINS="${ARBITER_SMOKE_TOOLCHAINS-g++ rustc golang-go openjdk-17-jdk-headless}"
# The starters `arbiter new` writes, each uploaded, built where it has a build (every worker builds, each
# build capped by the kernel in a user namespace of its own: docs/bots.md) and played: all seven in the full
# image, those of the slim one (C, Python, JavaScript) without $TOOLCHAINS.
if [ -n "$TOOLCHAINS" ]; then LANGUAGES="python,c,javascript,cpp,rust,go,java"; else LANGUAGES="python,c,javascript"; fi

RUN="$(date -u +%H%M%S)-$$"
NAME="arbiter-smoke-$RUN"
DEBIAN_TAG=localhost/arbiter-smoke-debian:bookworm
BASE_TAG=localhost/arbiter-smoke-base:bookworm
APP_TAG=localhost/arbiter-smoke-app:latest
DB_NAME="arbiter_smoke_${RUN//-/_}"
DB_URL="${DB_ADMIN_URL%/*}/$DB_NAME"
QUEUE="arbiter-smoke-$RUN"
# The worker's options, exactly deploy/docker-compose.yml's (docs/deploy.md explains each).
SECCOMP=(--security-opt seccomp=unconfined)
SYSTEMPATHS=(--security-opt systempaths=unconfined)
# shellcheck disable=SC2054  # the commas belong to --cap-add's value
WORKER_BASE=(--user root --security-opt apparmor=unconfined --cap-drop ALL
    --cap-add SETUID,SETGID,KILL,SYS_NICE,SYS_PTRACE,DAC_OVERRIDE)

STARTED=$SECONDS
WORK="$(mktemp -d /tmp/arbiter-smoke.XXXXXX)"
CONTAINERS=()
DB_CREATED=0
OK=0

say() { printf '\n==> [%4ss] %s\n' "$((SECONDS - STARTED))" "$*"; }
fail() { printf 'image-smoke: FAILED: %s\n' "$*" >&2; exit 1; }

# A one-shot container of the image on the host network, standard input passed on (scripts).
oneshot() { podman run --rm -i --no-healthcheck --network host --env-file "$WORK/app.env" "$APP_TAG" "$@"; }

cleanup() {
    local code=$? name left
    set +e
    if [ "$OK" != 1 ] && [ "${#CONTAINERS[@]}" -gt 0 ]; then
        for name in "${CONTAINERS[@]}"; do
            printf '\n--- last lines of %s\n' "$name" >&2
            podman logs --tail 40 "$name" 2>&1 | cut -c1-400 >&2
        done
    fi
    if [ "${#CONTAINERS[@]}" -gt 0 ]; then
        say "removing containers"
        # One at a time, and once more on failure: podman 4.3 has left one of a batch behind.
        for name in "${CONTAINERS[@]}"; do
            podman rm --force --time 5 "$name" >/dev/null 2>&1 || { sleep 2; podman rm --force "$name" >/dev/null 2>&1; }
        done
        left="$(podman ps --all --filter "name=^$NAME-" --format '{{.Names}}')"
        [ -z "$left" ] || { echo "image-smoke: could not remove: $left" >&2; code=1; }
    fi
    if [ "$DB_CREATED" = 1 ]; then
        oneshot python - "$DB_ADMIN_URL" "$DB_NAME" "$QUEUE" <<'PY' >/dev/null 2>&1 || echo "image-smoke: could not drop database $DB_NAME" >&2
import os, sys
import psycopg, redis
admin, db, queue = sys.argv[1:]
with psycopg.connect(admin, autocommit=True) as conn:
    conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
r = redis.Redis.from_url(os.environ["REDIS_URL"])
for key in r.scan_iter(f"*{queue}*"):
    r.delete(key)
PY
    fi
    rm -rf "$WORK"
    if [ "$code" = 0 ]; then say "image smoke passed"; else echo "image-smoke: failed (exit $code) after $((SECONDS - STARTED)) s" >&2; fi
    exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
say "preflight"
[ "$(id -u)" = 0 ] || fail "run as root (the worker container gives every bot its own uid)"
for tool in podman runc mmdebstrap python3; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install podman runc catatonit mmdebstrap)"
done
[ -x /usr/libexec/podman/catatonit ] || command -v catatonit >/dev/null || fail "catatonit is missing (apt-get install catatonit)"
podman --version

# podman's defaults do not suit a machine like this one, and the smoke must not change the
# machine's own /etc/containers: a private configuration for this run.  runc, because crun
# refuses cgroup v1 in hybrid mode; ulimits no higher than this shell may grant (podman's default
# nofile of 1048576 fails without CAP_SYS_RESOURCE), and nproc at most 32768, which podman 4.3
# caps its own processes at before it starts a container.
nofile="$(ulimit -Hn)"
nproc="$(ulimit -Hu)"
[ "$nofile" = unlimited ] && nofile=1048576
{ [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768
cat >"$WORK/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF="$WORK/containers.conf"

# ---------------------------------------------------------------------------------------------
say "base image"
built_at="$(podman image inspect --format '{{.Created.Unix}}' "$DEBIAN_TAG" 2>/dev/null || echo 0)"
if [ $(( $(date +%s) - built_at )) -gt $((MAX_AGE_DAYS * 86400)) ]; then
    deploy/build-base.sh "$DEBIAN_TAG"
else
    echo "reusing $DEBIAN_TAG, built $(date -u -d "@$built_at" +%Y-%m-%dT%H:%MZ) (rebuilt after $MAX_AGE_DAYS days)"
fi
# python:3.11-slim has a python3 of its own in /usr/local/bin, first on PATH; this base gets one
# too, so that the sandbox probe below proves bots still run Debian's /usr/bin/python3.
# The label marks every image built on it, so that old build layers of this script alone are pruned.
cat >"$WORK/Containerfile.base" <<EOF
FROM $DEBIAN_TAG
LABEL io.arbiter.smoke=1
RUN ln -s /usr/bin/python3 /usr/local/bin/python3 && ln -s /usr/bin/python3 /usr/local/bin/python
EOF
podman build --quiet --pull=never --format docker -f "$WORK/Containerfile.base" -t "$BASE_TAG" "$WORK" >/dev/null

# ---------------------------------------------------------------------------------------------
say "image build"
# The build context is a copy of the checkout with .env files (holding a canary secret), a
# var/, a .venv and a .git planted in it: .dockerignore must keep every one of them out.
canary="arbiter-smoke-canary-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
mkdir -p "$WORK/context"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$WORK/context" 2>/dev/null || true
else
    tar -C "$ROOT" --exclude=./.venv --exclude=./var --exclude=./.git -cf - . | tar -C "$WORK/context" -xf -
fi
[ -f "$WORK/context/deploy/Dockerfile" ] || fail "could not copy the checkout to $WORK/context"
mkdir -p "$WORK/context/var" "$WORK/context/.venv" "$WORK/context/.git"
for planted in .env deploy/.env deploy/production.env var/arbiter.sqlite3 .venv/pyvenv.cfg .git/config; do
    printf 'SECRET_KEY=%s\nPOSTGRES_PASSWORD=%s\n' "$canary" "$canary" >"$WORK/context/$planted"
done
ca=()
# pip inside the build trusts what this machine trusts (a proxy's CA, say): the host's bundle, read-only.
[ -f /etc/ssl/certs/ca-certificates.crt ] && ca=(-v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro)
build_started=$SECONDS
# --format docker keeps the HEALTHCHECK (the OCI format has none); --pull=never: no registry.
podman build --format docker --pull=never --layers "${ca[@]}" --build-arg "BASE_IMAGE=$BASE_TAG" \
    --build-arg "BOT_TOOLCHAINS=$TOOLCHAINS" \
    -f "$WORK/context/deploy/Dockerfile" -t "$APP_TAG" "$WORK/context" >"$WORK/build.log" 2>&1 \
    || { tail -40 "$WORK/build.log" >&2; fail "podman build"; }
BUILD_S=$((SECONDS - build_started))
# Layers of earlier builds that the new image no longer uses (the cache keeps those it does).
podman image prune --force --filter label=io.arbiter.smoke=1 >/dev/null 2>&1 || true
SIZE="$(podman image inspect --format '{{.Size}}' "$APP_TAG")"
echo "built $APP_TAG in ${BUILD_S} s ($(grep -c -- '--> Using cache' "$WORK/build.log" || true) steps from cache), $((SIZE / 1000000)) MB"

say "no .env and no secret in the image"
podman save --quiet --format docker-archive -o "$WORK/image.tar" "$APP_TAG" >/dev/null
hits="$(grep -a -c -F "$canary" "$WORK/image.tar" || true)"
rm -f "$WORK/image.tar"
[ "$hits" = 0 ] || fail "the canary secret planted in the build context's .env files is in the image ($hits hits)"
found="$(podman run --rm --no-healthcheck --network none --user root "$APP_TAG" find / -xdev \( -name .env -o -name '*.env' \) -print)"
[ -z "$found" ] || fail "env files in the image: $found"
env_keys="$(podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$APP_TAG" | cut -d= -f1)"
for key in SECRET_KEY POSTGRES_PASSWORD DATABASE_URL REDIS_URL FLOWER_BASIC_AUTH ARBITER_METRICS_TOKEN; do
    ! grep -qx "$key" <<<"$env_keys" || fail "the image sets $key"
done
echo "no .env file, no canary in any layer or in the history, no secret in the image's environment"

say "the sandbox refuses to start without each container option, and names it"
# Another uid range than the worker below: two sandboxes must never share slot uids.
refused() {
    local option="$1"
    shift
    local out
    if out="$(podman run --rm --no-healthcheck --network none "${WORKER_BASE[@]}" "$@" -e "ARBITER_SANDBOX_FIRST_UID=$((FIRST_UID + SLOTS))" \
        -e "ARBITER_SANDBOX_SLOTS=$SLOTS" "$APP_TAG" python deploy/sandbox_probe.py 2>&1)"; then
        fail "the sandbox started without $option: $out"
    fi
    grep -q -- "$option" <<<"$out" || fail "without $option the error does not name it: $out"
    echo "without $option: $(grep -o '"error": .*' <<<"$out" | cut -c1-300)"
}
refused seccomp=unconfined "${SYSTEMPATHS[@]}"
refused systempaths=unconfined "${SECCOMP[@]}"

say "the compose file, as podman-compose reads it"
if command -v podman-compose >/dev/null; then
    printf 'SECRET_KEY=x\nPOSTGRES_PASSWORD=x\nARBITER_HOST=x\nFLOWER_BASIC_AUTH=x:y\n' >"$WORK/compose.env"
    podman-compose -f deploy/docker-compose.yml --env-file "$WORK/compose.env" config >"$WORK/compose.out" 2>&1 \
        || { cat "$WORK/compose.out" >&2; fail "podman-compose cannot read deploy/docker-compose.yml"; }
    # Every Arbiter service waits for its own dependencies (podman 4.3 cannot wait for "healthy").
    [ "$(grep -c 'deploy/wait_ready.py' "$WORK/compose.out")" -ge 6 ] \
        || fail "podman-compose config lacks wait_ready.py for each Arbiter service"
    version="$(podman-compose --version)"  # not "| head -1": it would break the pipe under pipefail
    echo "podman-compose reads it (${version//$'\n'/, })"
else
    echo "podman-compose is not installed: skipped (.ci/run installs it)"
fi

# ---------------------------------------------------------------------------------------------
say "database $DB_NAME, queue $QUEUE"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port="$(free_port)"
umask 077
cat >"$WORK/app.env" <<EOF
DATABASE_URL=$DB_URL
REDIS_URL=$REDIS_URL
SECRET_KEY=smoke-$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
DEBUG=0
ALLOWED_HOSTS=127.0.0.1,localhost
ARBITER_QUEUE=$QUEUE
ARBITER_LOG_FORMAT=json
ARBITER_SANDBOX_FIRST_UID=$FIRST_UID
ARBITER_SANDBOX_SLOTS=$SLOTS
EOF
umask 022
oneshot python - "$DB_ADMIN_URL" "$DB_NAME" <<'PY'
import sys
import psycopg
admin, db = sys.argv[1:]
with psycopg.connect(admin, autocommit=True) as conn:
    conn.execute(f'CREATE DATABASE "{db}"')
PY
DB_CREATED=1

say "migrate"
oneshot python manage.py migrate --noinput -v1 </dev/null | tail -3

say "web, worker, beat, the beat queue's worker and flower"
# Without systemd podman cannot run health checks on a timer (it would complain at every start):
# no timer, and `podman healthcheck run` below runs each role's check once.
start() {
    local role="$1"
    shift
    CONTAINERS+=("$NAME-$role")
    podman run -d --name "$NAME-$role" --network host --init --health-interval disable \
        --env-file "$WORK/app.env" "$@" \
        >/dev/null 2>"$WORK/$role.podman.log" || { cat "$WORK/$role.podman.log" >&2; fail "starting $role"; }
    echo "$NAME-$role started"
}
start web -e "ARBITER_BIND=127.0.0.1:$port" -e WEB_CONCURRENCY=2 -e ARBITER_HEALTH_SANDBOX=0 "$APP_TAG"
start worker "${WORKER_BASE[@]}" "${SECCOMP[@]}" "${SYSTEMPATHS[@]}" \
    -e ARBITER_SANDBOX_LOCK_DIR=/var/lib/arbiter-slots -e ARBITER_SANDBOX_DIR=/var/lib/arbiter/sandbox \
    "$APP_TAG" celery -A workers.celery_app worker -l info --concurrency=2 -n "worker-$RUN@%h"
start beat "$APP_TAG" celery -A workers.celery_app beat -l info -s /tmp/celerybeat-schedule
start maintenance "$APP_TAG" celery -A workers.celery_app worker -l info -c 1 -Q "$QUEUE.beat" -n "maintenance-$RUN@%h"
flower_port="$(free_port)"
start flower -e "FLOWER_PORT=$flower_port" -e FLOWER_ADDRESS=127.0.0.1 -e FLOWER_BASIC_AUTH=smoke:smoke-password \
    "$APP_TAG" celery -A workers.celery_app flower

say "/healthz and /metrics"
python3 deploy/smoke_api.py health "http://127.0.0.1:$port" --timeout 90

say "each role's health check (the image's HEALTHCHECK)"
for role in web worker beat maintenance flower; do
    for attempt in $(seq 1 20); do
        if podman healthcheck run "$NAME-$role" >"$WORK/health.out" 2>&1; then
            echo "$role: healthy"
            break
        fi
        [ "$attempt" = 20 ] && { cat "$WORK/health.out" >&2; fail "the $role container's health check fails"; }
        sleep 2
    done
done

say "sandbox probe in the worker"
probe="$(podman exec "$NAME-worker" python deploy/sandbox_probe.py)" || fail "sandbox probe: $probe"
echo "$probe"
grep -q '"distribution_python": true' <<<"$probe" || fail "bots do not run /usr/bin/python3"

demo_token=()
if [ "$DEMO" = 1 ]; then
    say "manage.py demo"
    demo_out="$(oneshot python manage.py demo </dev/null 2>"$WORK/demo.log")" \
        || { tail -20 "$WORK/demo.log" >&2; fail "manage.py demo"; }
    tail -1 <<<"$demo_out"
    token="$(sed -n 's/.*API token for demo: \([0-9a-f]*\).*/\1/p' <<<"$demo_out")"
    [ -n "$token" ] || fail "no API token in the demo's output"
    demo_token=(--demo-token "$token")
fi

say "a round robin through the API (and the demo's): every seat ok"
python3 deploy/smoke_api.py play "http://127.0.0.1:$port" "${demo_token[@]}" --timeout "$PLAY_TIMEOUT" \
    --languages "$LANGUAGES" \
    | tee "$WORK/play.json"
summary="$(tail -1 "$WORK/play.json")"

OK=1
say "summary"
echo "build ${BUILD_S} s, image $((SIZE / 1000000)) MB, matches and seats: $summary, total $((SECONDS - STARTED)) s"
