"""Statistics for benchmark reports: pure functions, no pytest, no I/O, no clock.

Paired comparisons (McNemar exact test, seeded percentile bootstrap), confidence
intervals of a mean (bootstrap or Student t), multiple-comparison corrections (Holm,
Bonferroni), rater agreement (Cohen's kappa), percentiles and latency summaries,
report rounding (half away from zero) and competition ranking.

Split by concern into private modules; import from here.
"""

from ._agreement import cohen_kappa
from ._descriptive import latency_summary, percentile
from ._intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, mean_ci, paired_bootstrap
from ._paired import compare_paired
from ._ranking import competition_ranks, round_half_away
from ._significance import bonferroni, holm, mcnemar_exact
from ._student_t import student_t_quantile

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "Interval",
    "bonferroni",
    "cohen_kappa",
    "compare_paired",
    "competition_ranks",
    "holm",
    "latency_summary",
    "mcnemar_exact",
    "mean_ci",
    "paired_bootstrap",
    "percentile",
    "round_half_away",
    "student_t_quantile",
]
