"""Small charts drawn by ralph as inline SVG for the HTML report: a line over the rotations, bars
per spec, a counter's steps. Pure text; every label is escaped (spec names can be hostile)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ralph.rules.agents.money import dollars

WIDTH, HEIGHT, PAD = 640, 180, 36
MAX_STEPS = 60


def _scale(value: float, low: float, high: float, out_low: float, out_high: float) -> float:
    span = high - low or 1.0
    return out_low + (value - low) / span * (out_high - out_low)


def line_chart(points: Sequence[tuple[float, float]], *, title: str, unit: str = "") -> str:
    """A line of (x, y) points with its axes' extremes labelled; a note when there are none."""
    head = f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img"'
    head += f' aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
    head += f"<title>{escape(title)}</title>"
    if not points:
        return head + f'<text x="{PAD}" y="{HEIGHT / 2}">nothing reported</text></svg>'
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x0, x1, y1 = min(xs), max(xs), max(*ys, 1e-9)
    coords = " ".join(
        f"{_scale(x, x0, x1, PAD, WIDTH - PAD):.1f},{_scale(y, 0, y1, HEIGHT - PAD, PAD / 2):.1f}"
        for x, y in points
    )
    base = HEIGHT - PAD
    return (
        head
        + f'<line class="axis" x1="{PAD}" y1="{base}" x2="{WIDTH - PAD}" y2="{base}"/>'
        + f'<line class="axis" x1="{PAD}" y1="{PAD / 2}" x2="{PAD}" y2="{base}"/>'
        + f'<polyline class="series" fill="none" points="{coords}"/>'
        + f'<text x="{PAD}" y="{HEIGHT - 8}">#{x0:g}</text>'
        + f'<text x="{WIDTH - PAD}" y="{HEIGHT - 8}" text-anchor="end">#{x1:g}</text>'
        + f'<text x="{PAD + 4}" y="{PAD / 2 + 12}">{escape(_number(y1, unit))}</text>'
        + "</svg>"
    )


def bar_chart(items: Sequence[tuple[str, float]], *, title: str, unit: str = "") -> str:
    """One horizontal bar per (label, value)."""
    row = 22
    if not items:
        return line_chart([], title=title)
    height = max(row * len(items), row) + 8
    out = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img"'
        f' aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>"
    ]
    top = max((v for _, v in items), default=0.0) or 1.0
    label_w = WIDTH * 0.4
    for n, (label, value) in enumerate(items):
        y = 4 + n * row
        bar = _scale(value, 0, top, 0, WIDTH - label_w - 90)
        short = label if len(label) <= 48 else "…" + label[-47:]
        out.append(
            f'<text x="{label_w - 6:.0f}" y="{y + 15}" text-anchor="end">{escape(short)}</text>'
            f'<rect class="bar" x="{label_w:.0f}" y="{y + 3}" width="{bar:.1f}"'
            f' height="{row - 6}"/>'
            f'<text x="{label_w + bar + 6:.0f}" y="{y + 15}">{escape(_number(value, unit))}</text>'
        )
    return "".join(out) + "</svg>"


def counter_steps(path: Sequence[tuple[int, int]], *, top: int = 3) -> str:
    """A spec's counter over its rotations as steps from 0 to `top` (inline, small): its last
    `MAX_STEPS` steps (a long run's early ones do not fit in 160 pixels anyway)."""
    w, h = 160, 28
    if not path:
        return '<span class="muted">—</span>'
    path = path[-MAX_STEPS:]
    points: list[str] = []
    last_y = float(h - 3)
    for n, (_, count) in enumerate([(0, 0), *path]):
        x = _scale(n, 0, max(len(path), 1), 2, w - 2)
        y = _scale(min(count, top), 0, top, h - 3, 3)
        points.append(f"{x:.1f},{last_y:.1f} {x:.1f},{y:.1f}")
        last_y = y
    labels = " → ".join(f"{count}/{top} (#{it})" for it, count in path)
    return (
        f'<svg class="steps" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img"'
        f' aria-label="{escape(labels)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(labels)}</title>"
        f'<polyline class="series" fill="none" points="{" ".join(points)}"/></svg>'
    )


def _number(value: float, unit: str) -> str:
    if unit == "$":
        return dollars(value, 4 if value < 1 else 2)
    if value >= 1000:
        return f"{value / 1000:.1f}k{unit}"
    return f"{value:g}{unit}"
