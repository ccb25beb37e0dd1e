"""Each forfeited seat's status and the referee's detail are read back from a match's reason, and
every status has its plain-words meaning."""

from __future__ import annotations

from tournaments.matches.forfeits import FORFEIT_EXPLAINED, forfeit_details
from workers.match import SeatStatus


def test_each_seat_gets_its_own_status_and_detail() -> None:
    reason = (
        "seat 0 forfeited (crash: exited with status 1); "
        "seat 2 forfeited (protocol_error: its first line was not JSON: 'oops (1); x')"
    )
    found = forfeit_details(reason)
    assert sorted(found) == [0, 2]
    assert (found[0].status, found[0].detail) == ("crash", "exited with status 1")
    assert (found[2].status, found[2].detail) == ("protocol_error", "its first line was not JSON: 'oops (1); x'")
    assert found[2].explained == FORFEIT_EXPLAINED["protocol_error"]
    assert forfeit_details("target score reached") == {}


def test_every_forfeit_status_is_explained() -> None:
    assert set(FORFEIT_EXPLAINED) == {s.value for s in SeatStatus if s != SeatStatus.OK}
