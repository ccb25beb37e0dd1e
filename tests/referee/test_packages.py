"""Bot packages: what is accepted, what is refused, and that a refusal leaves nothing on disk."""

from __future__ import annotations

import io
import json
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from workers.packages.archive import MAX_FILES, PackageError, inspect_package, unpack_package

MAIN = b"print('hello')\n"


def make_zip(members: dict[str, bytes], **kw: object) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def make_tar(add) -> bytes:  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        add(t)
    return buf.getvalue()


def tar_file(t: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    t.addfile(info, io.BytesIO(data))


def test_single_python_file_is_always_main_py(tmp_path: Path) -> None:
    info = inspect_package(MAIN, "my_bot.py")
    assert (info.kind, info.command, info.files, info.unpacked_bytes) == ("python", ("python3", "main.py"), 1, 15)
    program = unpack_package(MAIN, "my_bot.py", tmp_path / "b")
    assert program.command == ("python3", "main.py")
    assert [p.name for p in program.directory.iterdir()] == ["main.py"]
    assert (program.directory / "main.py").read_bytes() == MAIN


def test_odd_python_file_name_becomes_main(tmp_path: Path) -> None:
    assert inspect_package(MAIN, "../../we ird;rm.py").command == ("python3", "main.py")


def test_zip_with_main_py(tmp_path: Path) -> None:
    data = make_zip({"main.py": MAIN, "lib/util.py": b"X = 1\n"})
    info = inspect_package(data, "bot.zip")
    assert info.command == ("python3", "main.py") and info.files == 2
    program = unpack_package(data, "bot.zip", tmp_path / "b")
    assert (program.directory / "lib" / "util.py").read_bytes() == b"X = 1\n"


def test_zip_with_bot_json_and_top_folder(tmp_path: Path) -> None:
    data = make_zip({"mybot/bot.json": json.dumps({"command": ["python3", "run.py", "--fast"]}).encode(),
                     "mybot/run.py": MAIN})  # fmt: skip
    assert inspect_package(data, "x.zip").command == ("python3", "run.py", "--fast")
    program = unpack_package(data, "x.zip", tmp_path / "b")
    assert (program.directory / "run.py").exists()


def test_tar_gz_keeps_exec_bit(tmp_path: Path) -> None:
    data = make_tar(
        lambda t: (
            tar_file(t, "bot.json", b'{"command": ["./run.sh"]}'),
            tar_file(t, "run.sh", b"#!/bin/sh\n", 0o755),
        )
    )
    program = unpack_package(data, "bot.tar.gz", tmp_path / "b")
    assert program.command == ("./run.sh",)
    assert (program.directory / "run.sh").stat().st_mode & stat.S_IXUSR


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ({"/etc/main.py": MAIN}, "absolute"),
        ({"../main.py": MAIN}, "outside"),
        ({"a/../../main.py": MAIN}, "outside"),
        ({"readme.txt": b"hi"}, "no entry point"),
        ({"bot.json": b"[1]", "main.py": MAIN}, "bot.json must be"),
        ({"bot.json": b'{"command": []}'}, "bot.json must be"),
        ({"bot.json": b"\xff"}, "bot.json is not valid"),
        ({"a\\b.py": MAIN, "main.py": MAIN}, "backslash"),
    ],
)
def test_zip_refusals(tmp_path: Path, members: dict[str, bytes], message: str) -> None:
    data = make_zip(members)
    with pytest.raises(PackageError, match=message):
        inspect_package(data, "x.zip")
    with pytest.raises(PackageError, match=message):
        unpack_package(data, "x.zip", tmp_path / "new" / "b")
    assert not (tmp_path / "new").exists()


def test_zip_symlink_refused() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        info = zipfile.ZipInfo("main.py")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(info, "/etc/passwd")
    with pytest.raises(PackageError, match="link"):
        inspect_package(buf.getvalue(), "x.zip")


def test_zip_non_utf8_name_refused() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("main.py", MAIN)
        z.writestr("cafX.py", MAIN)  # ASCII: written without the UTF-8 flag
    raw = buf.getvalue().replace(b"cafX", b"caf\xff")
    with pytest.raises(PackageError, match="UTF-8"):
        inspect_package(raw, "x.zip")


def test_zip_bomb_refused(tmp_path: Path) -> None:
    data = make_zip({"main.py": MAIN, "zeros.bin": b"\0" * (20 * 1024 * 1024)})
    assert len(data) < 100_000
    with pytest.raises(PackageError, match="bomb"):
        unpack_package(data, "x.zip", tmp_path / "b")
    assert list(tmp_path.iterdir()) == []


def test_too_many_files() -> None:
    data = make_zip({"main.py": MAIN, **{f"f{i}.txt": b"x" for i in range(MAX_FILES)}})
    with pytest.raises(PackageError, match="more than 1000 files"):
        inspect_package(data, "x.zip")


def test_too_large_unpacked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBITER_MAX_UNPACKED_BYTES", str(2 * 1024 * 1024))
    blob = os.urandom(1024 * 1024)  # does not compress: only the unpacked total can refuse it
    data = make_zip({"main.py": MAIN, **{f"f{i}.bin": blob for i in range(3)}})
    with pytest.raises(PackageError, match="more than 2 MiB"):
        inspect_package(data, "x.zip")
    monkeypatch.setenv("ARBITER_MAX_UNPACKED_BYTES", str(4 * 1024 * 1024))
    assert inspect_package(data, "x.zip").files == 4


def test_a_whole_archive_compressed_too_well_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    blob = b"\0" * (1024 * 1024)  # compresses well, yet small enough per file to pass the per-file rule
    data = make_zip({"main.py": MAIN, **{f"f{i}.bin": blob for i in range(40)}})
    with pytest.raises(PackageError, match="as a whole is compressed more than 100:1"):
        inspect_package(data, "x.zip")
    monkeypatch.setenv("ARBITER_MAX_COMPRESSION_RATIO", "2000")
    assert inspect_package(data, "x.zip").files == 41


@pytest.mark.parametrize(
    ("kind", "message"),
    [(tarfile.SYMTYPE, "link"), (tarfile.LNKTYPE, "link"), (tarfile.CHRTYPE, "device"), (tarfile.FIFOTYPE, "fifo")],
)
def test_tar_special_members_refused(tmp_path: Path, kind: bytes, message: str) -> None:
    def add(t: tarfile.TarFile) -> None:
        tar_file(t, "main.py", MAIN)
        info = tarfile.TarInfo("evil")
        info.type = kind
        info.linkname = "/etc/passwd"
        t.addfile(info)

    with pytest.raises(PackageError, match=message):
        unpack_package(make_tar(add), "x.tar.gz", tmp_path / "b")
    assert list(tmp_path.iterdir()) == []


def test_tar_gzip_bomb_refused() -> None:
    data = make_tar(lambda t: (tar_file(t, "main.py", MAIN), tar_file(t, "z", b"\0" * (30 * 1024 * 1024))))
    with pytest.raises(PackageError, match="bomb"):
        inspect_package(data, "x.tar.gz")


def test_tar_dotdot_refused() -> None:
    with pytest.raises(PackageError, match="outside"):
        inspect_package(make_tar(lambda t: tar_file(t, "../../main.py", MAIN)), "x.tgz")


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (b"", "a.py", "empty"),
        (b"x", "a.exe", "must be a .py"),
        (b"not a zip", "a.zip", "not a valid zip"),
        (b"not gzip", "a.tar.gz", "not a valid .tar.gz"),
        (b"\xff\xfe", "a.py", "UTF-8"),
        (make_zip({"d/": b""}), "a.zip", "empty"),
    ],
)
def test_bad_packages(data: bytes, name: str, message: str) -> None:
    with pytest.raises(PackageError, match=message):
        inspect_package(data, name)


def test_dest_must_not_exist(tmp_path: Path) -> None:
    with pytest.raises(FileExistsError):
        unpack_package(MAIN, "a.py", tmp_path)


def test_concurrent_unpack_loses_cleanly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    dest = tmp_path / "b"
    real_rename = os.rename

    def racing_rename(src: str, dst: str) -> None:
        monkeypatch.setattr(os, "rename", real_rename)
        unpack_package(b"print('other')\n", "other.py", dest)  # another worker wins the race
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", racing_rename)
    with pytest.raises(FileExistsError):
        unpack_package(MAIN, "a.py", dest)
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["b"] and (dest / "main.py").read_bytes() == b"print('other')\n"
