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

from kit.starter import JAVA_COMMAND
from tests.ci import need
from tests.referee.support import random_bot, survivors
from workers.match import Clock, MatchSpec, SeatRecord
from workers.referee.play import play_match
from workers.sandbox.launcher import BOT_ENV
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


def _play_against_random(tmp_path: Path, limits: SandboxLimits, make: object) -> SeatRecord:
    """Play the bot ``make`` writes against the random bot; its seat, once both played the match out."""
    directory = tmp_path / "bot"
    directory.mkdir()
    bot = make(directory)  # type: ignore[operator]
    spec = MatchSpec("", "count-test", {"target": 10}, 3, 2, Clock(move_ms=2000, game_ms=20_000, startup_ms=8000))
    record = play_match(spec, [bot, random_bot(tmp_path / "random")], limits=limits)
    mine = record.seat_records[0]
    assert [s.status for s in record.seat_records] == ["ok", "ok"], (record.reason, mine.stderr[-800:])
    return mine


@pytest.mark.parametrize("make", [python_bot, node_bot, c_bot], ids=["python3", "node", "c"])
def test_a_bot_starts_and_plays_though_it_may_not_change_its_limits(
    tmp_path: Path, limits: SandboxLimits, make: object
) -> None:  # fmt: skip
    mine = _play_against_random(tmp_path, limits, make)
    said = [line for line in mine.stderr.splitlines() if line.startswith("LIMIT:")]
    assert len(said) == 1 and said[0].startswith("LIMIT:refused"), mine.stderr[-500:]
    assert survivors() == {}


# Ten thousand goroutines at work: Go's runtime runs them on a few threads (one per CPU it may use).
GO = """
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

func churn() int {
	var wg sync.WaitGroup
	sums := make(chan int, 10000)
	for g := 0; g < 10000; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			block := make([]byte, 4096) // 40 MB live at the peak, far below the bot's memory
			for i := range block {
				block[i] = byte(g + i)
			}
			sums <- int(block[g%4096])
		}(g)
	}
	wg.Wait()
	close(sums)
	total := 0
	for s := range sums {
		total += s
	}
	return total
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		var msg struct {
			Type       string   `json:"type"`
			LegalMoves []string `json:"legal_moves"`
		}
		json.Unmarshal(in.Bytes(), &msg)
		switch msg.Type {
		case "start":
			fmt.Fprintln(os.Stderr, "CHURN:", churn())
			fmt.Println(`{"type": "ready"}`)
		case "turn":
			churn()
			out, _ := json.Marshal(map[string]string{"move": msg.LegalMoves[0]})
			fmt.Println(string(out))
		default:
			return
		}
	}
}
"""

# Parallel streams and a hundred MiB of arrays: the JVM's pool and collector stay as small as the
# starter's flags make them (one processor, serial collection), its heap under -Xmx.
JAVA = """
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.stream.LongStream;

public final class Main {
    static long churn() {
        long[][] blocks = new long[100][];
        for (int i = 0; i < blocks.length; i++) blocks[i] = new long[128 * 1024];
        return LongStream.range(0, 2_000_000).parallel().map(x -> x * x % 7).sum() + blocks.length;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.contains("\\"start\\"")) {
                System.err.println("CHURN: " + churn());
                System.out.println("{\\"type\\": \\"ready\\"}");
            } else if (line.contains("\\"turn\\"")) {
                churn();
                int at = line.indexOf('"', line.indexOf("\\"legal_moves\\"") + 14);
                System.out.println("{\\"move\\": \\"" + line.charAt(at + 1) + "\\"}");
            } else {
                return;
            }
            System.out.flush();
        }
    }
}
"""


def go_bot(directory: Path) -> BotProgram:
    need(runtime_available("go"), "go is not installed (apt-get install golang-go)")
    (directory / "main.go").write_text(GO)
    home = directory.parent / "go-home"  # the build cache stays with the test
    subprocess.run(
        ["go", "build", "-o", "bot", "main.go"], cwd=directory, check=True, env={**BOT_ENV, "HOME": str(home)}
    )
    return BotProgram(directory=directory, command=("./bot",))


def java_bot(directory: Path) -> BotProgram:
    need(runtime_available("javac"), "javac is not installed (apt-get install openjdk-17-jdk-headless)")
    (directory / "Main.java").write_text(JAVA)
    subprocess.run(["javac", "Main.java"], cwd=directory, check=True)
    return BotProgram(directory=directory, command=JAVA_COMMAND)


@pytest.mark.parametrize("make", [go_bot, java_bot], ids=["go", "java"])
def test_a_runtime_with_many_threads_plays_within_the_default_limits(
    tmp_path: Path, limits: SandboxLimits, make: object
) -> None:  # fmt: skip
    # The default limits, as a fresh installation has them (only the tests' own slots differ).
    defaults = SandboxLimits()
    assert (limits.memory_mb, limits.processes, limits.runtime_address_space_mb, limits.cgroups) == (
        defaults.memory_mb, defaults.processes, defaults.runtime_address_space_mb, defaults.cgroups
    )  # fmt: skip
    mine = _play_against_random(tmp_path, limits, make)
    assert "CHURN:" in mine.stderr, mine.stderr[-800:]
    assert survivors() == {}
