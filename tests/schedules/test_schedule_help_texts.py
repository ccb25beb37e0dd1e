"""The schedule form's help texts read as written: no example swallowed as HTML."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("games")]


def test_the_admins_schedule_form_shows_the_edition_name_example(staff: Any) -> None:
    staff.is_superuser = True
    staff.save()
    browser = Client()
    browser.force_login(staff)
    page = browser.get("/admin/competitions/tournamentschedule/add/").content.decode()
    # The admin shows help texts as HTML: an example in angle brackets would vanish.
    assert "called by this name and its date, e.g. 'Weekly 2026-05-04'" in page
    assert "<name>" not in page and "<date>" not in page
