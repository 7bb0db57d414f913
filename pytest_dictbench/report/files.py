"""Report JSON: canonical, floats rounded once, written atomically."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..files import atomic_write

__all__ = ["dumps", "jsonable", "write_jsonl"]

#: Decimal places of every float in a report.
FLOAT_PLACES = 6


def jsonable(value: Any) -> Any:
    """``value`` with floats rounded to :data:`FLOAT_PLACES` and NaN/inf as ``None``."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        rounded = round(value, FLOAT_PLACES)
        return 0.0 if rounded == 0 else rounded
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def dumps(value: Any, *, indent: int | None = 2) -> str:
    """Canonical JSON: keys sorted, floats rounded, UTF-8 characters kept."""
    separators = (",", ": ") if indent else (",", ":")
    return json.dumps(jsonable(value), sort_keys=True, ensure_ascii=False, indent=indent,
                      separators=separators, allow_nan=False)


def write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    """Write one canonical JSON object per line, atomically."""
    atomic_write(path, "".join(dumps(row, indent=None) + "\n" for row in rows))
