"""Every way matches are made: round robins (with schedules), ladders, challenges and version tests."""

from tournaments.competitions.models.challenges import Challenge, ChallengeMatch
from tournaments.competitions.models.ladders import Ladder
from tournaments.competitions.models.schedules import TournamentSchedule
from tournaments.competitions.models.tournaments import (
    BracketPairing,
    Participant,
    PerformanceFit,
    Tournament,
    TournamentRound,
)
from tournaments.competitions.models.version_tests import VersionTest, VersionTestMatch

__all__ = [
    "BracketPairing",
    "Challenge",
    "ChallengeMatch",
    "Ladder",
    "Participant",
    "PerformanceFit",
    "Tournament",
    "TournamentRound",
    "TournamentSchedule",
    "VersionTest",
    "VersionTestMatch",
]
