"""Version tests: play two versions of one bot against each other until an SPRT decides.

The owner of a bot asks "is version N better than version X?".  The answer
comes from a sequential probability ratio test on *pairs* of unrated games
(``tournaments.ratings.stats.sprt``): each pair is one seed played twice, the
candidate in the first seat and then the baseline, so the deal and the
first seat's edge cancel within the pair.

How a test runs:

* ``version_test_create`` validates the request and queues the first
  ``pairs_in_flight`` pairs (``ARBITER_VERSION_TEST_PAIRS_IN_FLIGHT``, 4).
* Whenever one of its matches ends (finished, or errored for good),
  ``version_test_match_ended`` is called from the match's recording
  transaction and runs ``version_test_advance``, which recomputes W/D/L,
  the pentanomial counts and the LLR *from the finished matches* (never
  incremented, so running it twice changes nothing), then either stops the
  test or tops the queue up again to ``pairs_in_flight`` pairs.
* Keeping only a few pairs queued is what lets the test stop early: when
  the LLR leaves Wald's bounds (H0 or H1) or the cap on games is reached
  (inconclusive), the queued matches are cancelled, and the few already
  running too, just after (their workers stop the bots).

A pair with a game that errored (a failure of the service, not a bot's
forfeit, which is a normal loss) is left out of the counts and is not
replaced: it still counts toward the cap, so a version that cannot even be
unpacked ends the test as inconclusive rather than queueing forever.

Lock order: the match (by ``match_record_result``) and then the test row;
nothing here locks a running match while it holds the test row: the
cancelling UPDATE touches QUEUED matches, and the running ones are cancelled
once the test's transaction has committed.  So two matches of one test
recorded at once just queue on the test row.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction

from engines import get_engine
from tournaments.bots.models import Bot, BotVersion
from tournaments.bots.selectors import version_current, version_unplayable
from tournaments.competitions.models import VersionTest, VersionTestMatch
from tournaments.competitions.selectors.version_tests import version_test_pairs, version_test_sprt
from tournaments.dbclock import db_clock
from tournaments.errors import ConflictError, ForbiddenError, NotFoundError, ServiceError
from tournaments.games.config import game_config_check
from tournaments.matches.clocks import clock_check
from tournaments.matches.life import Lineup, MatchConfig, matches_cancel, matches_create, matches_enqueue
from tournaments.matches.models import Match
from tournaments.matches.seeds import seed_draw
from tournaments.ratings.stats import Decision, bounds
from workers.match import Clock

logger = logging.getLogger(__name__)

# |elo0| and |elo1| at most this: beyond it the logistic curve is flat and the test meaningless.
ELO_LIMIT = 1000.0
FINAL = {
    Decision.H0: VersionTest.Status.H0,
    Decision.H1: VersionTest.Status.H1,
    Decision.INCONCLUSIVE: VersionTest.Status.INCONCLUSIVE,
}


def _version(*, bot: Bot, number: int | None, field: str) -> BotVersion:
    if number is None:
        version = version_current(bot_id=bot.id)
        if version is None:
            raise ServiceError(f"Bot {bot.name!r} has no active version.", fields={field: ["no active version"]})
        return version
    version = BotVersion.objects.defer("package").filter(bot=bot, number=number).first()
    if version is None:
        raise ServiceError(f"Bot {bot.name!r} has no version {number}.", fields={field: ["unknown version"]})
    unplayable = version_unplayable(version=version)
    if unplayable is not None and BotVersion.objects.filter(id=version.id, retirement__isnull=True).exists():
        # A retired version may still be tested by hand; one that is not built cannot play at all.
        raise ServiceError(f"Bot {bot.name!r}: {unplayable}.", fields={field: [unplayable]})
    return version


def _own_active_bot(*, user: Any, bot_id: int) -> Bot:
    """The user's own active bot; NotFoundError for one they may not see, ForbiddenError for another's."""
    bot = Bot.objects.filter(id=bot_id).first()
    if bot is None or (bot.visibility != Bot.Visibility.PUBLIC and bot.owner_id != user.id):
        raise NotFoundError("No such bot.")
    if bot.owner_id != user.id:
        raise ForbiddenError("Only the bot's owner can test its versions.")
    if not bot.active:
        raise ServiceError(f"Bot {bot.name!r} is deactivated.", fields={"bot": ["inactive bot"]})
    return bot


def _validate_numbers(*, elo0: float, elo1: float, elo_model: str, alpha: float, beta: float, max_games: int) -> None:
    if elo_model not in VersionTest.EloModel.values:
        raise ServiceError("elo_model is logistic or normalized.", fields={"elo_model": ["invalid choice"]})
    for name, value in (("elo0", elo0), ("elo1", elo1)):
        if not -ELO_LIMIT <= value <= ELO_LIMIT:
            raise ServiceError(f"{name} is -{ELO_LIMIT:g} to {ELO_LIMIT:g}.", fields={name: ["out of range"]})
    if not elo1 > elo0:
        raise ServiceError("elo1 must be greater than elo0.", fields={"elo1": ["not above elo0"]})
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0 < value < 0.5:
            raise ServiceError(f"{name} is between 0 and 0.5.", fields={name: ["out of range"]})
    cap = settings.ARBITER_VERSION_TEST_MAX_GAMES
    if not 2 <= max_games <= cap:
        raise ServiceError(f"max_games is 2 to {cap}.", fields={"max_games": ["out of range"]})


def version_test_create(
    *,
    user: Any,
    bot_id: int,
    baseline_number: int,
    candidate_number: int | None = None,
    elo0: float | None = None,
    elo1: float | None = None,
    elo_model: str = VersionTest.EloModel.LOGISTIC,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int | None = None,
    pairs_in_flight: int | None = None,
    seats: int | None = None,
    options: dict[str, Any] | None = None,
    move_ms: int = 1000,
    game_ms: int = 60000,
    startup_ms: int = 10000,
) -> VersionTest:
    """Start a test of ``candidate_number`` (default: the newest active version) against ``baseline_number``.

    Only the bot's owner may; only games between two sides.  The first
    pairs are queued once the transaction commits.
    """
    bot = _own_active_bot(user=user, bot_id=bot_id)
    elo0 = settings.ARBITER_VERSION_TEST_ELO0 if elo0 is None else elo0
    elo1 = settings.ARBITER_VERSION_TEST_ELO1 if elo1 is None else elo1
    max_games = settings.ARBITER_VERSION_TEST_DEFAULT_MAX_GAMES if max_games is None else max_games
    _validate_numbers(elo0=elo0, elo1=elo1, elo_model=elo_model, alpha=alpha, beta=beta, max_games=max_games)
    in_flight = settings.ARBITER_VERSION_TEST_PAIRS_IN_FLIGHT if pairs_in_flight is None else pairs_in_flight
    if not 1 <= in_flight <= 64:
        raise ServiceError("pairs_in_flight is 1 to 64.", fields={"pairs_in_flight": ["out of range"]})
    clock_check(Clock(move_ms=move_ms, game_ms=game_ms, startup_ms=startup_ms))
    candidate = _version(bot=bot, number=candidate_number, field="candidate")
    baseline = _version(bot=bot, number=baseline_number, field="baseline")
    if candidate.id == baseline.id:
        raise ServiceError("Test two different versions.", fields={"baseline": ["same as the candidate"]})
    # The pentanomial model and the swap within a pair need exactly two sides.
    config = game_config_check(engine=get_engine(bot.game_id), seats=seats, options=options, two_sides="A version test")
    seats, options, pool = config.seats, config.options, config.pool
    lower, upper = bounds(alpha, beta)
    with transaction.atomic():
        test = VersionTest.objects.create(
            owner=user,
            bot=bot,
            candidate=candidate,
            baseline=baseline,
            elo0=elo0,
            elo1=elo1,
            elo_model=elo_model,
            alpha=alpha,
            beta=beta,
            max_games=max_games,
            pairs_in_flight=in_flight,
            options=options,
            seats=seats,
            rating_pool=pool,
            move_ms=move_ms,
            game_ms=game_ms,
            startup_ms=startup_ms,
            lower=lower,
            upper=upper,
        )
        _top_up(test, created=0, in_flight=0)
    return test


def _queue_pairs(test: VersionTest, numbers: range) -> None:
    """Create the matches of pairs ``numbers`` (game 0: candidate on the first side; game 1: swapped)."""
    if not numbers:
        return
    teams = get_engine(test.bot.game_id).teams(test.seats, test.options)
    plan = [(pair, game) for pair in numbers for game in (0, 1)]
    # One secret seed per pair: both games play one deal (shown once both have ended, matches/seeds.py).
    seeds = {pair: seed_draw() for pair in numbers}
    config = MatchConfig(
        kind=Match.Kind.VERSION_TEST,
        game_id=test.bot.game_id,
        options=test.options,
        seats=test.seats,
        teams=teams,
        rating_pool=test.rating_pool,
        rated=False,
        clock=test.clock,
        owner_id=test.owner_id,
    )
    sides = {0: (test.candidate_id, test.baseline_id), 1: (test.baseline_id, test.candidate_id)}
    match_ids = matches_create(
        config=config,
        lineups=[Lineup(versions=sides[game], seed=seeds[pair], index=2 * pair + game) for pair, game in plan],
    )
    VersionTestMatch.objects.bulk_create(
        [
            VersionTestMatch(test=test, match_id=m, pair=pair, game=game)
            for (pair, game), m in zip(plan, match_ids, strict=True)
        ]
    )
    matches_enqueue(match_ids=match_ids)


def _top_up(test: VersionTest, *, created: int, in_flight: int) -> int:
    """Queue new pairs up to ``pairs_in_flight`` in play and the cap in total; returns how many."""
    max_pairs = test.max_games // 2
    room = max(0, min(test.pairs_in_flight - in_flight, max_pairs - created))
    _queue_pairs(test, range(created, created + room))
    return room


def _stop(test: VersionTest, status: str) -> int:
    """Set the final status and cancel the test's matches; returns how many queued ones were cancelled.

    The running ones are cancelled after commit (their workers stop the bots):
    a recording of one of them holds its match and waits for this test's row,
    so cancelling them while holding the row could deadlock.
    """
    now = db_clock()  # a value, not Now(): the test is returned (or read) with its finish time
    test.status = status
    test.finished = now
    test.save(update_fields=["status", "finished"])
    ids = list(VersionTestMatch.objects.filter(test=test).values_list("match_id", flat=True))
    transaction.on_commit(
        lambda: matches_cancel(matches=Match.objects.filter(id__in=ids, status=Match.Status.RUNNING)), robust=True
    )
    return Match.objects.filter(id__in=ids, status=Match.Status.QUEUED).update(
        status=Match.Status.CANCELLED, finished_at=now
    )


def version_test_advance(*, test_id: int) -> VersionTest | None:
    """Bring a test up to date with its finished matches: counts, LLR, stop or queue more pairs.

    Idempotent: everything is recomputed from the matches.  A test that has
    stopped is left as it is (its counts are those at the decision).
    """
    with transaction.atomic():
        test = VersionTest.objects.select_for_update().select_related("bot").filter(pk=test_id).first()
        if test is None or test.status != VersionTest.Status.RUNNING:
            return test
        complete, created, in_play = version_test_pairs(test=test)
        status = version_test_sprt(test).status(complete)
        data = status.counts
        test.wins, test.draws, test.losses = data.wins, data.draws, data.losses
        test.pentanomial = list(data.pentanomial)
        test.llr, test.lower, test.upper = status.llr, status.lower, status.upper
        test.save(update_fields=["wins", "draws", "losses", "pentanomial", "llr", "lower", "upper"])
        if status.decision in FINAL:
            _stop(test, FINAL[status.decision])
        elif _top_up(test, created=created, in_flight=in_play) == 0 and in_play == 0:
            # Nothing in play and nothing more allowed: the cap is used up by pairs left out
            # (a game errored), short of the pairs the SPRT's own cap counts.
            _stop(test, VersionTest.Status.INCONCLUSIVE)
    return test


def version_test_match_ended(match: Match) -> None:
    """A version-test match ended (finished, or errored for good): advance its test.

    Called inside the transaction that records the match; runs in a
    savepoint and logs its own failures, so a problem here never loses the
    match's result (the next match of the test brings the counts up to date).
    """
    test_id = VersionTestMatch.objects.filter(match_id=match.pk).values_list("test_id", flat=True).first()
    if test_id is None:
        return
    try:
        with transaction.atomic():
            version_test_advance(test_id=test_id)
    except Exception:
        logger.exception("advancing version test %s after match %s failed", test_id, match.pk)


def version_test_cancel(*, test: VersionTest, user: Any) -> VersionTest:
    """Stop a running test at the owner's request: its queued and running games are cancelled (bots stopped)."""
    if test.owner_id != user.id and test.bot.owner_id != user.id:
        raise ForbiddenError("Only the bot's owner can cancel its version tests.")
    with transaction.atomic():
        locked = VersionTest.objects.select_for_update().get(pk=test.pk)
        if locked.status != VersionTest.Status.RUNNING:
            raise ConflictError(f"The test is already {locked.get_status_display().lower()}.")
        _stop(locked, VersionTest.Status.CANCELLED)
    test.refresh_from_db()
    return test
