"""A tiny JSON client of a live web server, and the packages the live tests upload."""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request
import uuid
import zipfile
from email.message import Message
from typing import Any
from urllib.parse import urlparse

from kit import REFERENCE_BOTS
from tests.waiting import poll


class Api:
    """Requests to ``base`` as JSON, with the token (when set) of the user they act for."""

    def __init__(self, base: str, token: str = "") -> None:
        self.base = base
        self.token = token

    def raw(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Message, bytes]:
        """(status, headers, body) of one request, whatever the status."""
        headers = {"Accept": "application/json", **(headers or {})}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        request = urllib.request.Request(self.base + path, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers, exc.read()

    def call(self, method: str, path: str, body: bytes | None = None, content_type: str = "") -> Any:
        """The JSON answer of a request that must succeed (2xx)."""
        code, _, data = self.raw(method, path, body, {"Content-Type": content_type} if content_type else {})
        assert 200 <= code < 300, f"{method} {path}: {code} {data[:2000]!r}"
        return json.loads(data)

    def get(self, path: str) -> Any:
        return self.call("GET", path)

    def post_json(self, path: str, data: dict[str, Any]) -> Any:
        return self.call("POST", path, json.dumps(data).encode(), "application/json")

    def upload_bot(self, game: str, name: str, filename: str, data: bytes) -> Any:
        """POST /api/bots/ as multipart: a new bot from the package ``data``."""
        boundary = uuid.uuid4().hex
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
            for key, value in (("game", game), ("name", name))
        ]
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="package"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n".encode()
            + data
            + b"\r\n"
        )
        parts.append(f"--{boundary}--\r\n".encode())
        return self.call("POST", "/api/bots/", b"".join(parts), f"multipart/form-data; boundary={boundary}")

    def all_pages(self, path: str) -> list[dict[str, Any]]:
        """Every result of a paginated list, following ``next``."""
        results: list[dict[str, Any]] = []
        page = self.get(path)
        while True:
            results.extend(page["results"])
            if not page["next"]:
                return results
            page = self.get(urlparse(page["next"])._replace(scheme="", netloc="").geturl())

    def wait_tournament(self, tournament_id: int, timeout: float) -> dict[str, Any]:
        """Poll a tournament until it is no longer running (or ``timeout`` s pass); its last state."""

        def ended() -> dict[str, Any] | None:
            tournament = self.get(f"/api/tournaments/{tournament_id}/")
            return tournament if tournament["status"] != "running" else None

        return poll(ended, timeout, every=1) or self.get(f"/api/tournaments/{tournament_id}/")


def random_bot() -> bytes:
    """The reference random bot, a single file."""
    return (REFERENCE_BOTS / "random_bot.py").read_bytes()


def greedy_zip() -> bytes:
    """The reference greedy bot (a directory) as a zip archive."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted((REFERENCE_BOTS / "greedy").glob("*.py")):
            archive.write(path, path.name)
    return buffer.getvalue()
