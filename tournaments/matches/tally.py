"""Each tournament's count of ended matches: the finish counter that recording takes instead of the tournament's row.

A tournament match is ended once it is finished, errored or cancelled.  Every
service that moves tournament matches into or out of those states adds to the
count in the same transaction (``matches.record``: a result, an error for
good, a match nobody could run, errored ones queued again; ``matches.life``:
a cancel), so the count is exact.  A record adds its one as the last
statement of its transaction and hands the new count to the competition
(``hooks.match_tallied``), which compares it with the plan: the count's row
is held from there to the commit, and the two last matches of a tournament
recorded at once see each other (the second waits for the first's commit and
gets its count).
"""

from __future__ import annotations

from collections.abc import Mapping

from tournaments.matches.models import Match, TournamentTally
from tournaments.prepared import prepared_cursor

ENDED = (Match.Status.FINISHED, Match.Status.ERRORED, Match.Status.CANCELLED)

# One row per tournament, created by its first ended match; PostgreSQL and SQLite share the syntax.
_ADD_SQL = (
    f"INSERT INTO {TournamentTally._meta.db_table} (tournament_id, ended) VALUES (%s, %s) "
    f"ON CONFLICT (tournament_id) DO UPDATE SET ended = {TournamentTally._meta.db_table}.ended + excluded.ended "
    "RETURNING ended"
)
_TAKE_SQL = f"UPDATE {TournamentTally._meta.db_table} SET ended = ended + %s WHERE tournament_id = %s RETURNING ended"


def tally_add(*, counts: Mapping[int | None, int]) -> dict[int, int]:
    """Add to tournaments' counts of ended matches (negative: back in play); each one's new count.

    One statement per tournament, in id order (no deadlock between two
    callers); each row stays locked until the caller's transaction ends.
    ``None`` (a match of no tournament) and zero counts are left out.
    """
    totals: dict[int, int] = {}
    with prepared_cursor() as cursor:
        for tournament_id in sorted(t for t, n in counts.items() if t is not None and n):
            n = counts[tournament_id]
            # Matches back in play were counted when they ended: their row exists (and an inserted
            # row with a negative count would fail its check before the conflict is seen).
            cursor.execute(_ADD_SQL if n > 0 else _TAKE_SQL, [tournament_id, n] if n > 0 else [n, tournament_id])
            row = cursor.fetchone()
            totals[tournament_id] = row[0] if row is not None else 0
    return totals
