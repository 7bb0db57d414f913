"""Figures of the HTML report as inline SVG strings (matplotlib, the ``plot`` extra).

matplotlib is imported lazily: :func:`available` says whether it can be, and the HTML
report falls back to plain tables when it cannot. The SVG is deterministic (fixed hash
salt, no date, text kept as text so the browser's fonts draw Japanese), and every id is
prefixed so several figures can live in one page.
"""

from __future__ import annotations

import importlib.util
import io
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .sections import MetricGroups, fmt

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["PALETTE", "Drawer", "available", "bars_figure", "bars_svg", "forest_svg",
           "product_colors", "scores_svg", "standalone_svg", "trend_svg"]

#: Okabe-Ito colours (distinguishable with the common colour-vision deficiencies).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000")
_INK = "#1f2937"
_MUTED = "#9ca3af"
_WIDTH_IN = 6.4

_RC: dict[str, Any] = {
    "svg.fonttype": "none",
    # Product and group names are plain text: "$" must not switch to mathtext.
    "text.parse_math": False,
    "svg.hashsalt": "pytest-dictbench",
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 9.0,
    "text.color": _INK,
    "axes.labelcolor": _INK,
    "axes.edgecolor": "#d1d5db",
    "axes.titlesize": 10.0,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e5e7eb",
    "grid.linewidth": 0.8,
    "xtick.color": "#4b5563",
    "ytick.color": "#4b5563",
    "legend.frameon": False,
    "legend.fontsize": 8.0,
    "figure.dpi": 72.0,
}


class Drawer(Protocol):
    """What draws the HTML report's figures: this module, or a helper process that
    hands each figure to helper processes (:class:`.html_figures.FigureRequests`)."""

    def scores_svg(self, rows: Sequence[Mapping[str, Any]], colors: Mapping[str, str],
                   prefix: str) -> str: ...

    def bars_svg(self, groups: MetricGroups, colors: Mapping[str, str], prefix: str) -> str:
        ...

    def forest_svg(self, comparisons: Sequence[Mapping[str, Any]], prefix: str) -> str: ...


def available() -> bool:
    """Whether matplotlib can be imported (the ``plot`` extra is installed)."""
    return importlib.util.find_spec("matplotlib") is not None


def product_colors(products: Sequence[str]) -> dict[str, str]:
    """One palette colour per product, in sorted name order, the same in every figure."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(sorted(set(products)))}


def _figure(height_in: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(_WIDTH_IN, height_in), layout="constrained")


def _prefix_ids(svg: str, prefix: str) -> str:
    """Make every ``id`` (and every reference to one) unique to this figure."""
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", svg)
    return re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}-{m.group(1)}"', svg)


def _to_svg(fig: Figure, prefix: str) -> str:
    """The figure as an ``<svg>`` element for inline use: no XML prolog, no metadata,
    no namespace declarations, no global ``<style>``."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, flags=re.S)
    svg = re.sub(r"\s*<style[^>]*>.*?</style>", "", svg, flags=re.S)
    svg = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", svg)
    svg = re.sub(r'\s*<defs>\s*</defs>', "", svg)
    safe = re.sub(r"[^A-Za-z0-9-]+", "-", prefix).strip("-") or "fig"
    return _prefix_ids(svg, safe).strip() + "\n"


def _render(draw: Any, height_in: float, prefix: str) -> str:
    import matplotlib

    with matplotlib.rc_context(_RC), warnings.catch_warnings():
        # Glyphs DejaVu lacks (Japanese) are measured as boxes; the browser draws them.
        warnings.filterwarnings("ignore", message=r"Glyph .* missing from")
        return _to_svg(_build(draw, height_in), prefix)


def _build(draw: Any, height_in: float) -> Figure:
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig = _figure(height_in)
        draw(fig.add_subplot())
        return fig


#: Width of the bar chart's plot area (the figure less the axis label and the legend),
#: and of one character of a tick label at 9 pt or a bar label at 7 pt, in inches:
#: estimates that keep labels apart without drawing the figure twice.
_BARS_AREA_IN = _WIDTH_IN - 2.4
_TICK_CHAR_IN = 9.0 * 0.62 / 72
_BAR_CHAR_IN = 7.0 * 0.62 / 72


def _bars_draw(groups: MetricGroups, colors: Mapping[str, str]) -> Any:
    products = sorted(groups.values)
    slot_in = _BARS_AREA_IN / max(len(groups.categories), 1)

    def draw(ax: Axes) -> None:
        width = 0.8 / max(len(products), 1)
        positions = range(len(groups.categories))
        for i, product in enumerate(products):
            values = [v if v is not None else 0.0 for v in groups.values[product]]
            xs = [p - 0.4 + width * (i + 0.5) for p in positions]
            bars = ax.bar(xs, values, width * 0.92, label=product, color=colors[product],
                          zorder=2)
            if len(products) <= 2:  # with more bars per group the labels collide
                labels = [fmt(v, groups.unit_name) for v in groups.values[product]]
                # a label wider than its bar stands upright above it
                upright = max(map(len, labels)) * _BAR_CHAR_IN > slot_in * width
                ax.bar_label(bars, labels=labels, fontsize=7, padding=2, color="#374151",
                             **({"rotation": 90} if upright else {}))
        names = [c.replace("_", "\n") for c in groups.categories]
        longest = max((len(line) for n in names for line in n.split("\n")), default=0)
        if longest * _TICK_CHAR_IN > slot_in * 0.9:  # side by side they would touch
            ax.set_xticks(list(positions), [c.replace("_", " ") for c in groups.categories],
                          rotation=90)
        else:
            ax.set_xticks(list(positions), names)
        ax.set_ylabel(groups.axis)
        ax.grid(axis="x", visible=False)
        if groups.limit is not None:
            ax.set_ylim(0, groups.limit * 1.1)
        else:
            ax.set_ylim(bottom=0)
            ax.margins(y=0.15)
        ax.set_title(groups.title, loc="left")
        # beside the axes, never over the title or the bars
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  fontsize=7.5)

    return draw


def bars_figure(groups: MetricGroups, colors: Mapping[str, str]) -> Figure:
    """Grouped vertical bars: one group per category, one bar per product; category
    names stand upright when they would touch side by side."""
    return _build(_bars_draw(groups, colors), 3.0)


def bars_svg(groups: MetricGroups, colors: Mapping[str, str], prefix: str) -> str:
    """:func:`bars_figure` as inline SVG."""
    return _render(_bars_draw(groups, colors), 3.0, prefix)


def scores_svg(rows: Sequence[Mapping[str, Any]], colors: Mapping[str, str],
               prefix: str) -> str:
    """Score and 95% interval per product (rows in leaderboard order); products that
    are not ranked are drawn hollow, and a provisional score (judges' verdicts missing)
    says so in its label."""

    def draw(ax: Axes) -> None:
        labels = []
        for y, row in enumerate(reversed(rows)):
            labels.append(str(row["product"]) + (" (provisional)" if row.get("provisional")
                                                 else ""))
            ci, score = row.get("score_ci"), row.get("score")
            if score is None:
                ax.text(1, y, "no score", va="center", fontsize=8, color=_MUTED)
                continue
            color = colors[row["product"]]
            if ci:
                ax.plot([ci["low"], ci["high"]], [y, y], color=color, linewidth=2.2,
                        solid_capstyle="butt", zorder=2)
            ranked = row.get("rank") is not None
            ax.plot([score], [y], "o", markersize=7, zorder=3, color=color,
                    markerfacecolor=color if ranked else "white", markeredgewidth=1.6)
            ax.annotate(fmt(float(score)), (score, y), xytext=(0, 7),
                        textcoords="offset points", ha="center", fontsize=7.5)
        ax.set_yticks(range(len(labels)), labels)
        ax.set_ylim(-0.7, len(labels) - 0.3)
        ax.set_xlim(0, 100)
        ax.grid(axis="y", visible=False)
        ax.set_xlabel("score (0-100) with 95% interval; hollow = not ranked")
        ax.set_title("Score per product")

    return _render(draw, 0.9 + 0.42 * max(len(rows), 1), prefix)


def forest_svg(comparisons: Sequence[Mapping[str, Any]], prefix: str) -> str:
    """Paired differences ``b - a`` of mean item score with their intervals around a
    zero line; resolved comparisons (interval excludes 0) are filled."""

    def draw(ax: Axes) -> None:
        labels = []
        lows, highs = [0.0], [0.0]
        for y, c in enumerate(reversed(comparisons)):
            labels.append(f"{c['b']} − {c['a']}")
            diff, interval = float(c["mean_difference"]), c.get("interval") or {}
            low, high = interval.get("low", diff), interval.get("high", diff)
            lows.append(low)
            highs.append(high)
            color = "#0072B2" if c.get("resolved") else "#6b7280"
            ax.plot([low, high], [y, y], color=color, linewidth=2.2, solid_capstyle="butt")
            ax.plot([diff], [y], "D", markersize=6.5, color=color,
                    markerfacecolor=color if c.get("resolved") else "white",
                    markeredgewidth=1.5, zorder=3)
            ax.annotate(f"{diff:+.1f}", (diff, y), xytext=(0, 7), textcoords="offset points",
                        ha="center", fontsize=7.5)
        ax.axvline(0.0, color=_INK, linewidth=1.0, zorder=1)
        span = max(max(highs) - min(lows), 1.0)
        ax.set_xlim(min(lows) - 0.08 * span, max(highs) + 0.08 * span)
        ax.set_yticks(range(len(labels)), labels)
        ax.set_ylim(-0.7, len(labels) - 0.3)
        ax.grid(axis="y", visible=False)
        ax.set_xlabel("mean difference b − a, 95% interval\n(filled: resolved)")  # CF29: fits
        ax.set_title("Paired differences")

    return _render(draw, 0.9 + 0.42 * max(len(comparisons), 1), prefix)


def trend_svg(points: Sequence[Mapping[str, Any]], title: str, prefix: str) -> str:
    """A product's score per stored run (oldest first) with its 95% interval; runs where
    a resolved drop happened (``drop``) are marked, and a new suite version starts a new
    line (``dictbench trend --figure``)."""

    def draw(ax: Axes) -> None:
        xs = list(range(len(points)))
        start = 0
        for i in [*[i for i, p in enumerate(points) if p.get("new_version")], len(points)]:
            part = [(x, p) for x, p in zip(xs[start:i], points[start:i], strict=True)
                    if p.get("score") is not None]
            if part:
                ax.plot([x for x, _ in part], [p["score"] for _, p in part], "-o",
                        color=PALETTE[0], markersize=4, linewidth=1.6, zorder=3)
            start = i
        for x, p in zip(xs, points, strict=True):
            if p.get("low") is not None and p.get("high") is not None:
                ax.plot([x, x], [p["low"], p["high"]], color=PALETTE[4], linewidth=2.0,
                        solid_capstyle="butt", zorder=2)
            if p.get("drop"):
                ax.plot([x], [p["score"]], "v", color=PALETTE[5], markersize=9, zorder=4)
                ax.annotate(f"{p['drop']['mean_difference']:+.1f}", (x, p["score"]),
                            xytext=(0, -14), textcoords="offset points", ha="center",
                            fontsize=7.5, color=PALETTE[5])
        step = max(1, len(points) // 8)
        ax.set_xticks(xs[::step], [str(p.get("finished_utc", ""))[:10]
                                   for p in points[::step]], rotation=30, ha="right")
        ax.set_ylabel("score with 95% interval")
        ax.set_title(title)

    return _render(draw, 3.2, prefix)


def standalone_svg(svg: str) -> str:
    """An inline ``<svg>`` of this module as a file of its own (its namespaces back)."""
    return ('<?xml version="1.0" encoding="utf-8"?>\n' + svg.replace(
        "<svg", '<svg xmlns="http://www.w3.org/2000/svg" '
        'xmlns:xlink="http://www.w3.org/1999/xlink"', 1))
