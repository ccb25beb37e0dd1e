"""Charts drawn as inline SVG on the server, no script, no external asset: rating history, and any
series of numbers over a count (a version test's LLR between its bounds)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from tournaments.ratings.models import RatingChange

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 16, 46
# Presentation attributes inline, so the chart looks the same on the pages and in the admin.
AXIS = 'font-size="11" fill="#6b7280" font-family="sans-serif"'


@dataclass(frozen=True)
class Point:
    index: int  # position of the change among the pool's changes, 0 = the starting rating
    elo: float
    version: int
    match_id: int | None
    at: datetime | None = None  # when the change was made (a version's start: its first change's)


def rating_series(changes: Iterable[RatingChange]) -> dict[str, list[Point]]:
    """Per pool, the Elo after every change (oldest first), each version starting from its first 'before'."""
    by_pool: dict[str, list[Point]] = defaultdict(list)
    for change in changes:
        points = by_pool[change.rating.pool]
        version = change.rating.bot_version.number
        if not points or points[-1].version != version:
            points.append(Point(len(points), change.before, version, None, change.created))
        points.append(Point(len(points), change.after, version, change.match_id, change.created))
    return dict(by_pool)


def _value_range(values: Iterable[float], *, least: float) -> tuple[float, float]:
    """The axis's low and high: the values' range, at least ``least`` wide (a flat line stays readable), padded."""
    found = list(values)
    low, high = min(found), max(found)
    if high - low < least:
        mid = (high + low) / 2
        low, high = mid - least / 2, mid + least / 2
    pad = (high - low) * 0.08
    return low - pad, high + pad


def _y_grid(low: float, high: float, y: Callable[[float], float], *, digits: int) -> list[str]:
    """Five grid lines across the plot, each with its value on the y axis."""
    ticks = [low + (high - low) * k / 4 for k in range(5)]
    return [
        f'<line x1="{LEFT}" y1="{y(t):.1f}" x2="{WIDTH - RIGHT}" y2="{y(t):.1f}" stroke="#e5e7eb"/>'
        f'<text x="{LEFT - 4}" y="{y(t) + 4:.1f}" {AXIS} text-anchor="end">{t:.{digits}f}</text>'
        for t in ticks
    ]


def _scales(*, x_high: float, low: float, high: float) -> tuple[Callable[[float], float], Callable[[float], float]]:
    """Plot coordinates of an x in [0, x_high] and a y in [low, high] (y grows upwards)."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    return (
        lambda value: LEFT + plot_w * value / x_high,
        lambda value: TOP + plot_h * (high - value) / (high - low),
    )


def rating_chart_svg(points: list[Point], *, title: str = "") -> SafeString:
    """One pool's history: a polyline per version over a labelled Elo axis."""
    if not points:
        return mark_safe("")
    low, high = _value_range([p.elo for p in points], least=20)
    x, y = _scales(x_high=max(1, len(points) - 1), low=low, high=high)

    # Numbers are formatted here; the only text from the database (pool, title) is escaped.
    parts = _y_grid(low, high, y, digits=0)
    versions: dict[int, list[Point]] = defaultdict(list)
    for p in points:
        versions[p.version].append(p)
    for n, (version, pts) in enumerate(sorted(versions.items())):
        colour = COLOURS[n % len(COLOURS)]
        coords = " ".join(f"{x(p.index):.1f},{y(p.elo):.1f}" for p in pts)
        parts.append(
            f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2" data-version="{version}"/>'
            f'<text x="{min(x(pts[-1].index) + 4, WIDTH - 60):.1f}" y="{y(pts[-1].elo) - 4:.1f}" font-size="11" '
            f'fill="{colour}">v{version} {pts[-1].elo:.0f}</text>'
        )
        # A dot per rated game (hover: the match and the Elo after it), unless there are too many to see.
        if len(pts) <= 200:
            parts.extend(
                f'<circle cx="{x(p.index):.1f}" cy="{y(p.elo):.1f}" r="2.5" fill="{colour}">'
                f"<title>{'match ' + str(p.match_id) if p.match_id else 'start'}: {p.elo:.1f}</title></circle>"
                for p in pts
            )
    parts.extend(_version_marks(versions, x))
    parts.extend(_axes(points, x))
    return format_html(
        '<svg class="rating-chart" viewBox="0 0 {} {}" width="{}" height="{}" role="img" data-points="{}" '
        'aria-label="{}"><title>{}</title>{}</svg>',
        WIDTH,
        HEIGHT,
        WIDTH,
        HEIGHT,
        len(points),
        title,
        title,
        mark_safe("".join(parts)),  # built above from numbers and fixed strings only
    )


def _version_marks(versions: dict[int, list[Point]], x: Callable[[int], float]) -> list[str]:
    """A dashed line and a label where each version after the first starts."""
    marks = []
    for version, pts in sorted(versions.items())[1:]:
        at = x(pts[0].index)
        marks.append(
            f'<line class="version-mark" x1="{at:.1f}" y1="{TOP}" x2="{at:.1f}" y2="{HEIGHT - BOTTOM}" '
            f'stroke="#6b7280" stroke-dasharray="3,3" data-version="{version}"/>'
            f'<text x="{at + 3:.1f}" y="{TOP + 9}" {AXIS}>v{version}</text>'
        )
    return marks


def _axes(points: list[Point], x: Callable[[int], float]) -> list[str]:
    """The x axis: rated games counted along it, the first and last dates under it; both axes named."""
    base = HEIGHT - BOTTOM
    parts = [f'<line x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}" stroke="#9ca3af"/>']
    last = len(points) - 1
    for index in sorted({round(last * k / 4) for k in range(5)}):
        # Games rated by this point: the points before it that are not a version's start.
        games = sum(1 for p in points[1 : index + 1] if p.match_id is not None)
        parts.append(f'<text x="{x(index):.1f}" y="{base + 13}" {AXIS} text-anchor="middle">{games}</text>')
    dated = [p.at for p in points if p.at is not None]
    if dated:
        parts.append(f'<text x="{LEFT}" y="{HEIGHT - 4}" {AXIS}>{dated[0]:%Y-%m-%d}</text>')
        parts.append(f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 4}" {AXIS} text-anchor="end">{dated[-1]:%Y-%m-%d}</text>')
    parts.append(
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{HEIGHT - 4}" {AXIS} text-anchor="middle">rated games</text>'
        f'<text x="12" y="{(TOP + base) / 2:.0f}" {AXIS} text-anchor="middle" '
        f'transform="rotate(-90 12 {(TOP + base) / 2:.0f})">Elo</text>'
    )
    return parts


def rating_charts(changes: Iterable[RatingChange]) -> list[dict[str, object]]:
    """Every pool's chart, for a template: pool name, point count, SVG, last Elo."""
    charts = []
    for pool, points in sorted(rating_series(changes).items()):
        charts.append(
            {
                "pool": pool,
                "changes": sum(1 for p in points if p.match_id is not None),
                "svg": rating_chart_svg(points, title=f"Elo in {pool}"),
                "last": points[-1].elo,
            }
        )
    return charts


@dataclass(frozen=True)
class Series:
    """One line of a series chart: ``points`` are (x, y); ``dashed`` for guides such as bounds."""

    label: str
    points: list[tuple[float, float]]
    colour: str = COLOURS[0]
    dashed: bool = False


def series_chart_svg(series: list[Series], *, title: str, x_label: str, css_class: str = "series-chart") -> SafeString:
    """Lines over a shared x axis (a count) and a labelled y axis; every label is escaped."""
    drawn = [s for s in series if s.points]
    if not drawn:
        return mark_safe("")
    low, high = _value_range((y for s in drawn for _, y in s.points), least=1.0)
    x_high = max(1.0, max(x for s in drawn for x, _ in s.points))
    x, y = _scales(x_high=x_high, low=low, high=high)

    # Numbers are formatted here; the labels are escaped.
    parts = _y_grid(low, high, y, digits=2)
    for line in drawn:
        coords = " ".join(f"{x(px):.1f},{y(py):.1f}" for px, py in line.points)
        last_x, last_y = line.points[-1]
        dash = ' stroke-dasharray="4 3"' if line.dashed else ""
        label, colour = escape(line.label), escape(line.colour)
        parts.append(
            f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="{1 if line.dashed else 2}"'
            f'{dash} data-series="{label}"/><text x="{min(x(last_x) + 4, WIDTH - 90):.1f}" y="{y(last_y) - 4:.1f}" '
            f'font-size="11" fill="{colour}">{label}</text>'
        )
    parts.append(
        f'<line x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH - RIGHT}" y2="{HEIGHT - BOTTOM}" stroke="#9ca3af"/>'
        f'<text x="{LEFT}" y="{HEIGHT - 8}" {AXIS}>{escape(x_label)}: {x_high:g}</text>'
    )
    return format_html(
        '<svg class="{}" viewBox="0 0 {} {}" width="{}" height="{}" role="img" aria-label="{}"><title>{}</title>{}'
        "</svg>",
        css_class, WIDTH, HEIGHT, WIDTH, HEIGHT, title, title, mark_safe("".join(parts)),  # escaped above
    )  # fmt: skip
