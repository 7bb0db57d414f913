"""Report JSON: canonical, floats rounded once, written atomically.

Object keys are sorted in *natural* order: digit runs compare as numbers, so rule ids
read ``A1, A2, ..., A10`` (rubric order) instead of ``A1, A10, A2``; every other key
sorts as plain text would (zero-padded ids such as ``en-001`` keep their order).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from ..errors import DictbenchError
from ..files import atomic_write, atomic_write_set

__all__ = ["dumps", "jsonable", "natural_key", "natural_line", "natural_record",
           "write_jsonl", "write_report_set"]

#: Decimal places of every float in a report.
FLOAT_PLACES = 6


_DIGITS = re.compile(r"(\d+)")


@lru_cache(maxsize=8192)
def natural_key(key: str) -> tuple[tuple[Any, ...], str]:
    """Sort key of an object key: text and numbers alternate (``A10`` -> ``("A", 10, "")``),
    the key itself breaks ties (``A01`` against ``A1``). Cached: records repeat their keys."""
    parts = _DIGITS.split(key)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), key


#: Values written as they are (a float may need rounding, a container ordering).
_AS_IS = (str, int, type(None))
_AS_IS_UNROUNDED = (*_AS_IS, float)


@lru_cache(maxsize=4096)
def _natural_order(keys: tuple[str, ...]) -> tuple[str, ...]:
    """``keys`` sorted by :func:`natural_key`; cached, as records repeat their key sets."""
    return tuple(sorted(keys, key=natural_key))


def _ordered(value: Any, *, round_floats: bool) -> Any:
    """``value`` with object keys in natural order, and floats rounded when asked."""
    if isinstance(value, float):
        if not round_floats:
            return value
        if not math.isfinite(value):
            return None
        rounded = round(value, FLOAT_PLACES)
        return 0.0 if rounded == 0 else rounded
    if isinstance(value, (dict, Mapping)):  # dict first: the common case, checked fast
        try:
            order = _natural_order(tuple(value))
        except TypeError:  # a key that is no string: JSON writes it as one
            value = {str(k): v for k, v in value.items()}
            order = _natural_order(tuple(value))
        as_is = _AS_IS if round_floats else _AS_IS_UNROUNDED
        return {k: v if isinstance(v := value[k], as_is) else
                _ordered(v, round_floats=round_floats) for k in order}
    if isinstance(value, (list, tuple)):
        return [_ordered(v, round_floats=round_floats) for v in value]
    return value


def jsonable(value: Any) -> Any:
    """``value`` with floats rounded to :data:`FLOAT_PLACES` and NaN/inf as ``None``."""
    return _ordered(value, round_floats=True)


def natural_line(value: Any) -> str:
    """One line of JSON with keys in natural order (rules read ``A1, A2, ..., A10``),
    no spaces, UTF-8 kept, no NaN, floats as they are: an item record's line."""
    return natural_record(value)[0]


def natural_record(value: Any) -> tuple[str, Any]:
    """:func:`natural_line` of ``value``, and the value it wrote: what ``json.loads`` of
    the line gives back (keys in natural order and as strings, arrays as lists), without
    parsing it. The parts of ``value`` that are so already are shared, not copied: the
    caller hands over a value it no longer changes (an item's fresh record)."""
    written = _natural(value)
    return _line_encoder()(written), written


#: Types JSON writes as they are (``type(v) in _SCALARS``: a subclass goes the long way).
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _natural(value: Any) -> Any:
    """``value`` as ``json.loads`` of its natural line gives it back: ``value`` itself
    when it is so already, otherwise a copy sharing the parts that are."""
    kind = type(value)
    if kind is dict:
        keys = tuple(value)
        try:
            order = _natural_order(keys)
        except TypeError:  # a key that is no string
            return _ordered(value, round_floats=False)
        changed = {k: new for k, v in value.items()
                   if type(v) not in _SCALARS and (new := _natural(v)) is not v}
        if not changed and order == keys:
            return value
        return {k: changed[k] if k in changed else value[k] for k in order}
    if kind is list and all(type(v) in _SCALARS for v in value):
        return value
    return value if kind in _SCALARS else _ordered(value, round_floats=False)


def dumps(value: Any, *, indent: int | None = 2) -> str:
    """Canonical JSON: keys in natural order, floats rounded, UTF-8 characters kept."""
    return _encoder(indent).encode(jsonable(value))


@cache
def _line_encoder() -> Callable[[Any], str]:
    """The encoder of :func:`natural_record`: the C encoder ``json.JSONEncoder.encode``
    makes afresh on every call, made once (no circular-reference check: a record is a
    tree), or that method where the C encoder is missing or takes other arguments."""
    fallback = _encoder(None)
    try:
        c_encoder = json.encoder.c_make_encoder(  # type: ignore[attr-defined]
            None, fallback.default, json.encoder.encode_basestring, None, ":", ",",
            False, False, False)
        if "".join(c_encoder({"a": [1, 2.5, None, True, "\u00e9"]}, 0)) != \
                fallback.encode({"a": [1, 2.5, None, True, "\u00e9"]}):
            return fallback.encode
    except (AttributeError, TypeError):
        return fallback.encode
    return lambda value: "".join(c_encoder(value, 0))


@cache
def _encoder(indent: int | None) -> json.JSONEncoder:
    """One encoder per indent, made once (``json.dumps`` makes one per call)."""
    separators = (",", ": ") if indent else (",", ":")
    return json.JSONEncoder(ensure_ascii=False, allow_nan=False, indent=indent,
                            separators=separators)


def write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    """Write one canonical JSON object per line, atomically."""
    atomic_write(path, "".join(dumps(row, indent=None) + "\n" for row in rows))


def write_report_set(folder: Path, texts: Mapping[str, str | Iterable[str]], *,
                     remove: Iterable[str] = ()) -> None:
    """Write a run's report files into ``folder`` as one set (all new or all old); a
    text may be an iterable of whole lines (``items.jsonl``, streamed).

    Raises :class:`DictbenchError` naming the folder when it cannot be written (it is a
    file, read-only, the disk is full); the files already there are then unchanged.
    """
    if folder.exists() and not folder.is_dir():
        raise DictbenchError("the report folder is not a folder (a file has that name); "
                             "no report was written", path=folder)
    if folder.resolve() in (Path.cwd().resolve(), *Path.cwd().resolve().parents):
        raise DictbenchError("the report folder holds the current folder (a report set is "
                             "swapped in whole); choose a folder of its own, e.g. reports/",
                             path=folder)
    try:
        atomic_write_set(folder, texts, remove=remove)
    except OSError as exc:
        raise DictbenchError(
            f"cannot write the reports: {exc.strerror or exc}; no report file was changed "
            "(the folder keeps its previous set)", path=folder) from None
