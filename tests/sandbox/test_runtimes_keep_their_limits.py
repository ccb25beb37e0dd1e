"""Bots of every runtime start and play although no process of theirs may change its resource limits.

The seccomp filter refuses ``setrlimit`` and ``prlimit64`` with a new limit (a
lowered CPU limit would have the kernel SIGKILL the bot, and that reads like a
kill from outside).  Runtimes that adjust their limits at start (Node.js raises
its open-file limit where it can, GCC its stack) take the refusal in their
stride.  Each bot below starts, tries to change a limit, reports what happened
on stderr (``LIMIT:refused`` or ``LIMIT:set``) and plays the whole match.
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.ci import need
from tests.referee.support import random_bot, survivors
from workers.match import Clock, MatchSpec
from workers.referee.play import play_match
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.runtimes import runtime_available
from workers.sandbox.start import BotProgram

PYTHON = """
import json, resource, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16))
            print("LIMIT:set", file=sys.stderr, flush=True)
        except (OSError, ValueError) as exc:
            print(f"LIMIT:refused {exc}", file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "turn":
        print(json.dumps({"move": msg["legal_moves"][0]}), flush=True)
    else:
        break
"""

# Node has no call of its own for limits: it asks a shell, as a bot's helper script would.
NODE = """
"use strict";
const { spawnSync } = require("child_process");
const readline = require("readline");
const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "start") {
    const shell = spawnSync("sh", ["-c", "ulimit -S -n 16"], { encoding: "utf8" });
    console.error(shell.status === 0 ? "LIMIT:set" : `LIMIT:refused ${shell.stderr.trim()}`);
    process.stdout.write(JSON.stringify({ type: "ready" }) + "\\n");
  } else if (msg.type === "turn") {
    process.stdout.write(JSON.stringify({ move: msg.legal_moves[0] }) + "\\n");
  } else {
    process.exit(0);
  }
});
"""

# Reads the turn's legal moves no further than the first string: the first move is "1" or "2".
C = r"""
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

int main(void) {
    static char line[1 << 16];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\": \"start\"") || strstr(line, "\"type\":\"start\"")) {
            struct rlimit lim = {16, 16};
            if (setrlimit(RLIMIT_NOFILE, &lim) == 0) fprintf(stderr, "LIMIT:set\n");
            else fprintf(stderr, "LIMIT:refused %s\n", strerror(errno));
            printf("{\"type\": \"ready\"}\n");
        } else if (strstr(line, "\"turn\"")) {
            char *moves = strstr(line, "\"legal_moves\"");
            char *first = moves ? strchr(moves + 14, '"') : NULL;
            printf("{\"move\": \"%c\"}\n", first ? first[1] : '1');
        } else {
            return 0;
        }
    }
    return 0;
}
"""


def python_bot(directory: Path) -> BotProgram:
    (directory / "main.py").write_text(textwrap.dedent(PYTHON))
    return BotProgram(directory=directory, command=("python3", "main.py"))


def node_bot(directory: Path) -> BotProgram:
    need(runtime_available("node"), "node is not installed (apt-get install nodejs)")
    (directory / "main.js").write_text(NODE)
    return BotProgram(directory=directory, command=("node", "--jitless", "main.js"))


def c_bot(directory: Path) -> BotProgram:
    need(runtime_available("gcc"), "gcc is not installed (apt-get install gcc)")
    (directory / "bot.c").write_text(C)
    subprocess.run(["gcc", "-O2", "-o", str(directory / "bot"), str(directory / "bot.c")], check=True)
    return BotProgram(directory=directory, command=("./bot",))


@pytest.mark.parametrize("make", [python_bot, node_bot, c_bot], ids=["python3", "node", "c"])
def test_a_bot_starts_and_plays_though_it_may_not_change_its_limits(
    tmp_path: Path, limits: SandboxLimits, make: object
) -> None:  # fmt: skip
    directory = tmp_path / "bot"
    directory.mkdir()
    bot = make(directory)  # type: ignore[operator]
    spec = MatchSpec("", "count-test", {"target": 10}, 3, 2, Clock(move_ms=2000, game_ms=20_000, startup_ms=8000))
    record = play_match(spec, [bot, random_bot(tmp_path / "random")], limits=limits)
    mine = record.seat_records[0]
    assert [s.status for s in record.seat_records] == ["ok", "ok"], (record.reason, mine.stderr[-500:])
    said = [line for line in mine.stderr.splitlines() if line.startswith("LIMIT:")]
    assert len(said) == 1 and said[0].startswith("LIMIT:refused"), mine.stderr[-500:]
    assert survivors() == {}
