"""The kit's side of a server's HTTP API: the stored token and the few calls ``arbiter`` makes.

The token lives in ``$XDG_CONFIG_HOME/arbiter/config.json`` (``~/.config`` when
unset), written with mode 0600 because it is as good as the password.  Only
the standard library: the kit runs wherever the engines do.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workers import config

TIMEOUT_S = 60


class ApiError(Exception):
    """A call the server refused or could not answer; the message is meant for the author."""


def config_path() -> Path:
    """Where the server address and token are kept."""
    base = config.read("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "arbiter" / "config.json"


@dataclass(frozen=True)
class Login:
    """A server and the token of one of its users."""

    server: str
    username: str
    token: str


def login_save(login: Login) -> Path:
    """Store the login, readable by its owner only; returns the file written."""
    path = config_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    staging = path.with_name(f".config.{secrets.token_hex(4)}")
    # Created 0600 from the start (never world-readable, not even for a moment), then renamed over.
    fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump({"server": login.server, "username": login.username, "token": login.token}, out)
    os.replace(staging, path)
    return path


def login_load() -> Login:
    """The stored login, or ApiError telling the author to log in."""
    path = config_path()
    try:
        data = json.loads(path.read_text())
        return Login(server=data["server"], username=data["username"], token=data["token"])
    except FileNotFoundError:
        raise ApiError("not logged in: run `arbiter login --server URL --username NAME` first") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise ApiError(f"{path} is damaged ({exc}); run `arbiter login` again") from None


def _error_text(body: bytes, status: int) -> str:
    """The message of the service's error shape, or the raw body when it has another shape.

    Each field's messages follow the message once; a field message that repeats the message
    (the form-wide errors usually do) is not said twice.
    """
    try:
        error = json.loads(body)["error"]
        text = str(error["message"])
        fields = error.get("fields") or {}
        details = []
        for key, messages in fields.items():
            said = [str(m) for m in messages if str(m) not in text] if isinstance(messages, list) else []
            if said:
                details.append(" ".join(said) if key == "non_field_errors" else f"{key}: {' '.join(said)}")
        return f"{text} ({'; '.join(details)})" if details else text
    except (ValueError, KeyError, TypeError):
        return f"HTTP {status}: {body[:300].decode('utf-8', 'replace')}"


def _multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    """A multipart/form-data body and its content type."""
    boundary = f"arbiter-{secrets.token_hex(12)}"
    parts: list[bytes] = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode())
        parts.append(value.encode() + b"\r\n")
    for name, (filename, data) in files.items():
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        )
        parts.extend([head.encode(), data, b"\r\n"])
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def call(
    server: str,
    method: str,
    path: str,
    *,
    token: str | None = None,
    form: dict[str, str] | None = None,
    files: dict[str, tuple[str, bytes]] | None = None,
    query: dict[str, str] | None = None,
    data: dict[str, Any] | None = None,
) -> Any:
    """One API call; the decoded JSON answer, or ApiError with the server's message.

    The body is ``data`` as JSON, else ``form`` (with ``files``, as multipart), else none.
    """
    # urllib.request brings http.client, ssl and email: some 40 ms that only a call needs.
    import urllib.error
    import urllib.parse
    import urllib.request

    url = server.rstrip("/") + path + ("?" + urllib.parse.urlencode(query) if query else "")
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    body: bytes | None = None
    if data is not None:
        body = json.dumps(data).encode()
        headers["Content-Type"] = "application/json"
    elif files:
        body, headers["Content-Type"] = _multipart(form or {}, files)
    elif form is not None:
        body = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        raise ApiError(_error_text(exc.read(), exc.code)) from None
    except (urllib.error.URLError, OSError) as exc:
        raise ApiError(f"cannot reach {server}: {getattr(exc, 'reason', exc)}") from None
    return json.loads(raw) if raw else None


def token_get(*, server: str, username: str, password: str) -> str:
    """A token for the user (the same one on every call until revoked)."""
    answer = call(server, "POST", "/api/auth/token/", form={"username": username, "password": password})
    return str(answer["token"])


def user_create(*, server: str, username: str, password: str) -> str:
    """Sign up; the new user's token."""
    answer = call(server, "POST", "/api/users/", data={"username": username, "password": password})
    return str(answer["token"])


def bot_find(*, login: Login, game: str, name: str) -> dict[str, Any] | None:
    """The user's bot of this name for this game, or None."""
    answer = call(
        login.server, "GET", "/api/bots/", token=login.token, query={"mine": "true", "game": game, "search": name}
    )
    for bot in answer["results"]:
        if bot["name"] == name and bot["owner"] == login.username:
            return dict(bot)
    return None


def bot_upload(*, login: Login, game: str, name: str, package: tuple[str, bytes], notes: str = "") -> dict[str, Any]:
    """Upload a new bot, or a new version when the user already has a bot of this name; the bot's detail."""
    existing = bot_find(login=login, game=game, name=name)
    if existing is None:
        created = call(
            login.server,
            "POST",
            "/api/bots/",
            token=login.token,
            form={"game": game, "name": name},
            files={"package": package},
        )
        bot_id = created["id"]
    else:
        bot_id = existing["id"]
        call(
            login.server,
            "POST",
            f"/api/bots/{bot_id}/versions/",
            token=login.token,
            form={"notes": notes},
            files={"package": package},
        )
    return dict(call(login.server, "GET", f"/api/bots/{bot_id}/", token=login.token))


def build_wait(*, login: Login, bot_id: int, poll_s: float = 1.0) -> dict[str, Any]:
    """The bot's detail once its newest version is no longer building (built, or failed)."""
    while True:
        bot = dict(call(login.server, "GET", f"/api/bots/{bot_id}/", token=login.token))
        newest = max(bot.get("versions") or [{}], key=lambda v: v.get("number", 0))
        if newest.get("state") != "building":
            return bot
        time.sleep(poll_s)


def bots_mine(*, login: Login) -> list[dict[str, Any]]:
    """Every bot of the user with its current version and ratings."""
    out: list[dict[str, Any]] = []
    page: dict[str, Any] = call(
        login.server, "GET", "/api/bots/", token=login.token, query={"mine": "true", "page_size": "100"}
    )
    while True:
        out.extend(call(login.server, "GET", f"/api/bots/{b['id']}/", token=login.token) for b in page["results"])
        if not page.get("next"):
            return out
        page = call(page["next"], "GET", "", token=login.token)


def bot_resolve(*, login: Login, ref: str, game: str | None = None) -> dict[str, Any]:
    """The bot an author names on the command line: its id, ``owner/name``, or a name.

    A bare name is the author's own bot of that name when there is one, else the one
    public bot of that name; ApiError when none or several match (with how to say which).
    """
    if ref.isdigit():
        return dict(call(login.server, "GET", f"/api/bots/{ref}/", token=login.token))
    owner, _, name = ref.rpartition("/")
    query = {"search": name, "page_size": "100"}
    if owner:
        query["owner"] = owner
    if game:
        query["game"] = game
    found = [
        dict(b)
        for b in call(login.server, "GET", "/api/bots/", token=login.token, query=query)["results"]
        if b["name"] == name
    ]
    if not owner and any(b["owner"] == login.username for b in found):
        found = [b for b in found if b["owner"] == login.username]
    if not found:
        where = f" of {owner}" if owner else ""
        raise ApiError(f"no bot named {name!r}{where}" + (f" for {game}" if game else ""))
    if len(found) > 1:
        names = ", ".join(f"{b['owner']}/{b['name']} ({b['game']}, bot {b['id']})" for b in found)
        raise ApiError(f"{ref!r} names {len(found)} bots: {names}; give owner/name or the bot's id")
    return found[0]


def tournament_create(*, login: Login, spec: dict[str, Any]) -> dict[str, Any]:
    """Create a round robin (``spec`` is the API's body, ``start`` included); its detail."""
    return dict(call(login.server, "POST", "/api/tournaments/", token=login.token, data=spec))


def tournament_get(*, login: Login, tournament_id: int) -> dict[str, Any]:
    """A tournament's detail, with its progress."""
    return dict(call(login.server, "GET", f"/api/tournaments/{tournament_id}/", token=login.token))


def tournament_standings(*, login: Login, tournament_id: int) -> dict[str, Any]:
    """A tournament's standings (one row per participant, best first)."""
    return dict(call(login.server, "GET", f"/api/tournaments/{tournament_id}/standings/", token=login.token))


def tournament_gauntlet(*, login: Login, tournament_id: int) -> dict[str, Any]:
    """A gauntlet's report: the challenger's score and performance against the field, and per opponent."""
    return dict(call(login.server, "GET", f"/api/tournaments/{tournament_id}/gauntlet/", token=login.token))


def tournament_bracket(*, login: Login, tournament_id: int) -> dict[str, Any]:
    """A knockout's bracket: every pairing with its games and winner, and the placings once decided."""
    return dict(call(login.server, "GET", f"/api/tournaments/{tournament_id}/bracket/", token=login.token))


def challenge_create(*, login: Login, spec: dict[str, Any]) -> dict[str, Any]:
    """Ask for games between one of the author's bots and another bot; the challenge."""
    return dict(call(login.server, "POST", "/api/challenges/", token=login.token, data=spec))


def challenge_get(*, login: Login, challenge_id: int) -> dict[str, Any]:
    """A challenge's detail: its progress, score and matches."""
    return dict(call(login.server, "GET", f"/api/challenges/{challenge_id}/", token=login.token))
