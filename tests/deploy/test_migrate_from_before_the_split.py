"""A database made and filled by Arbiter before the split into domain apps migrates with every row kept.

The code of that time (commit ``BEFORE``) is taken from git, migrates a fresh
database and fills it through its own services: users, bots and versions (one
retired), a finished rated round robin with its ratings and performance table,
a recurring schedule, a ladder with queued matches, a challenge and a version
test.  Then today's code migrates the same database; every row must still be
there under its new table, the ratings must equal a rebuild from the history,
and permissions must follow their models.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import uuid
from pathlib import Path

import psycopg
import pytest

from tests.ci import unavailable

ROOT = Path(__file__).resolve().parents[2]
BEFORE = "ee5872f"  # the last commit with every model in the one "tournaments" app

FILL = r"""
import json
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
import datetime
from rest_framework.authtoken.models import Token
from tournaments.models import Ladder, Match, TournamentSchedule
from tournaments.services.bots import bot_create, bot_version_create
from tournaments.services.challenges import challenge_create
from tournaments.services.ladder import ladder_save, ladders_top_up
from tournaments.services.matches import MatchOutcome, SeatOutcome, match_claim, match_record_result
from tournaments.services.performance import performance_refresh
from tournaments.services.schedules import schedule_save
from tournaments.services.tournaments import tournament_create, tournament_start
from tournaments.services.version_tests import version_test_create
from tournaments.services.versions import bot_version_retire

users = get_user_model().objects
ada, bob = users.create_user("ada", password="pw-ada"), users.create_user("bob", password="pw-bob")
ada.user_permissions.add(Permission.objects.get(codename="view_match"))
Token.objects.create(user=bob)
code = b"print('bot')\n"
bots = [bot_create(owner=owner, game_id="gamesup", name=f"b{i}", package=code + bytes([i]), filename="b.py").bot
        for i, owner in enumerate([ada, bob, ada])]
second = bot_version_create(bot=bots[0], user=ada, package=code + b"#2", filename="b.py")
bot_version_retire(version=second, user=ada)
bot_version_create(bot=bots[0], user=ada, package=code + b"#3", filename="b.py")
t = tournament_start(user=ada, tournament=tournament_create(
    owner=ada, game_id="gamesup", name="before", bot_ids=[b.id for b in bots], games_per_pairing=2))
for match in Match.objects.filter(tournament=t).order_by("index"):
    attempt = match_claim(match_id=match.id, worker="fill")
    ranks = [1, 2] if match.index % 3 else [1, 1]
    match_record_result(match_id=match.id, attempt=attempt, outcome=MatchOutcome(
        ranks=ranks, reason="filled", seats=[SeatOutcome(), SeatOutcome()], moves=[{"seat": 0, "move": "x", "ms": 1}]))
performance_refresh(tournament_id=t.id)
ladder_save(ladder=Ladder(game_id="gamesup", seats=2, options={}, queued_target=2))
schedule_save(schedule=TournamentSchedule(name="nightly", owner=ada, game_id="gamesup", seats=2, kind="daily",
                                          at_time=datetime.time(3)))
ladders_top_up()
challenge_create(challenger=bob, bot_id=bots[1].id, opponent_id=bots[0].id, games=2)
version_test_create(user=ada, bot_id=bots[0].id, baseline_number=1, max_games=20)
print(json.dumps({"tournament": t.id}))
"""

# Each model before the split and the table that holds it after.
TABLES = {
    "tournaments_game": "games_game",
    "tournaments_bot": "bots_bot",
    "tournaments_botversion": "bots_botversion",
    "tournaments_botversionretirement": "bots_botversionretirement",
    "tournaments_tournament": "competitions_tournament",
    "tournaments_participant": "competitions_participant",
    "tournaments_performancefit": "competitions_performancefit",
    "tournaments_tournamentschedule": "competitions_tournamentschedule",
    "tournaments_ladder": "competitions_ladder",
    "tournaments_challenge": "competitions_challenge",
    "tournaments_challengematch": "competitions_challengematch",
    "tournaments_versiontest": "competitions_versiontest",
    "tournaments_versiontestmatch": "competitions_versiontestmatch",
    "tournaments_match": "matches_match",
    "tournaments_matchseat": "matches_matchseat",
    "tournaments_rating": "ratings_rating",
    "tournaments_ratingchange": "ratings_ratingchange",
}
OTHERS = ["auth_user", "auth_user_user_permissions"]
# Plain tokens become hashed ones (the plain table is emptied); every user claims its name.
MOVED = {"authtoken_token": "accounts_apitoken", "auth_user": "accounts_usernameclaim"}


def _old_checkout(tmp_path: Path) -> Path:
    """The tree of commit BEFORE, from this repository's history."""
    archive = tmp_path / "before.tar"
    done = subprocess.run(["git", "archive", "-o", str(archive), BEFORE], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        unavailable(f"commit {BEFORE} is not in this clone (a shallow clone?): {done.stderr.strip()}")
    tree = tmp_path / "before"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def _env(tmp_path: Path, database_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "ARBITER_", "PYTHON"))}
    env.update(
        DJANGO_SETTINGS_MODULE="tournaments.settings",
        ARBITER_VAR_DIR=str(tmp_path / "var"),
        CELERY_BROKER_URL="memory://",
        DATABASE_URL=database_url,
    )
    return env


def _manage(tree: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=tree, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _counts(env: dict[str, str], tables: list[str]) -> dict[str, int]:
    script = (
        "import json\nfrom django.db import connection\nc = connection.cursor()\nout = {}\n"
        f"for t in {tables!r}:\n    c.execute(f'SELECT count(*) FROM {{t}}')\n    out[t] = c.fetchone()[0]\n"
        "print(json.dumps(out))"
    )
    return json.loads(_manage(ROOT, env, "shell", "-v0", "-c", script).strip().splitlines()[-1])


def _migrate_and_compare(tmp_path: Path, database_url: str) -> None:
    env = _env(tmp_path, database_url)
    old = _old_checkout(tmp_path)
    _manage(old, env, "migrate", "-v0")
    _manage(old, env, "shell", "-v0", "-c", FILL)
    before = _counts(env, [*TABLES, *OTHERS, "authtoken_token"])
    assert [t for t, n in before.items() if n == 0] == []

    _manage(ROOT, env, "migrate", "-v0")
    after = _counts(env, [*TABLES.values(), *OTHERS, *MOVED.values(), "authtoken_token"])
    assert {TABLES.get(t, t): n for t, n in before.items() if t != "authtoken_token"} == {
        t: n for t, n in after.items() if t not in MOVED.values() and t != "authtoken_token"
    }
    assert {new: before[old] for old, new in MOVED.items()} == {new: after[new] for new in MOVED.values()}
    assert after["authtoken_token"] == 0
    # Ratings equal a rebuild from the moved history; permissions followed their model.
    _manage(ROOT, env, "ratings_rebuild", "--check")
    moved = "from django.contrib.auth.models import User; print(User.objects.get(username='ada').get_all_permissions())"
    assert "matches.view_match" in _manage(ROOT, env, "shell", "-v0", "-c", moved)


def test_an_embedded_database_migrates_with_every_row_kept(tmp_path: Path) -> None:
    _migrate_and_compare(tmp_path, f"sqlite:///{tmp_path / 'arbiter.sqlite3'}")


@pytest.mark.services
def test_a_postgresql_database_migrates_with_every_row_kept(tmp_path: Path) -> None:
    base = os.environ["ARBITER_TEST_DATABASE_URL"]
    name = f"arbiter_split_{uuid.uuid4().hex[:8]}"
    admin = base.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        _migrate_and_compare(tmp_path, base.rsplit("/", 1)[0] + f"/{name}")
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
