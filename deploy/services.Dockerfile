# PostgreSQL and Redis images made from Debian 12's packages, for machines that reach Debian's
# mirrors but no container registry (docs/deploy.md, "With podman").  Where a registry is
# reachable, deploy/docker-compose.yml uses the official postgres and redis images instead.
# Each stands in for its official image as far as the compose file uses it: the same
# environment (POSTGRES_DB, POSTGRES_USER, POSTGRES_PASSWORD), data directories and commands.
#
#   podman build --format docker --pull=never --build-arg BASE_IMAGE=localhost/arbiter-base:bookworm \
#       --target postgres -t localhost/arbiter-postgres:bookworm -f deploy/services.Dockerfile deploy
#   podman build ... --target redis -t localhost/arbiter-redis:bookworm -f deploy/services.Dockerfile deploy
ARG BASE_IMAGE=debian:bookworm-slim

FROM ${BASE_IMAGE} AS postgres
# No cluster from the package's install script: the entrypoint makes one in the volume.
RUN apt-get update \
    && apt-get install -y --no-install-recommends postgresql-common \
    && sed -i 's/^#\?\s*create_main_cluster.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf \
    && apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o postgres -g postgres -m 2775 /var/run/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
CMD ["postgres"]

FROM ${BASE_IMAGE} AS redis
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o redis -g redis /data
COPY redis-entrypoint.sh /usr/local/bin/redis-entrypoint.sh
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["/usr/local/bin/redis-entrypoint.sh"]
CMD ["redis-server"]
