"""The admin's tournament list filters by errored matches (with, without) and shows each count as a link to
the tournament's page, where staff re-queue them."""

from __future__ import annotations

import re
from typing import Any

from django.test import Client

from tests.errored import started_tournament

LIST = "/admin/competitions/tournament/"


def _listed(html: str) -> set[int]:
    return {int(n) for n in re.findall(r'name="_selected_action" value="(\d+)"', html)}


def test_the_admin_filters_by_errored_matches_and_links_each_count(staff: Any, make_bot: Any) -> None:
    staff.is_superuser = True  # the admin's list needs the model's permissions
    staff.save()
    bots = [make_bot(owner="new") for _ in range(3)]
    clean = started_tournament(owner=staff, bots=bots, name="clean")
    broken = started_tournament(owner=staff, bots=bots, name="broken", errored=3)
    admin = Client()
    admin.force_login(staff)

    everything = admin.get(LIST).content.decode()
    assert _listed(everything) == {clean.id, broken.id}
    assert "By errored matches" in everything and "With errored matches" in everything
    with_errors = admin.get(f"{LIST}?errored=yes").content.decode()
    assert _listed(with_errors) == {broken.id}
    assert f'<a href="/tournaments/{broken.id}/#requeue-errored" title="Re-queue them on its page">3</a>' in with_errors
    assert _listed(admin.get(f"{LIST}?errored=no").content.decode()) == {clean.id}
    # Sortable by the count (column 6 after the checkbox): fewest first puts the newer, broken one last.
    ordered = admin.get(f"{LIST}?o=6").content.decode()
    assert ordered.index(f'value="{clean.id}"') < ordered.index(f'value="{broken.id}"')
