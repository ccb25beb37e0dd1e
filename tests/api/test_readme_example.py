"""The README's "Using the API" example, run as written against a real server and worker, ends with
its two bots rated where the README says to look (the organiser's own pool).

Every shell block of the section runs, in order, in one bash; the only change is the address:
the README's ``localhost:8000`` becomes the test server's port.  The server and its worker are
embedded (SQLite, the file-system broker), as `make start` runs them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.request

import pytest

from tests.ci import need
from tests.live import ROOT
from tests.live.fixtures import LiveFactory

README = ROOT / "README.md"
RUN_S = 240


def readme_blocks() -> list[str]:
    section = README.read_text().split("## Using the API", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```sh\n(.*?)^```$", section, flags=re.S | re.M)


def where_to_look() -> str:
    """The leaderboard URL the README's example names for the example's own ratings."""
    urls = [url for block in readme_blocks() for url in re.findall(r'"(localhost:8000/api/ratings/[^"]+)"', block)]
    own = [url for url in urls if "organiser=" in url]
    assert len(own) == 1, urls
    return own[0]


@pytest.mark.slow
def test_the_readme_example_ends_with_both_bots_rated_where_it_says(live_processes: LiveFactory) -> None:
    for tool in ("curl", "zip", "bwrap"):
        need(shutil.which(tool) is not None, f"the example needs {tool} (apt-get install {tool})")
    procs = live_processes(embedded=True, web="runserver", workers=1, concurrency=2, tag="readme")
    address = procs.url.removeprefix("http://")
    script = "\n".join(["set -euo pipefail", *readme_blocks()]).replace("localhost:8000", address)
    result = subprocess.run(
        ["bash", "-c", script], cwd=ROOT, env=procs.env(), capture_output=True, text=True, timeout=RUN_S
    )
    assert result.returncode == 0, (result.stdout[-3000:], result.stderr[-3000:])

    with urllib.request.urlopen("http://" + where_to_look().replace("localhost:8000", address)) as answer:
        rows = json.load(answer)["results"]
    assert [
        (r["bot_name"], r["owner"], r["games"], r["provisional"]) for r in sorted(rows, key=lambda r: r["place"])
    ] in (
        [("my-greedy", "ada", 10, False), ("my-random", "ada", 10, False)],
        [("my-random", "ada", 10, False), ("my-greedy", "ada", 10, False)],
    ), rows
    assert [r["place"] for r in rows] == [1, 2] and rows[0]["elo"] >= rows[1]["elo"]
    # And not on the public leaderboard: ada chose both bots' opponents.
    with urllib.request.urlopen(f"http://{address}/api/ratings/?game=gamesup") as answer:
        assert json.load(answer)["results"] == []
