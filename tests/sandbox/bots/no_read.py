"""Answers ready, then never reads its input again while the referee writes a large turn."""

import json
import sys
import time

line = sys.stdin.readline()
assert json.loads(line)["type"] == "start"
sys.stdout.write('{"type": "ready"}\n')
sys.stdout.flush()
time.sleep(10_000)
