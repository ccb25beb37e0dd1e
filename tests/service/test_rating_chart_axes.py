"""A rating chart names its axes, counts rated games along x with the first and last dates, and marks
where each new version starts."""

from __future__ import annotations

from datetime import UTC, datetime

from tournaments.ratings.charts import Point, rating_chart_svg


def test_the_chart_labels_its_axes_and_marks_each_version() -> None:
    day = [datetime(2026, 11, d, tzinfo=UTC) for d in (1, 2, 3, 9)]
    points = [
        Point(0, 1500.0, 1, None, day[0]),
        Point(1, 1510.0, 1, 11, day[0]),
        Point(2, 1505.0, 1, 12, day[1]),
        Point(3, 1505.0, 2, None, day[2]),  # version 2 starts from version 1's rating
        Point(4, 1520.0, 2, 13, day[2]),
        Point(5, 1531.0, 2, 14, day[3]),
    ]
    svg = str(rating_chart_svg(points, title="Elo"))
    assert ">rated games</text>" in svg and ">Elo</text>" in svg
    assert ">2026-11-01</text>" in svg and ">2026-11-09</text>" in svg
    assert svg.count('class="version-mark"') == 1 and 'data-version="2"/>' in svg and ">v2</text>" in svg
    assert 'text-anchor="middle">4</text>' in svg  # four rated games at the right end (version starts are not games)
