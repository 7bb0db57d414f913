"""Statistics for benchmark reports: pure functions, no pytest, no I/O, no clock.

Paired comparisons (McNemar exact test, seeded percentile bootstrap), confidence
intervals of a mean (bootstrap or Student t), multiple-comparison corrections (Holm,
Bonferroni), rater agreement (Cohen's kappa), percentiles and latency summaries,
report rounding (half away from zero) and competition ranking.

Split by concern into private modules; import from here. The bootstrap's names (which
need numpy) are imported on first use: a run that draws no interval in this process
never imports numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._agreement import cohen_kappa
from ._defaults import DEFAULT_RESAMPLES, DEFAULT_SEED, index_bytes
from ._descriptive import latency_summary, median, percentile
from ._ranking import competition_ranks, round_half_away
from ._significance import bonferroni, holm, mcnemar_exact
from ._student_t import student_t_quantile

if TYPE_CHECKING:
    from ._intervals import (
        Draws,
        Interval,
        draw_indices,
        mean_ci,
        paired_bootstrap,
        paired_bootstrap_p,
    )
    from ._paired import compare_paired
    from ._resampled import paired_ratio_difference, relative_change, relative_changes
    from ._shared_draws import SharedDraws

#: The names that need numpy, by the module that defines them.
_WITH_NUMPY = {"Draws": "._intervals", "Interval": "._intervals",
               "draw_indices": "._intervals", "mean_ci": "._intervals",
               "paired_bootstrap": "._intervals",
               "paired_bootstrap_p": "._intervals", "compare_paired": "._paired",
               "paired_ratio_difference": "._resampled",
               "relative_change": "._resampled", "relative_changes": "._resampled",
               "SharedDraws": "._shared_draws"}


def __getattr__(name: str) -> Any:
    if name not in _WITH_NUMPY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_WITH_NUMPY[name], __name__), name)
    globals()[name] = value
    return value

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "Draws",
    "Interval",
    "SharedDraws",
    "bonferroni",
    "cohen_kappa",
    "compare_paired",
    "competition_ranks",
    "draw_indices",
    "holm",
    "index_bytes",
    "latency_summary",
    "mcnemar_exact",
    "mean_ci",
    "median",
    "paired_bootstrap",
    "paired_bootstrap_p",
    "paired_ratio_difference",
    "percentile",
    "relative_change",
    "relative_changes",
    "round_half_away",
    "student_t_quantile",
]
