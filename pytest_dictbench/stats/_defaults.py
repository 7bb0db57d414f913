"""The bootstrap's defaults, apart from the numpy code that uses them: a run reads them
when it starts, and need not import numpy for that."""

__all__ = ["DEFAULT_RESAMPLES", "DEFAULT_SEED", "index_bytes"]

#: Seed used when the caller gives none; recorded in every interval.
DEFAULT_SEED = 20261129
#: Number of bootstrap resamples used when the caller gives none.
DEFAULT_RESAMPLES = 10_000


def index_bytes(n: int) -> int:
    """Bytes of one bootstrap index drawn ahead for a sample of ``n`` values (the
    smallest unsigned integer that holds ``n - 1``: 2 up to 65,536 values, else 4)."""
    return 2 if n <= 1 << 16 else 4
