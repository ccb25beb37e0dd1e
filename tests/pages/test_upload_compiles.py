"""An uploaded Python entry file must compile (it is compiled, not run): the page and the API refuse one
that does not, naming the file, the line and Python's message; a package's ``main.py`` likewise."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.pages.support import RANDOM_BOT, zip_of
from tournaments.accounts.services import token_create
from tournaments.bots.models import Bot

pytestmark = pytest.mark.django_db

BROKEN = RANDOM_BOT + b"\nif True\n    pass\n"
BROKEN_LINE = RANDOM_BOT.count(b"\n") + 2


def test_a_python_entry_that_does_not_compile_is_refused_where_it_fails(games: None, alice: Any) -> None:
    page = Client()
    page.force_login(alice)
    api = Client(HTTP_AUTHORIZATION=f"Token {token_create(user=alice)[1]}")
    form = {"game": "gamesup", "name": "broken", "visibility": "public", "description": "", "notes": ""}
    cases = [
        ("broken.py", BROKEN, f"broken.py, line {BROKEN_LINE}: expected ':'"),
        ("b.zip", zip_of({"main.py": b"print(1\n"}), "main.py, line 1: '(' was never closed"),
        (
            "c.zip",
            zip_of({"bot.json": b'{"command": ["python3", "src/run.py"]}', "src/run.py": b"x = = 1\n"}),
            "src/run.py, line 1: invalid syntax",
        ),
    ]
    for filename, data, where in cases:
        shown = page.post("/bots/new/", {**form, "package": SimpleUploadedFile(filename, data)})
        assert shown.status_code == 400 and where in html.unescape(shown.content.decode()), filename
        refused = api.post("/api/bots/", {**form, "package": SimpleUploadedFile(filename, data)})
        assert refused.status_code == 400
        assert refused.json()["error"]["fields"]["package"] == [where], refused.json()
    assert not Bot.objects.filter(owner=alice).exists()

    # A package whose entry is not Python is not compiled; a good Python file is accepted.
    other = zip_of({"bot.json": b'{"command": ["sh", "run.sh"]}', "run.sh": b"exec python3 x.py\n", "x.py": b"(\n"})
    assert (
        api.post("/api/bots/", {**form, "name": "shell", "package": SimpleUploadedFile("s.zip", other)}).status_code
        == 201
    )
    assert api.post("/api/bots/", {**form, "package": SimpleUploadedFile("ok.py", RANDOM_BOT)}).status_code == 201
