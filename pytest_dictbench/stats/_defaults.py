"""The bootstrap's defaults, apart from the numpy code that uses them: a run reads them
when it starts, and need not import numpy for that."""

__all__ = ["DEFAULT_RESAMPLES", "DEFAULT_SEED"]

#: Seed used when the caller gives none; recorded in every interval.
DEFAULT_SEED = 20261129
#: Number of bootstrap resamples used when the caller gives none.
DEFAULT_RESAMPLES = 10_000
