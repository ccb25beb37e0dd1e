# Arbiter: `make start` runs everything locally; `make test` runs the test suite.
.PHONY: start test lint format venv migrate demo worker web clean-var

VENV := .venv
PY := $(VENV)/bin/python

venv:
	@scripts/bootstrap.sh

start:
	@scripts/start.sh

# SQLite and no Redis by default; tests marked `services` run when
# ARBITER_TEST_DATABASE_URL and ARBITER_TEST_REDIS_URL are set (and fail under CI without them).
test: venv
	$(PY) -m pytest $(PYTEST_ARGS)

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(PY) manage.py makemigrations --check --dry-run

format: venv
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

migrate: venv
	$(PY) manage.py migrate

demo: migrate
	$(PY) manage.py demo

worker: venv
	$(VENV)/bin/celery -A workers.celery_app worker -l info

web: venv
	$(PY) manage.py runserver $${ARBITER_START_HOST:-127.0.0.1}:8000

# Forget the embedded database, queue and package cache.
clean-var:
	rm -rf var

# Benchmarks (bench/run_all.py; docs/benchmarks.md).  Needs PostgreSQL and Redis (ARBITER_BENCH_DATABASE_URL / ARBITER_TEST_DATABASE_URL,
# ARBITER_BENCH_REDIS_URL / ARBITER_TEST_REDIS_URL; local servers by default).
# BENCH_ARGS=--quick tries every script at small sizes.
.PHONY: bench
bench: venv
	$(PY) -m bench.run_all $(BENCH_ARGS)
