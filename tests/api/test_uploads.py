"""Hostile uploads: each is refused with a 400 in the error shape and leaves nothing behind.

Nothing behind means no Bot or BotVersion row and no file: the package cache
and the upload spill folder (pointed at empty folders here) stay empty, and
no file under var/ carries the marker every hostile entry is named with.
"""

from __future__ import annotations

import io
import json
import stat
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from tests.api.conftest import assert_error, client_for
from tests.service.conftest import RANDOM_BOT
from tournaments.bots.models import Bot, BotVersion

MARKER = "zz-hostile-upload"
MAIN = b"import sys\nprint('hi')\n"


def _zip(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            archive.writestr(info, data)
    return buffer.getvalue()


def _zip_info(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _tar(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT, encoding="utf-8",
                      errors="surrogateescape") as archive:  # fmt: skip
        for info, data in members:
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if data else None)
    return buffer.getvalue()


def _tar_info(name: str, kind: bytes = tarfile.REGTYPE, target: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    info.mode = 0o644
    return info


def zip_bomb_big() -> tuple[bytes, str]:
    return _zip([("main.py", MAIN), (f"{MARKER}.bin", b"\0" * (60 * 1024 * 1024))]), "bomb.zip"


def zip_bomb_ratio() -> tuple[bytes, str]:
    # 4 MiB of zeros: within the size limits, but compressed ~1000:1.
    return _zip([("main.py", MAIN), (f"{MARKER}.bin", b"\0" * (4 * 1024 * 1024))]), "ratio.zip"


def tar_bomb() -> tuple[bytes, str]:
    return _tar([(_tar_info("main.py"), MAIN), (_tar_info(f"{MARKER}.bin"), b"\0" * (60 * 1024 * 1024))]), "b.tar.gz"


def zip_traversal() -> tuple[bytes, str]:
    return _zip([("main.py", MAIN), (f"../../{MARKER}.py", b"x")]), "up.zip"


def zip_absolute() -> tuple[bytes, str]:
    return _zip([("main.py", MAIN), (f"/tmp/{MARKER}.py", b"x")]), "abs.zip"


def tar_traversal() -> tuple[bytes, str]:
    return _tar([(_tar_info("main.py"), MAIN), (_tar_info(f"a/../../{MARKER}.py"), b"x")]), "up.tar.gz"


def zip_symlink() -> tuple[bytes, str]:
    return _zip([("main.py", MAIN), (_zip_info(MARKER, stat.S_IFLNK | 0o777), b"/etc/passwd")]), "link.zip"


def tar_symlink() -> tuple[bytes, str]:
    return _tar([(_tar_info("main.py"), MAIN), (_tar_info(MARKER, tarfile.SYMTYPE, "/etc/passwd"), b"")]), "l.tgz"


def tar_hardlink() -> tuple[bytes, str]:
    return _tar([(_tar_info("main.py"), MAIN), (_tar_info(MARKER, tarfile.LNKTYPE, "main.py"), b"")]), "h.tgz"


def tar_device() -> tuple[bytes, str]:
    return _tar([(_tar_info("main.py"), MAIN), (_tar_info(MARKER, tarfile.CHRTYPE), b"")]), "dev.tar.gz"


def zip_many_files() -> tuple[bytes, str]:
    return _zip([("main.py", MAIN)] + [(f"{MARKER}/{i}.txt", b"") for i in range(10_000)]), "many.zip"


def tar_many_files() -> tuple[bytes, str]:
    return _tar([(_tar_info("main.py"), MAIN)] + [(_tar_info(f"{MARKER}/{i}"), b"") for i in range(10_000)]), "m.tgz"


def zip_non_utf8_name() -> tuple[bytes, str]:
    # Python's zipfile writes non-ASCII names as UTF-8, so write an ASCII name and swap in raw
    # bytes (in the local header and the central directory); the UTF-8 flag stays unset.
    placeholder = f"QQ-{MARKER}.py".encode()
    data = _zip([("main.py", MAIN), (placeholder.decode(), b"x")])
    assert data.count(placeholder) == 2
    return data.replace(placeholder, b"\xff\xfe" + placeholder[2:]), "n.zip"


def tar_non_utf8_name() -> tuple[bytes, str]:
    name = b"\xff\xfe-" + MARKER.encode()
    return _tar([(_tar_info("main.py"), MAIN), (_tar_info(name.decode("utf-8", "surrogateescape")), b"x")]), "n.tgz"


def empty_file() -> tuple[bytes, str]:
    return b"", "empty.py"


def empty_zip() -> tuple[bytes, str]:
    return _zip([]), "empty.zip"


def zip_of_folders_only() -> tuple[bytes, str]:
    return _zip([(_zip_info(f"{MARKER}/", stat.S_IFDIR | 0o755), b"")]), "dirs.zip"


def empty_tar() -> tuple[bytes, str]:
    return _tar([]), "empty.tar.gz"


def png_named_png() -> tuple[bytes, str]:
    return b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "bot.png"


def png_named_zip() -> tuple[bytes, str]:
    return b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "bot.zip"


def zip_many_small_bombs() -> tuple[bytes, str]:
    # 49 members of 1 MiB zeros: each passes the per-member rule, the whole is ~1000:1.
    members = [(f"{MARKER}-{i}.bin", b"\0" * (1024 * 1024)) for i in range(49)]
    return _zip([("main.py", MAIN), *members]), "many.zip"


def binary_named_py() -> tuple[bytes, str]:
    return b"\xff\xfe\x00\x01 not text", "bot.py"


def zip_named_tar() -> tuple[bytes, str]:
    return _zip([("main.py", MAIN)]), "bot.tar.gz"


CASES: dict[str, Callable[[], tuple[bytes, str]]] = {
    f.__name__: f
    for f in (
        zip_bomb_big, zip_bomb_ratio, tar_bomb, zip_traversal, zip_absolute, tar_traversal, zip_symlink,
        tar_symlink, tar_hardlink, tar_device, zip_many_files, tar_many_files, zip_non_utf8_name,
        tar_non_utf8_name, empty_file, empty_zip, zip_of_folders_only, empty_tar, png_named_png, png_named_zip,
        binary_named_py, zip_named_tar, zip_many_small_bombs,
    )
}  # fmt: skip


@pytest.fixture
def clean_dirs(tmp_path: Path) -> Any:
    """Point the package cache and the upload spill folder at empty folders; return a 'nothing stored' check."""
    cache, spill = tmp_path / "cache", tmp_path / "spill"
    cache.mkdir()
    spill.mkdir()
    var_dir = Path(settings.VAR_DIR)
    with override_settings(ARBITER_PACKAGE_CACHE=cache, FILE_UPLOAD_TEMP_DIR=str(spill)):

        def nothing_stored(versions_before: int = 0) -> None:
            assert BotVersion.objects.count() == versions_before
            assert list(cache.iterdir()) == [] and list(spill.iterdir()) == []
            assert not [p for p in var_dir.rglob(f"*{MARKER}*")], "a hostile entry reached var/"

        yield nothing_stored


@pytest.mark.parametrize("case", sorted(CASES))
def test_new_bot_refused(case: str, user: Any, clean_dirs: Any) -> None:
    data, filename = CASES[case]()
    response = client_for(user).post(
        "/api/bots/",
        {"game": "gamesup", "name": "b", "package": SimpleUploadedFile(filename, data)},
        format="multipart",
    )
    error = assert_error(response, 400)
    assert "package" in error["fields"], error
    assert not Bot.objects.exists()
    clean_dirs()


@pytest.mark.parametrize("case", sorted(CASES))
def test_new_version_refused(case: str, user: Any, make_bot: Any, clean_dirs: Any) -> None:
    bot = make_bot()
    data, filename = CASES[case]()
    response = client_for(user).post(
        f"/api/bots/{bot.id}/versions/", {"package": SimpleUploadedFile(filename, data)}, format="multipart"
    )
    assert_error(response, 400)
    clean_dirs(versions_before=1)


@pytest.mark.parametrize(
    "content_type,body",
    [
        ("application/json", json.dumps({"game": "gamesup", "name": "b", "package": RANDOM_BOT.decode()})),
        ("text/plain", RANDOM_BOT.decode()),
        ("application/zip", _zip([("main.py", MAIN)])),
        ("application/x-www-form-urlencoded", "game=gamesup&name=b&package=print(1)"),
    ],
    ids=["json", "text", "raw-zip", "form-without-file"],
)
def test_wrong_content_type_refused(content_type: str, body: Any, user: Any, clean_dirs: Any) -> None:
    response = client_for(user).generic("POST", "/api/bots/", body, content_type=content_type)
    error = assert_error(response, 400)
    assert "package" in error["fields"], error
    assert not Bot.objects.exists()
    clean_dirs()


def test_a_good_upload_is_stored(user: Any, clean_dirs: Any) -> None:
    """The control: the same request with a sound package is accepted."""
    response = client_for(user).post(
        "/api/bots/",
        {"game": "gamesup", "name": "b", "package": SimpleUploadedFile("m.zip", _zip([("main.py", RANDOM_BOT)]))},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert BotVersion.objects.count() == 1


@pytest.mark.parametrize("size", [1500, 3 * 1024 * 1024])
def test_an_oversized_upload_is_refused_while_read(size: int, user: Any, clean_dirs: Any) -> None:
    """Over the package limit: refused from the declared length (3 MiB), or by counting the file's
    bytes as they arrive (1500 bytes, within the form's allowance); nothing spilled to disk."""
    with override_settings(ARBITER_MAX_PACKAGE_BYTES=1000):
        package = SimpleUploadedFile(f"{MARKER}.py", b"#" * size)
        response = client_for(user).post("/api/bots/", {"game": "gamesup", "name": "b", "package": package})
    error = assert_error(response, 400, "package_too_large")
    assert error["fields"] == {"package": ["larger than 1000 bytes"]}
    assert not Bot.objects.exists()
    clean_dirs()
