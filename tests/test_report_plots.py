"""The HTML report's figures: labels that never overlap."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pytest_dictbench.report import plots
from pytest_dictbench.report.sections import MetricGroups

pytest.importorskip("matplotlib")

#: The verbatim suite's F1 figure: eight types, four products (as pytest cases/en-verbatim
#: with the four bundled products draws it).
VERBATIM = MetricGroups(
    title="F1 per disfluency type", axis="F1 (0-1, higher is better)",
    categories=("disfluency", "cutoff", "cutoff_marker", "cutoff_strict", "filler", "other",
                "repetition", "sound"),
    values={p: tuple(0.5 + 0.05 * i for i in range(8))
            for p in ("example", "example-weak", "whisper-base-recorded",
                      "whisper-tiny-recorded")},
    limit=1.0, unit_name="f1")


def _overlaps(boxes: list) -> list[tuple[int, int]]:
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
            if boxes[i].overlaps(boxes[j])]


@pytest.mark.parametrize("products", [4, 2])
def test_category_labels_of_grouped_bars_do_not_overlap(products: int) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    groups = replace(VERBATIM, values=dict(list(VERBATIM.values.items())[:products]))
    fig = plots.bars_figure(groups, plots.product_colors(list(groups.values)))
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    ax = fig.axes[0]
    ticks = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
    assert len(ticks) == 8
    assert _overlaps(ticks) == []
    # with two products each bar carries its figure: those labels do not collide either
    values = [t.get_window_extent(renderer) for t in ax.texts]
    assert len(values) == (16 if products == 2 else 0)
    assert _overlaps(values) == []
    assert "<svg" in plots.bars_svg(groups, plots.product_colors(list(groups.values)), "f")
