"""The endpoint page's health chart, drawn on the server as SVG (no chart library, no CDN).

Bars stack each period's attempts by verdict (succeeded, failed, dead) against the left axis;
two lines draw the latency percentiles (p50 solid, p95 dashed) against the right axis. This
module only computes the geometry and the words; `templates/admin/_health_chart.html` writes
the markup, colours come from classes in `static/admin/admin.css` (the page's CSP allows no
inline style). For assistive technology the SVG is one image whose title and description sum
the window up, and the same figures follow as a table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from content_service.webhooks.deliveries import VERDICTS, Tally
from content_service.webhooks.endpoints import StatsSeries

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 56, 64, 30, 44
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
TICKS = 4
WINDOW_WORDS = {"24h": "the last 24 hours", "7d": "the last 7 days"}


@dataclass(frozen=True)
class Segment:
    verdict: str
    y: float
    height: float


@dataclass(frozen=True)
class Bar:
    x: float
    width: float
    segments: tuple[Segment, ...]
    tooltip: str


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class TableRow:
    period: str
    counts: tuple[int, ...]
    p50: str
    p95: str


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    line: str  # p50 or p95


@dataclass(frozen=True)
class Chart:
    window: str
    width: int
    height: int
    plot: tuple[int, int, int, int]  # left, top, right, bottom
    bars: tuple[Bar, ...]
    p50: tuple[str, ...]  # SVG polyline point lists, one per run of periods with a figure
    p95: tuple[str, ...]
    points: tuple[Point, ...]  # a marker on each figure, so a lone period shows too
    count_ticks: tuple[Tick, ...]
    latency_ticks: tuple[Tick, ...]
    time_ticks: tuple[Tick, ...]
    title: str
    summary: str
    rows: tuple[TableRow, ...]
    verdicts: tuple[str, ...] = VERDICTS


def nice_top(value: float, ticks: int = TICKS) -> float:
    """The axis top for `value`: `ticks` steps of 1, 2 or 5 times a power of ten, so every
    tick is a round figure (at least 1 per step)."""
    wanted = max(value, 1.0) / ticks
    power = 10 ** math.floor(math.log10(wanted))
    for step in (1, 2, 5, 10):
        if step * power >= wanted:
            return float(max(step * power, 1) * ticks)
    return float(10 * power * ticks)  # pragma: no cover - 10 * power always is


def milliseconds(value: float | None) -> str:
    if value is None:
        return "none"
    return f"{value:.0f} ms" if value < 1000 else f"{value / 1000:.1f} s"


def _period(start: float, hours: int) -> str:
    moment = datetime.fromtimestamp(start, tz=UTC)
    if hours == 1:
        return moment.strftime("%H:00")
    return moment.strftime("%b %d %H:00")


def _lines(points: list[tuple[float, float] | None]) -> tuple[str, ...]:
    """Polyline point lists, broken where a period has no figure."""
    runs: list[list[str]] = [[]]
    for point in points:
        if point is None:
            runs.append([])
        else:
            runs[-1].append(f"{point[0]:.1f},{point[1]:.1f}")
    return tuple(" ".join(run) for run in runs if run)


def _summary(window: str, total: Tally) -> str:
    words = WINDOW_WORDS.get(window, window)
    if not total.attempts:
        return f"No attempts in {words}."
    counts = ", ".join(f"{total.verdicts[v]} {v}" for v in VERDICTS)
    return (
        f"In {words}: {total.attempts} attempts ({counts}); latency p50 "
        f"{milliseconds(total.percentile(0.5))}, p95 {milliseconds(total.percentile(0.95))}."
    )


def _segments(tally: Tally, top_count: float, bottom: int) -> tuple[Segment, ...]:
    """One bucket's bar: a segment per verdict with attempts, stacked up from the axis."""
    y = float(bottom)
    segments = []
    for verdict in VERDICTS:
        height = tally.verdicts[verdict] / top_count * PLOT_H
        if height > 0:
            y -= height
            segments.append(Segment(verdict, round(y, 1), round(height, 1)))
    return tuple(segments)


def _value_ticks(bottom: int, label: Callable[[int], str]) -> tuple[Tick, ...]:
    """The TICKS + 1 evenly spaced ticks of a vertical axis, labelled by `label(i)`."""
    return tuple(Tick(round(bottom - i / TICKS * PLOT_H, 1), label(i)) for i in range(TICKS + 1))


def build(series: StatsSeries) -> Chart:
    n = max(1, len(series.buckets))
    slot = PLOT_W / n
    top_count = nice_top(max((b.tally.attempts for b in series.buckets), default=0))
    p95s = [b.tally.percentile(0.95) for b in series.buckets]
    top_ms = nice_top(max((p for p in p95s if p is not None), default=0))
    bottom = TOP + PLOT_H
    bars, p50_points, p95_points, rows = [], [], [], []
    for index, bucket in enumerate(series.buckets):
        tally = bucket.tally
        x = LEFT + index * slot
        segments = _segments(tally, top_count, bottom)
        period = _period(bucket.start, series.bucket_hours)
        p50, p95 = tally.percentile(0.5), tally.percentile(0.95)
        counts = tuple(tally.verdicts[v] for v in VERDICTS)
        tooltip = f"{period}: " + ", ".join(
            f"{c} {v}" for c, v in zip(counts, VERDICTS, strict=True)
        )
        bars.append(Bar(round(x + slot * 0.15, 1), round(slot * 0.7, 1), segments, tooltip))
        middle = x + slot / 2
        p50_points.append(None if p50 is None else (middle, bottom - p50 / top_ms * PLOT_H))
        p95_points.append(None if p95 is None else (middle, bottom - p95 / top_ms * PLOT_H))
        rows.append(TableRow(period, counts, milliseconds(p50), milliseconds(p95)))
    every = 6 if series.bucket_hours == 1 else 4
    time_ticks = tuple(
        Tick(round(LEFT + i * slot + slot / 2, 1), rows[i].period)
        for i in range(0, len(rows), every)
    )
    words = WINDOW_WORDS.get(series.window, series.window)
    return Chart(
        window=series.window,
        width=WIDTH,
        height=HEIGHT,
        plot=(LEFT, TOP, LEFT + PLOT_W, bottom),
        bars=tuple(bars),
        p50=_lines(p50_points),
        p95=_lines(p95_points),
        points=tuple(
            Point(round(point[0], 1), round(point[1], 1), line)
            for line, points in (("p95", p95_points), ("p50", p50_points))
            for point in points
            if point is not None
        ),
        count_ticks=_value_ticks(bottom, lambda i: f"{top_count * i / TICKS:g}"),
        latency_ticks=_value_ticks(bottom, lambda i: milliseconds(top_ms * i / TICKS)),
        time_ticks=time_ticks,
        title=f"Attempts by verdict and latency, {words}",
        summary=_summary(series.window, series.total),
        rows=tuple(rows),
    )
