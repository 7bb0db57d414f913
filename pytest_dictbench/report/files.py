"""Writing report files: deterministic JSON, written atomically."""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["atomic_write", "dumps", "jsonable", "write_jsonl"]

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


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename.

    Readers see the old file or the new one, never a part of either.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    """Write one canonical JSON object per line, atomically."""
    atomic_write(path, "".join(dumps(row, indent=None) + "\n" for row in rows))
