"""Finished matches for the page tests, made the way a worker makes them.

A tournament is created and started through the services; each of its
matches is then claimed, played out by the real engine with random legal
moves (from the match's own seed, so the page's replay must reproduce it),
and recorded with ``match_record_result``: the same path a worker takes,
minus the bot processes.
"""

from __future__ import annotations

import io
import random
import zipfile
from typing import Any

from engines import get_engine
from kit import REFERENCE_BOTS
from tests.recording import record_for
from tournaments.bots.models import Bot
from tournaments.bots.services import bot_create
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.claim import match_claim
from tournaments.matches.models import Match
from tournaments.matches.record import match_record_result

RANDOM_BOT = (REFERENCE_BOTS / "random_bot.py").read_bytes()

# Short games for every engine: (game, seats, options).
SHORT_GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("gamesup", 2, {"target": 13, "max_plies": 60}),
    ("flagstacks", 2, {"max_plies": 40}),
    ("pileup", 2, {"max_plies": 60}),
    ("sequence", 4, {"teams": 2, "max_plies": 40}),
    ("hexstacks", 2, {"size": 3, "max_plies": 50}),
]


def zip_of(files: dict[str, bytes]) -> bytes:
    """A zip archive holding these files (path: content)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def make_bot(*, owner: Any, game: str, name: str, visibility: str = "public") -> Bot:
    return bot_create(
        owner=owner, game_id=game, name=name, package=RANDOM_BOT, filename="random_bot.py", visibility=visibility
    ).bot


def play_match(match: Match, *, rng: random.Random, forfeit_seat: int | None = None) -> None:
    """Claim ``match``, play it with random legal moves and record the result."""
    attempt = match_claim(match_id=match.id, worker="pages-test")
    assert attempt is not None
    engine = get_engine(match.game_id)
    state = engine.new_state(match.options, seed=match.seed, seats=match.seats)
    moves = []
    while not state.is_terminal():
        seat = state.to_move()
        move = rng.choice(state.legal_moves())
        state.apply(move)
        moves.append({"seat": seat, "move": move, "ms": rng.randint(1, 900)})
    result = state.result()
    assert result is not None
    statuses = ["ok"] * match.seats
    ranks = list(result.ranks)
    if forfeit_seat is not None:
        statuses[forfeit_seat] = "timeout"
    record = record_for(
        match,
        ranks,
        statuses,
        reason=result.reason,
        scores=result.scores,
        moves=moves,
        engine_version=engine.version,
        cpu_ms=[rng.randint(1, 50) for _ in statuses],
    )
    assert match_record_result(match_id=match.id, attempt=attempt, record=record)


def finished_tournament(
    *,
    owner: Any,
    game: str,
    seats: int,
    options: dict[str, Any],
    bots: list[Bot],
    games_per_pairing: int = 1,
    seed: int = 0,
    leave_queued: int = 0,
) -> Tournament:
    """A started round robin of ``bots`` with every match played (except the last ``leave_queued``)."""
    tournament = tournament_create(
        owner=owner,
        game_id=game,
        name=f"{game} pages test",
        bot_ids=[b.id for b in bots],
        options=options,
        seats=seats,
        games_per_pairing=games_per_pairing,
    )
    tournament_start(tournament=tournament, user=owner)
    rng = random.Random(seed)
    matches = list(Match.objects.filter(tournament=tournament).order_by("index"))
    for match in matches[: len(matches) - leave_queued]:
        play_match(match, rng=rng)
    tournament.refresh_from_db()
    return tournament


def head_to_head_site(*, alice: Any, bob: Any) -> dict[str, Bot]:
    """Three gamesup bots (alice's ``mine``, bob's ``rival`` and ``other``) after a rated round robin of
    three games per pairing: records, a matchup and Elo changes to read."""
    bots = {
        "mine": make_bot(owner=alice, game="gamesup", name="mine"),
        "rival": make_bot(owner=bob, game="gamesup", name="rival"),
        "other": make_bot(owner=bob, game="gamesup", name="other"),
    }
    finished_tournament(
        owner=alice, game="gamesup", seats=2, options={"target": 13}, bots=list(bots.values()), games_per_pairing=3
    )
    return bots
