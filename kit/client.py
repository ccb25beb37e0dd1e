"""The kit's side of a server's HTTP API: the stored token and the few calls ``arbiter`` makes.

The token lives in ``$XDG_CONFIG_HOME/arbiter/config.json`` (``~/.config`` when
unset), written with mode 0600 because it is as good as the password.  Only
the standard library: the kit runs wherever the engines do.
"""

from __future__ import annotations

import json
import os
import secrets
import urllib.error
import urllib.parse
import urllib.request
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
    """The message of the service's error shape, or the raw body when it has another shape."""
    try:
        error = json.loads(body)["error"]
        text = str(error["message"])
        fields = error.get("fields") or {}
        details = "; ".join(f"{k}: {' '.join(map(str, v))}" for k, v in fields.items() if isinstance(v, list))
        return f"{text} ({details})" if details and details not in text else text
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
) -> Any:
    """One API call; the decoded JSON answer, or ApiError with the server's message."""
    url = server.rstrip("/") + path + ("?" + urllib.parse.urlencode(query) if query else "")
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    body: bytes | None = None
    if files:
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
