"""The command's messages say each thing once, and give a hint only when it fits."""

from __future__ import annotations

import pytest
from django.test import Client

from kit import client
from workers.referee.local import infrastructure_report
from workers.referee.text import plural
from workers.sandbox.start import ExternalKillError, SandboxUnavailableError


@pytest.mark.django_db
def test_a_refused_login_is_said_once() -> None:
    answer = Client().post("/api/auth/token/", {"username": "nobody", "password": "wrong-password"})
    assert answer.status_code == 400
    text = client._error_text(answer.content, answer.status_code)
    assert text.count("Unable to log in") == 1, text


def test_a_field_error_keeps_its_field() -> None:
    body = b'{"error": {"code": "invalid", "message": "Invalid input.", "fields": {"name": ["Too long."]}}}'
    assert client._error_text(body, 400) == "Invalid input. (name: Too long.)"


def test_no_bubblewrap_hint_after_a_kill_from_outside(capsys: pytest.CaptureFixture[str]) -> None:
    infrastructure_report(ExternalKillError(1, "killed by signal 9 from outside the sandbox"))
    err = capsys.readouterr().err
    assert "seat 1: killed by signal 9" in err and "bubblewrap" not in err, err
    infrastructure_report(SandboxUnavailableError("bwrap: not found"))
    assert "hint: install bubblewrap" in capsys.readouterr().err


def test_counts_are_in_good_english() -> None:
    assert [plural(n, "game") for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]
    assert plural(1, "match", "matches") == "1 match" and plural(3, "match", "matches") == "3 matches"
    assert plural(1.5, "point") == "1.5 points" and plural(1.0, "point") == "1 point"
