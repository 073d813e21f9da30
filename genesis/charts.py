"""Small inline SVG charts for the HTML reports: plain strings, no JavaScript, no network.

Every chart is a self-contained `<svg>` element, so a report that embeds it opens from disk offline.
"""
from __future__ import annotations

import math
from html import escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 56, 16, 34, 46
MAX_X_LABELS = 12


def _fmt(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 1:
        return f"{value:.3g}"
    return f"{value:.2g}"


def _nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (1-2-5 steps), so gridlines land on readable numbers."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    ticks = [round(math.floor(lo / step) * step, 10)]
    while ticks[-1] < hi - step * 1e-9:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


class _Frame:
    """Plot area geometry and the value -> pixel mapping shared by both chart kinds."""

    def __init__(self, width: int, height: int, values: list[float]):
        self.width, self.height = width, height
        self.left, self.top = MARGIN_LEFT, MARGIN_TOP
        self.plot_w = width - MARGIN_LEFT - MARGIN_RIGHT
        self.plot_h = height - MARGIN_TOP - MARGIN_BOTTOM
        lo = min([0.0, *values])
        hi = max([0.0, *values]) if values else 1.0
        self.ticks = _nice_ticks(lo, hi)
        self.y_min, self.y_max = self.ticks[0], self.ticks[-1]

    def y(self, value: float) -> float:
        span = (self.y_max - self.y_min) or 1.0
        return self.top + self.plot_h * (1 - (value - self.y_min) / span)

    def header(self, title: str, y_label: str, kind: str) -> list[str]:
        mid_y = self.top + self.plot_h / 2
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {kind}" width="{self.width}" '
                 f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" role="img" '
                 f'aria-label="{escape(title)}" font-family="sans-serif" font-size="11">',
                 f'<title>{escape(title)}</title>',
                 f'<text class="chart-title" x="{self.width / 2:.1f}" y="18" text-anchor="middle" '
                 f'font-size="13" font-weight="bold">{escape(title)}</text>',
                 f'<text class="y-label" x="12" y="{mid_y:.1f}" text-anchor="middle" '
                 f'transform="rotate(-90 12 {mid_y:.1f})">{escape(y_label)}</text>']
        right = self.left + self.plot_w
        for tick in self.ticks:
            y = self.y(tick)
            parts.append(f'<line x1="{self.left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#ddd"/>')
            parts.append(f'<text x="{self.left - 4}" y="{y + 4:.1f}" text-anchor="end">{_fmt(tick)}</text>')
        bottom = self.top + self.plot_h
        parts.append(f'<line x1="{self.left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#444"/>')
        parts.append(f'<line x1="{self.left}" y1="{self.top}" x2="{self.left}" y2="{bottom}" stroke="#444"/>')
        return parts

    def x_label(self, x: float, text: str) -> str:
        return (f'<text class="x-label" x="{x:.1f}" y="{self.top + self.plot_h + 16:.1f}" '
                f'text-anchor="middle">{escape(text)}</text>')


def _segments(values: list[float | None]) -> list[list[tuple[int, float]]]:
    """Splits a series at its None values: each run of known values becomes one polyline."""
    runs: list[list[tuple[int, float]]] = [[]]
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append((i, float(v)))
    return [r for r in runs if r]


def line_chart(series: dict[str, list[float | None]], x_labels: list[str], title: str, y_label: str,
               width: int = 560, height: int = 260) -> str:
    """One line per series over shared x positions; None values leave a gap in that line."""
    known = [float(v) for vs in series.values() for v in vs if v is not None and not (isinstance(v, float) and math.isnan(v))]
    frame = _Frame(width, height, known)
    parts = frame.header(title, y_label, "line-chart")
    n = max([len(x_labels), *(len(v) for v in series.values())], default=0)

    def x_of(i: int) -> float:
        return frame.left + (frame.plot_w * (i + 0.5) / n if n else 0)

    stride = max(1, math.ceil(len(x_labels) / MAX_X_LABELS))  # thin labels so they never overlap
    parts += [frame.x_label(x_of(i), label) for i, label in enumerate(x_labels) if i % stride == 0]
    if not known:
        parts.append(f'<text class="no-data" x="{width / 2:.1f}" y="{frame.top + frame.plot_h / 2:.1f}" '
                     f'text-anchor="middle" fill="#888">no data yet</text>')
    for k, (name, values) in enumerate(series.items()):
        colour = PALETTE[k % len(PALETTE)]
        parts.append(f'<g class="series" data-series="{escape(name)}" stroke="{colour}" fill="{colour}">')
        for run in _segments(values):
            points = " ".join(f"{x_of(i):.1f},{frame.y(v):.1f}" for i, v in run)
            parts.append(f'<polyline points="{points}" fill="none" stroke-width="2"/>')
        for run in _segments(values):
            for i, v in run:
                parts.append(f'<circle cx="{x_of(i):.1f}" cy="{frame.y(v):.1f}" r="3">'
                             f'<title>{escape(name)}: {_fmt(v)}</title></circle>')
        parts.append("</g>")
        legend_x = frame.left + 8 + 130 * k
        parts.append(f'<rect x="{legend_x}" y="{height - 14}" width="10" height="10" fill="{colour}"/>'
                     f'<text class="legend" x="{legend_x + 14}" y="{height - 5}">{escape(name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def bar_chart(values: dict[str, float], title: str, y_label: str, width: int = 560, height: int = 260) -> str:
    """One bar per key, labelled underneath and with its value on top."""
    frame = _Frame(width, height, [float(v) for v in values.values()])
    parts = frame.header(title, y_label, "bar-chart")
    n = len(values)
    slot = frame.plot_w / n if n else frame.plot_w
    zero = frame.y(0.0)
    for k, (label, value) in enumerate(values.items()):
        x = frame.left + slot * k + slot * 0.15
        top = min(zero, frame.y(value))
        parts.append(f'<rect class="bar" x="{x:.1f}" y="{top:.1f}" width="{slot * 0.7:.1f}" '
                     f'height="{abs(frame.y(value) - zero):.1f}" fill="{PALETTE[k % len(PALETTE)]}">'
                     f'<title>{escape(label)}: {_fmt(value)}</title></rect>')
        parts.append(f'<text x="{x + slot * 0.35:.1f}" y="{top - 3:.1f}" text-anchor="middle">{_fmt(value)}</text>')
        parts.append(frame.x_label(x + slot * 0.35, label))
    if not n:
        parts.append(f'<text class="no-data" x="{width / 2:.1f}" y="{frame.top + frame.plot_h / 2:.1f}" '
                     f'text-anchor="middle" fill="#888">no data yet</text>')
    parts.append("</svg>")
    return "\n".join(parts)
