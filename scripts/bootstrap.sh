#!/usr/bin/env bash
# Create .venv and install Arbiter with its dev tools, once; again when pyproject.toml changes.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "Arbiter needs Python 3.11 or newer as '$PYTHON' (set PYTHON=/path/to/python3.11)." >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    echo "==> creating .venv"
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.arbiter-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "==> installing Arbiter and its dependencies into .venv"
    .venv/bin/python -m pip install -q --upgrade pip
    if ! .venv/bin/python -m pip install -q -e '.[dev]' >.venv/pip-editable.log 2>&1; then
        # The code runs from this checkout either way; only the dependencies are essential.
        echo "==> editable install failed (see .venv/pip-editable.log); installing the dependencies only"
        .venv/bin/python scripts/dependencies.py | xargs .venv/bin/python -m pip install -q
    fi
    touch "$stamp"
fi
