"""The referee: plays one match between sandboxed bots over the JSON-lines protocol.

It starts every bot in its sandbox, runs the protocol (``workers.referee.conversation``)
turn by turn on the engine's state, and ends the match at the first fault of
any seat as that seat's forfeit (see ``docs/bots.md``); everything a bot
started is killed when the match ends.  Problems of the service itself raise
InfrastructureError: they are never a bot's fault.  One kind of them,
ExternalKillError, says that something outside the sandbox killed a bot
(another installation, an operator, the machine's out-of-memory killer), or
stopped it for longer than its bound (ExternalStopError).  When the service
stops a match (it was cancelled), ``play_match`` raises MatchStopped once
every bot is killed: there is no record.

The bots of one match share one CPU, leased for the match
(``workers.sandbox.cpus``), so that concurrent matches of a worker keep apart.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import engines
from workers.match import Clock, MatchRecord, MatchSpec, MoveRecord, SeatRecord, SeatStatus, Termination
from workers.referee.conversation import BotPipes, Conversation, MatchStopped, SeatFault, clean_text
from workers.sandbox.cpus import CpuLease, lease_cpu
from workers.sandbox.ending import end_later
from workers.sandbox.limits import SandboxLimits
from workers.sandbox.process import BotProcess
from workers.sandbox.slots import become_subreaper, ensure_private_dir
from workers.sandbox.start import BotProgram, start_bot, uses_cgroups

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1

# Told of the start position (no move yet) and of every move once the engine applied it.
MoveListener = Callable[[engines.State, MoveRecord | None], None]


def forfeit_ranks(teams: list[list[int]], seats: int, failed: set[int]) -> list[int]:
    """Ranks when ``failed`` seats forfeit: their teams last, every other team shares first.

    Numbered like every result, over teams (``engines.team_ranks``): two teams of
    two seats give ``[1, 2, 1, 2]``.  When every team has a failed seat nobody is
    better than anybody: all share first place.
    """
    team_of = [-1] * seats
    for index, team in enumerate(teams):
        for s in team:
            team_of[s] = index
    if -1 in team_of:
        raise ValueError("every seat belongs to a team")
    clean = [0 if any(s in failed for s in team) else 1 for team in teams]
    return list(engines.team_ranks(team_of, clean))


def _start_messages(spec: MatchSpec, options: dict[str, Any], teams: list[list[int]]) -> list[dict[str, Any]]:
    """The protocol's ``start`` message for every seat."""
    return [
        {
            "type": "start",
            "protocol": PROTOCOL_VERSION,
            "match": spec.match_id,
            "game": spec.engine_id,
            "options": options,
            "seat": seat,
            "seats": spec.seats,
            "teams": teams,
            "clock": spec.clock.to_json(),
        }
        for seat in range(spec.seats)
    ]


def _tell(listener: MoveListener | None, state: engines.State, move: MoveRecord | None) -> None:
    """Tell ``listener`` of a position; its failure is never the match's (spectators only miss a move)."""
    if listener is None:
        return
    try:
        listener(state, move)
    except Exception:
        log.exception("the move listener failed; the match goes on")


def _play_turns(
    ref: Conversation,
    state: engines.State,
    clock: Clock,
    limits: SandboxLimits,
    moves: list[MoveRecord],
    on_move: MoveListener | None = None,
) -> None:
    """Ask whoever is on move until the game ends; raises SeatFault at the first fault.

    Each seat's game budget is CPU time; its real-time allowance for the game is the
    wall-clock backstop of that budget (``SandboxLimits.wall_limit_ms``).  ``on_move``
    hears of the start position and of each move, between turns: no bot is charged for it.
    """
    _tell(on_move, state, None)
    game_left = [clock.game_ms] * len(ref.conns)
    wall_left = [limits.wall_limit_ms(clock.game_ms)] * len(ref.conns)
    while not state.is_terminal():
        seat = state.to_move()
        assert seat is not None
        legal = state.legal_moves()
        budget = min(clock.move_ms, max(game_left[seat], 0))
        wall = min(limits.wall_limit_ms(budget), max(wall_left[seat], 0))
        turn = {
            "type": "turn",
            "ply": state.ply,
            "observation": state.observation(seat),
            "legal_moves": legal,
            "clock": {"move_ms": clock.move_ms, "game_left_ms": game_left[seat]},
        }
        move, ms, wall_ms = ref.ask(ref.conns[seat], turn, budget, wall)
        game_left[seat] -= ms
        wall_left[seat] -= wall_ms
        # Checked here too, so that no bot text ever reaches an engine that is not legal.
        if move not in legal:
            raise SeatFault(seat, SeatStatus.ILLEGAL_MOVE, f"{move[:80]!r} is not a legal move")
        try:
            state.apply(move)
        except engines.IllegalMoveError:
            raise SeatFault(seat, SeatStatus.ILLEGAL_MOVE, f"{move[:80]!r} is not a legal move") from None
        moves.append(MoveRecord(seat=seat, move=move, ms=ms))
        _tell(on_move, state, moves[-1])


def _lease(limits: SandboxLimits) -> CpuLease | None:
    """The match's CPU, when bots are pinned (the lock files sit with the slot locks).

    Only with control groups: there the bot off move gets almost nothing of the shared CPU.
    Without them it would compete as an equal, so the bots are better spread by the kernel.
    """
    if not limits.pin_cpu or not uses_cgroups(limits):
        return None
    directory = limits.lock_path() if os.geteuid() == 0 else limits.runtime_path()
    return lease_cpu(ensure_private_dir(directory, 0o700 if os.geteuid() == 0 else 0o711))


@dataclass
class _Outcome:
    ranks: list[int]
    scores: list[Any] | None
    termination: Termination
    reason: str


def _outcome(state: engines.State, faults: list[SeatFault], teams: list[list[int]], seats: int) -> _Outcome:
    """Ranks, scores and reason: the engine's result, or the forfeit of the faulty seats."""
    if faults:
        ranks = forfeit_ranks(teams, seats, {f.seat for f in faults})
        reason = "; ".join(f"seat {f.seat} forfeited ({f.status}: {f.detail})" for f in faults)
        return _Outcome(ranks, None, Termination.FORFEIT, reason)
    result = state.result()
    assert result is not None
    scores = list(result.scores) if result.scores is not None else None
    return _Outcome(list(result.ranks), scores, Termination.RULES, result.reason)


def _end_all(procs: list[BotProcess], ref: Conversation | None, lease: CpuLease | None) -> None:
    """Kill every bot at once, read what is left in their pipes and free the CPU; the rest later.

    Waiting for each bot's processes to go, the slot's mounts and giving the slot back (or
    holding it back while anything of the bot lives) are handed to the ending thread
    (``workers.sandbox.ending``): the record goes back to the caller without waiting for them.
    """
    for p in procs:
        p.stop()
    try:
        if ref is not None:
            ref.drain_after_kill()
    finally:
        for p in procs:
            end_later(p.end)
        # Killed bots need no CPU any more (freeing their memory is the kernel's work).
        if lease is not None:
            lease.release()


def _converse(
    ref: Conversation,
    spec: MatchSpec,
    options: dict[str, Any],
    teams: list[list[int]],
    state: engines.State,
    records: list[SeatRecord],
    moves: list[MoveRecord],
    on_move: MoveListener | None,
) -> _Outcome:
    """Start-up, the turns, the end message: the whole conversation with the started bots."""
    faults = ref.startup(_start_messages(spec, options, teams))
    for s, (name, version) in ref.ready_info.items():
        records[s].name, records[s].version = name, version
    if not faults:
        try:
            _play_turns(ref, state, spec.clock, ref.limits, moves, on_move)
        except SeatFault as fault:
            faults = [fault]
    for f in faults:
        records[f.seat].status, records[f.seat].detail = f.status, f.detail
    outcome = _outcome(state, faults, teams, spec.seats)
    end: dict[str, Any] = {"type": "end", "result": {"ranks": outcome.ranks}, "reason": outcome.reason}
    if outcome.scores is not None:
        end["result"]["scores"] = outcome.scores
    ref.finish(end)
    return outcome


def play_match(
    spec: MatchSpec,
    bots: Sequence[BotProgram],
    *,
    limits: SandboxLimits | None = None,
    stop: threading.Event | None = None,
    on_move: MoveListener | None = None,
) -> MatchRecord:
    """Play one match and return its record.

    Bot faults are forfeits recorded in the result; problems of the service itself
    (no sandbox, no free slot, a copy that cannot be made) raise InfrastructureError, and
    a bot killed from outside its sandbox raises ExternalKillError (one of them).
    Invalid options, seat counts or bot counts raise ValueError before anything starts.
    Once ``stop`` is set (the match was cancelled) every bot is killed and MatchStopped raised.
    ``on_move`` is told of the start position and of every move as it is played (the live view).
    """
    engine = engines.get_engine(spec.engine_id)
    options = engine.validate_options(spec.options, spec.seats)
    if len(bots) != spec.seats:
        raise ValueError(f"{spec.seats} seats need {spec.seats} bots, got {len(bots)}")
    teams = engine.teams(spec.seats, options)
    state = engine.new_state(options, seed=spec.seed, seats=spec.seats)
    limits = limits or SandboxLimits.from_env()
    match_id = spec.match_id or uuid.uuid4().hex
    cpu_limit = limits.cpu_limit(spec.clock.startup_ms, spec.clock.game_ms)
    become_subreaper()

    procs: list[BotProcess] = []
    moves: list[MoveRecord] = []
    records = [SeatRecord(seat=s) for s in range(spec.seats)]
    ref: Conversation | None = None
    lease = _lease(limits)
    try:
        for bot in bots:
            if stop is not None and stop.is_set():
                raise MatchStopped("the match was stopped by the service before its bots started")
            procs.append(start_bot(bot, limits, cpu_limit, cpu=lease.cpu if lease else None))
        sandboxed = all(p.sandboxed for p in procs)
        if not sandboxed:
            log.warning("match %s runs its bots WITHOUT a sandbox (ARBITER_ALLOW_UNSANDBOXED)", match_id)
        conns = [BotPipes(seat=s, proc=p) for s, p in enumerate(procs)]
        ref = Conversation(conns, spec.clock, limits, cpu_limit, stop=stop)
        outcome = _converse(ref, spec, options, teams, state, records, moves, on_move)
    finally:
        _end_all(procs, ref, lease)
    for rec, c in zip(records, ref.conns, strict=True):
        rec.stderr = clean_text(bytes(c.stderr).decode("utf-8", errors="replace"))
        usage = c.proc.final_usage or c.proc.usage
        rec.cpu_ms = usage.cpu_ms
        rec.peak_rss_kb = usage.peak_rss_kb
    return MatchRecord(
        engine_id=spec.engine_id,
        engine_version=engine.version,
        seats=spec.seats,
        options=options,
        seed=spec.seed,
        ranks=outcome.ranks,
        scores=outcome.scores,
        termination=outcome.termination,
        reason=outcome.reason,
        seat_records=records,
        moves=moves,
        match_id=match_id,
        sandboxed=sandboxed,
    )
