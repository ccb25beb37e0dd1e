"""/metrics counts what a worker's trash could not delete, once each, from the worker's note."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from tests.ci import need
from tests.waiting import wait_for
from tournaments.matches.marks import trash_marks_note
from workers.sandbox import trash
from workers.sandbox.mounts import mount_tmpfs, unmount


def _counter(client: Client, name: str) -> float:
    response = client.get("/metrics")
    assert response.status_code == 200
    for family in text_string_to_metric_families(response.content.decode()):
        if family.name == name:
            (sample,) = family.samples
            return float(sample.value)
    raise AssertionError(f"no {name} in /metrics")


@pytest.mark.django_db
def test_an_entry_the_trash_cannot_delete_is_counted_in_metrics(client: Client, tmp_path: Path, settings: Any) -> None:
    need(os.geteuid() == 0, "mounting a file system nobody can delete needs root")
    trash_marks_note()  # whatever this process counted before is the starting point
    before = _counter(client, "arbiter_trash_undeleted")
    copy, bin_ = tmp_path / "copy", tmp_path / "trash"
    (copy / "held").mkdir(parents=True)
    mount_tmpfs(copy / "held", 1 << 20, 16, 0)  # a mount point: rmdir says EBUSY
    try:
        counted = trash.trash_counts()["undeleted"]
        trash.discard(copy, bin_)
        wait_for(lambda: trash.trash_counts()["undeleted"] > counted, 30, "the trash to count the mount point")
    finally:
        for held in bin_.glob("*/held"):
            unmount(held)
    trash_marks_note()
    trash_marks_note()  # a second note adds nothing new
    # Two entries stay: the mount point and the folder that holds it.
    assert trash.trash_counts()["undeleted"] == counted + 2
    assert _counter(client, "arbiter_trash_undeleted") == before + 2
    assert _counter(client, "arbiter_trash_restarts") >= 0
