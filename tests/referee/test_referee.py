"""The referee speaking the protocol with scripted bots, through the real sandbox."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

import engines
from tests.referee.support import FAST, random_bot, survivors, write_bot
from workers.match import Clock, MatchRecord, MatchSpec
from workers.referee.play import forfeit_ranks, play_match
from workers.sandbox import start
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.start import BotProgram, InfrastructureError, SandboxUnavailableError

# A bot skeleton: speaks the protocol; ``on_turn`` is filled in per test.
SKELETON = """
import json, sys, time, os
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
def send_both(a, b):
    sys.stdout.write(json.dumps(a) + "\\n" + json.dumps(b) + "\\n"); sys.stdout.flush()
def say_then_send(text, obj):
    sys.stdout.write(text + "\\n" + json.dumps(obj) + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        {on_start}
    elif msg["type"] == "turn":
        {on_turn}
    elif msg["type"] == "end":
        sys.stderr.write("END:" + json.dumps(msg) + "\\n")
        break
"""
READY = 'send({"type": "ready", "name": "scripted", "version": "7"})'
FIRST = 'send({"move": msg["legal_moves"][0]})'


def scripted(tmp_path: Path, name: str, on_turn: str = FIRST, on_start: str = READY) -> BotProgram:
    return write_bot(tmp_path / name, SKELETON.format(on_start=on_start, on_turn=on_turn))


def play(limits: SandboxLimits, bots: list[BotProgram], clock: Clock = FAST, **kw: object) -> MatchRecord:
    options = kw.pop("options", {"target": 10})
    seats = kw.pop("seats", len(bots))
    spec = MatchSpec(match_id=str(kw.pop("match_id", "")), engine_id="count-test", options=options, seed=3, seats=seats,
                     clock=clock)  # fmt: skip
    assert not kw, kw
    record = play_match(spec, bots, limits=limits)
    assert survivors() == {}
    return record


def test_normal_match_and_replay(tmp_path: Path, limits: SandboxLimits) -> None:
    record = play(limits, [random_bot(tmp_path / "a"), scripted(tmp_path, "b")], match_id="m-1")
    assert sorted(record.ranks) == [1, 2]
    assert [s.status for s in record.seat_records] == ["ok", "ok"]
    assert record.seat_records[0].name == "random" and record.seat_records[1].version == "7"
    assert record.reason == "target reached" and record.sandboxed
    assert all(s.cpu_ms is not None and s.peak_rss_kb for s in record.seat_records)
    final = record.replay().final_state()
    assert final.is_terminal() and list(final.result().ranks) == record.ranks
    json.dumps(record.to_json())
    # The end message carries the result.
    end = json.loads(record.seat_records[1].stderr.split("END:", 1)[1].splitlines()[0])
    assert end == {"type": "end", "result": {"ranks": record.ranks}, "reason": "target reached"}


def test_start_and_turn_messages(tmp_path: Path, limits: SandboxLimits) -> None:
    dump = 'sys.stderr.write("MSG:" + line); ' + FIRST
    bot = scripted(tmp_path, "b", on_turn=dump, on_start='sys.stderr.write("MSG:" + line); ' + READY)
    record = play(limits, [bot, random_bot(tmp_path / "a")], match_id="abc", options={"target": 4})
    messages = [json.loads(x.split("MSG:", 1)[1]) for x in record.seat_records[0].stderr.splitlines() if "MSG:" in x]
    start, turn = messages[0], messages[1]
    assert start == {
        "type": "start",
        "protocol": 1,
        "match": "abc",
        "game": "count-test",
        "options": {"target": 4, "extra": 0, "pad": 0},
        "seat": 0,
        "seats": 2,
        "teams": [[0], [1]],
        "clock": {"move_ms": FAST.move_ms, "game_ms": FAST.game_ms, "startup_ms": FAST.startup_ms},
    }
    assert turn["type"] == "turn" and turn["ply"] == 0 and turn["legal_moves"] == ["1", "2"]
    assert turn["observation"] == {"total": 0, "target": 4}
    assert turn["clock"] == {"move_ms": FAST.move_ms, "game_left_ms": FAST.game_ms}
    assert messages[2]["clock"]["game_left_ms"] <= FAST.game_ms


@pytest.mark.parametrize(
    ("on_turn", "on_start", "status"),
    [
        ("time.sleep(5)", READY, "timeout"),  # bot code: thinks past its move time
        ('send({"move": "3"})', READY, "illegal_move"),
        ('sys.stdout.write("{not json\\n"); sys.stdout.flush()', READY, "protocol_error"),
        ('send({"mvoe": "1"})', READY, "protocol_error"),
        ('send({"move": 1})', READY, "protocol_error"),
        ('send(["1"])', READY, "protocol_error"),
        ('sys.stdout.write("[" * 30000 + "]" * 30000 + "\\n"); sys.stdout.flush()', READY, "protocol_error"),
        ('sys.stdout.write(\'{"move": "1"}\\n\' * 2); sys.stdout.flush()', READY, "protocol_error"),
        (FIRST, 'send({"type": "steady"})', "protocol_error"),
        (FIRST, "time.sleep(30)", "startup_timeout"),  # bot code: never gets ready
        ("sys.exit(0)", READY, "crash"),
        (FIRST, "sys.exit(3)", "crash"),
        ('send({"move": "1", "pad": "x" * 70000})', READY, "output_limit"),
        (FIRST, READY + '; send({"chatty": True})', "protocol_error"),
    ],
)
def test_forfeits(tmp_path: Path, limits: SandboxLimits, on_turn: str, on_start: str, status: str) -> None:
    for seat in (0, 1):
        bots = [random_bot(tmp_path / f"r{seat}"), random_bot(tmp_path / f"r{seat}")]
        bots[seat] = scripted(tmp_path, f"bad{seat}", on_turn=on_turn, on_start=on_start)
        record = play(limits, bots, clock=Clock(move_ms=300, game_ms=5000, startup_ms=1500))
        assert record.seat_records[seat].status == status, record.reason
        assert record.seat_records[1 - seat].status == "ok"
        assert record.ranks[seat] == 2 and record.ranks[1 - seat] == 1
        assert record.scores is None and f"seat {seat} forfeited ({status}" in record.reason


BURN = "t = time.process_time()\n        while time.process_time() - t < 0.12: pass\n        "


def test_game_budget_is_cpu_time(tmp_path: Path, limits: SandboxLimits) -> None:
    # 120 ms of CPU per move against a 400 ms game budget: out of time on the fourth move.
    slow = scripted(tmp_path, "slow", on_turn=BURN + FIRST)
    record = play(
        limits,
        [slow, random_bot(tmp_path / "r")],
        clock=Clock(move_ms=1000, game_ms=400, startup_ms=3000),
        options={"target": 50},
    )
    assert record.seat_records[0].status == "timeout" and record.ranks == [2, 1]
    assert "CPU time" in record.seat_records[0].detail
    mine = [m.ms for m in record.moves if m.seat == 0]
    assert 2 <= len(mine) <= 4 and all(115 <= ms <= 400 for ms in mine), mine


def test_sleeping_bot_meets_the_wall_clock_backstop(tmp_path: Path, limits: SandboxLimits) -> None:
    # Sleeping costs no CPU, but the game's real-time allowance (2 x 400 ms + 1 s) runs out.
    sleepy = scripted(tmp_path, "sleepy", on_turn="time.sleep(0.12); " + FIRST)  # bot code: 120 ms asleep a move
    record = play(
        limits,
        [sleepy, random_bot(tmp_path / "r")],
        clock=Clock(move_ms=1000, game_ms=400, startup_ms=3000),
        options={"target": 100},
    )
    assert record.seat_records[0].status == "timeout" and record.ranks == [2, 1]
    assert "real time" in record.seat_records[0].detail
    mine = [m.ms for m in record.moves if m.seat == 0]
    assert 4 <= len(mine) <= 15 and sum(mine) < 400, mine


def test_total_output_limit(tmp_path: Path, runtime: Path) -> None:
    from tests.referee.support import make_limits

    limits = make_limits(runtime, output_kb=64)
    chatty = scripted(tmp_path, "chatty", on_turn='send({"move": msg["legal_moves"][0], "pad": "y" * 20000})')
    record = play(limits, [chatty, random_bot(tmp_path / "r")], options={"target": 40})
    assert record.seat_records[0].status == "output_limit" and record.ranks == [2, 1]


def test_both_fail_at_startup_is_a_draw(tmp_path: Path, limits: SandboxLimits) -> None:
    a = scripted(tmp_path, "a", on_start="time.sleep(30)")  # bot code: never gets ready
    b = scripted(tmp_path, "b", on_start="sys.exit(1)")
    record = play(limits, [a, b], clock=Clock(move_ms=300, game_ms=3000, startup_ms=800))
    assert [s.status for s in record.seat_records] == ["startup_timeout", "crash"]
    assert record.ranks == [1, 1] and record.moves == []


def test_team_forfeit_and_separate_processes(tmp_path: Path, limits: SandboxLimits) -> None:
    who = 'sys.stderr.write(f"UID:{os.getuid()}\\n"); ' + READY
    good = scripted(tmp_path, "good", on_start=who)
    bad = scripted(tmp_path, "bad", on_turn='send({"move": "nope"})', on_start=who)
    # Seat 1 (team [1, 3]) plays an illegal move: seats 1 and 3 are last, 0 and 2 share first.
    record = play(limits, [good, bad, good, good], seats=4)
    assert [s.status for s in record.seat_records] == ["ok", "illegal_move", "ok", "ok"]
    assert record.ranks == [1, 2, 1, 2]
    uids = {s.stderr.split("UID:")[1].split()[0] for s in record.seat_records}
    assert len(uids) == 4  # one process and one slot uid per seat, even for the same program


def test_stored_text_is_clean(tmp_path: Path, limits: SandboxLimits) -> None:
    # NUL, an escape sequence (window title), a carriage return, a bidi override, a lone surrogate.
    nasty = (
        'sys.stderr.write("a\\x00b\\x1b]0;pwned\\x07c\\rd\\u202ee\\tf\\n"); sys.stderr.flush(); '
        'send({"type": "ready", "name": "x\\u0000\\ud800\\x1b[2J"})'
    )
    record = play(limits, [scripted(tmp_path, "n", on_start=nasty), random_bot(tmp_path / "r")])
    seat = record.seat_records[0]
    assert seat.stderr.startswith("a\\x00b\\x1b]0;pwned\\x07c\\x0dd\\u202ee\tf\n"), seat.stderr[:80]
    assert seat.name == "x\\x00?\\x1b[2J"
    text = json.dumps(record.to_json(), ensure_ascii=False)
    assert not any(ch in text for ch in "\x00\x1b\x07\r\u202e")
    text.encode("utf-8")


def test_forfeit_ranks_rule() -> None:
    assert forfeit_ranks([[0], [1]], 2, {0}) == [2, 1]
    assert forfeit_ranks([[0], [1], [2]], 3, {1}) == [1, 3, 1]
    assert forfeit_ranks([[0], [1], [2]], 3, {1, 2}) == [1, 2, 2]
    assert forfeit_ranks([[0, 2], [1, 3]], 4, {3}) == [1, 2, 1, 2]
    assert forfeit_ranks([[0], [1]], 2, {0, 1}) == [1, 1]


def test_invalid_arguments(tmp_path: Path, limits: SandboxLimits) -> None:
    bot = random_bot(tmp_path / "r")
    with pytest.raises(engines.InvalidOptionsError):
        play_match(MatchSpec("", "count-test", {"target": -1}, seed=0, seats=2), [bot, bot], limits=limits)
    with pytest.raises(ValueError, match="need 2 bots"):
        play_match(MatchSpec("", "count-test", {}, seed=0, seats=2), [bot], limits=limits)


def test_missing_bwrap(tmp_path: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch, caplog) -> None:  # type: ignore[no-untyped-def]
    from tests.referee.support import make_limits

    monkeypatch.setattr(start, "BWRAP", "bwrap-not-installed")
    monkeypatch.setattr(start, "_checked", {})
    bot = random_bot(tmp_path / "r")
    with pytest.raises(SandboxUnavailableError, match="bubblewrap") as info:
        play(make_limits(runtime), [bot, bot])
    assert isinstance(info.value, InfrastructureError)
    with caplog.at_level(logging.WARNING, logger="workers.referee.play"):
        record = play(make_limits(runtime, allow_unsandboxed=True), [bot, bot])
    assert not record.sandboxed and [s.status for s in record.seat_records] == ["ok", "ok"]
    assert "WITHOUT a sandbox" in caplog.text
    # A bwrap that is there but cannot build a sandbox is as unavailable as a missing one.
    monkeypatch.setattr(start, "BWRAP", "false")
    with pytest.raises(SandboxUnavailableError, match="exit status 1"):
        play(make_limits(runtime), [bot, bot])
