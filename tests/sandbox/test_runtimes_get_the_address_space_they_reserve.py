"""The JVM and Go's runtime reserve far more address space than they use: a bot run by ``java`` or a
program Go built gets ``runtime_address_space_mb`` of it, every other program the bots' own limit
(the control group holds the memory of all to ``memory_mb``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.ci import need
from workers.sandbox.launcher import BOT_ENV, BotProgram
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.runtimes import program_limits, runtime_available


def _built(directory: Path, source: str, name: str, build: list[str]) -> BotProgram:
    directory.mkdir()
    (directory / name).write_text(source)
    env = {**BOT_ENV, "HOME": str(directory.parent / "home")}  # Go's cache stays with the test
    subprocess.run(build, cwd=directory, check=True, env=env)
    return BotProgram(directory=directory, command=("./bot",))


def test_java_and_go_programs_get_the_runtimes_address_space_and_others_keep_the_bots(tmp_path: Path) -> None:
    need(runtime_available("go") and runtime_available("gcc"), "go and gcc are needed (apt-get install golang-go gcc)")
    limits = SandboxLimits()
    go = _built(tmp_path / "go", "package main\nfunc main() {}\n", "main.go", ["go", "build", "-o", "bot", "main.go"])
    c = _built(tmp_path / "c", "int main(void) { return 0; }\n", "bot.c", ["gcc", "-o", "bot", "bot.c"])

    assert program_limits(go, limits).address_space_mb == limits.runtime_address_space_mb == 1024
    assert program_limits(go, limits).memory_mb == limits.memory_mb  # the group's memory: unchanged
    java = BotProgram(directory=tmp_path, command=("java", "-Xmx192m", "Main"))
    assert program_limits(java, limits).address_space_mb == 1024
    assert program_limits(c, limits) == limits
    assert program_limits(BotProgram(directory=tmp_path, command=("python3", "main.py")), limits) == limits
    # A build's own rule stands: it already reserves more than any bot.
    build = SandboxLimits(address_space_mb=4096)
    assert program_limits(go, build) == build
