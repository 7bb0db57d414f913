"""JSON Schemas shipped with the package, and validation with file-and-line errors."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ..errors import DictbenchError

__all__ = ["schema", "validate", "validation_error"]


@cache
def _validator(name: str) -> Draft202012Validator:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return Draft202012Validator(json.loads(text))


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
