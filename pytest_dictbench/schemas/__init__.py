"""JSON Schemas shipped with the package, and validation with file-and-line errors."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from ..errors import DictbenchError

__all__ = ["Validator", "ecma_pattern", "schema", "validate", "validation_error"]


@cache
def ecma_pattern(pattern: str) -> re.Pattern[str]:
    r"""``pattern`` compiled so that ``$`` means the end of the text, as in ECMA-262.

    JSON Schema patterns are ECMA regular expressions, where ``$`` (without the
    multiline flag) matches only at the very end. Python's ``$`` also matches before a
    final newline, so ``"^[a-z]+$"`` would accept ``"mini\n"``. Each unescaped ``$``
    outside a character class becomes ``(?![\s\S])`` (nothing follows).
    """
    out: list[str] = []
    escaped = in_class = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            out.append(r"(?![\s\S])")
            continue
        out.append(char)
    return re.compile("".join(out))


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any
             ) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not ecma_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


#: Draft 2020-12 validation with ECMA semantics for ``pattern`` (see :func:`ecma_pattern`).
Validator = validators.extend(Draft202012Validator, {"pattern": _pattern})


@cache
def _validator(name: str) -> Any:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return Validator(json.loads(text))


def schema(name: str) -> dict[str, Any]:
    """The schema document ``name`` (a file name in this folder)."""
    return dict(_validator(name).schema)


def validation_error(instance: Any, name: str) -> str | None:
    """The most relevant violation of schema ``name`` as one line, or ``None``."""
    error = best_match(_validator(name).iter_errors(instance))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def validate(
    instance: Any, name: str, error: type[DictbenchError], *, path: Any = None,
    line: int | None = None, prefix: str = "",
) -> None:
    """Raise ``error`` naming ``path``/``line`` when ``instance`` violates schema ``name``."""
    problem = validation_error(instance, name)
    if problem is not None:
        raise error(f"{prefix}{problem}", path=path, line=line)
