"""Helpers shared by the referee and sandbox tests: the test engine, bots, limits and checks."""

from __future__ import annotations

import contextlib
import os
import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path

from kit import REFERENCE_BOTS
from tests.ci import need, unavailable
from tests.referee import countgame
from workers.match import Clock
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.slots import NoFreeSlotError, acquire_slot, pids_of_uid
from workers.sandbox.start import BotProgram, SandboxUnavailableError, sandbox_available

REPO = Path(__file__).resolve().parents[2]
RANDOM_BOT = REFERENCE_BOTS / "random_bot.py"
# Short clocks keep the suites fast; timeouts are tested with these.
FAST = Clock(move_ms=400, game_ms=5000, startup_ms=4000)
FIRST_UID = 61200  # away from the service's default pool (60000+) and from older test runs (61000+)
SLOTS = 16  # every test process keeps a few launchers waiting (ARBITER_SANDBOX_WARM), each in a slot


def make_limits(runtime: Path, **overrides: object) -> SandboxLimits:
    """Sandbox limits for tests: a private runtime dir and slot range."""
    values: dict[str, object] = {"first_uid": FIRST_UID, "slots": SLOTS, "runtime_dir": str(runtime)}
    values.update(overrides)
    return SandboxLimits(**values)  # type: ignore[arg-type]


def require_sandbox(limits: SandboxLimits) -> None:
    """Skip without a working bubblewrap; fail instead when running in CI."""
    try:
        ok = sandbox_available(limits)
    except SandboxUnavailableError as exc:
        unavailable(f"no working sandbox here: {exc}")
    assert ok
    need(os.geteuid() == 0, "the sandbox tests need root (slot uids)")


def require_cgroups(limits: SandboxLimits) -> None:
    """Skip without usable control groups; fail instead when running in CI."""
    from workers.sandbox.cgroups import detect

    support = detect(limits.cgroups)
    need(support.usable, f"no usable control groups here: {support.reason}")


def write_bot(directory: Path, source: str, name: str = "main.py", extra: dict[str, str] | None = None) -> BotProgram:
    """A bot directory holding ``source`` as ``name`` (plus any extra files)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(textwrap.dedent(source))
    for fname, text in (extra or {}).items():
        (directory / fname).write_text(textwrap.dedent(text))
    return BotProgram(directory=directory, command=("python3", name))


def random_bot(directory: Path) -> BotProgram:
    """The reference random bot in its own directory."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(RANDOM_BOT, directory / "main.py")
    return BotProgram(directory=directory, command=("python3", "main.py"))


def survivors() -> dict[int, list[int]]:
    """Processes still running under a free test slot uid (should always be empty between matches).

    Slots locked by someone else (another test session on this machine) are busy, not leaking.
    """
    out = {}
    lock_dir = SandboxLimits().lock_path()
    for uid in range(FIRST_UID, FIRST_UID + SLOTS):
        try:
            with acquire_slot(lock_dir, uid, 1, wait_s=0):
                pids = pids_of_uid(uid)
        except NoFreeSlotError:
            continue
        if pids:
            out[uid] = pids
    return out


@contextlib.contextmanager
def engine_registered() -> Iterator[None]:
    """The count-test engine in the registry for the duration only.

    The registry is process-wide: leaving a test-only game in it would show up in other
    suites (the engine conformance tests, the service's list of games).
    """
    from engines import registry

    countgame.register()
    try:
        yield
    finally:
        registry._ENGINES.pop(countgame.ENGINE.id, None)
