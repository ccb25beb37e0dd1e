"""Why a seat forfeited, in plain words: the referee's detail per seat and a sentence per status.

The referee writes one match reason for all faulty seats ("seat 1 forfeited
(crash: exited with status 1); seat 2 forfeited (...)", workers/referee/play.py);
:func:`forfeit_details` reads each seat's part back, and :data:`FORFEIT_EXPLAINED`
says what each status means for the bot's author (docs/bots.md has the full table).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workers.match import SeatStatus

FORFEIT_EXPLAINED: dict[str, str] = {
    SeatStatus.TIMEOUT: "It did not answer in time: a move's CPU time, the game's CPU budget or the real-time "
    "backstop ran out, or the kernel ended it at its CPU-time limit.",
    SeatStatus.ILLEGAL_MOVE: "It answered with a move that was not one of the legal moves it was sent.",
    SeatStatus.PROTOCOL_ERROR: "It broke the protocol: an answer that was not one JSON object with a string move, "
    "a second answer to one turn, or output when no answer was due.",
    SeatStatus.OUTPUT_LIMIT: "It wrote too much: an answer line over 64 KiB, or over 4 MiB of output in the match.",
    SeatStatus.CRASH: "It stopped before the match was over: it exited, closed its input or output, or died of a "
    "signal it or its own processes sent.",
    SeatStatus.MEMORY_LIMIT: "It ran out of memory and the kernel ended it.",
    SeatStatus.STARTUP_TIMEOUT: "It did not answer the start message within the start-up time.",
}

# One seat's part of the referee's reason; a detail may hold anything but the next seat's start.
_SEAT_PART = re.compile(r"seat (\d+) forfeited \((\w+): (.*?)\)(?=; seat \d+ forfeited \(|$)", re.DOTALL)


@dataclass(frozen=True)
class Forfeit:
    """One seat's forfeit: its status, the referee's detail and what the status means."""

    seat: int
    status: str
    detail: str
    explained: str


def forfeit_explained(status: str) -> str:
    """The plain-words meaning of a seat status ("" for ``ok`` or an unknown status)."""
    return FORFEIT_EXPLAINED.get(status, "")


def forfeit_details(reason: str) -> dict[int, Forfeit]:
    """Each forfeited seat's status and detail, read from a match's result reason (empty if none)."""
    return {
        int(seat): Forfeit(int(seat), status, detail, forfeit_explained(status))
        for seat, status, detail in _SEAT_PART.findall(reason or "")
    }
