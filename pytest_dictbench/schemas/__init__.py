"""JSON Schemas shipped with the package, and validation with file-and-line errors.

Validation has two parts. The verdict and the message come from ``jsonschema`` (Draft
2020-12, with ECMA ``pattern`` semantics). When ``jsonschema-rs`` is installed (a
dependency; a platform without its wheel still works), its compiled validator answers
first, and an instance it finds valid is not checked again: that is 50 times faster,
and a 10,000-item suite loads in a fraction of the time. Anything it finds invalid, or
cannot read, goes to ``jsonschema``, so every message is ``jsonschema``'s. A property
test checks that the two agree on every shipped schema. ``jsonschema`` itself is imported
the first time it is needed (about 0.1 s that a run whose files are all valid skips).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from functools import cache, cached_property
from importlib import resources
from typing import TYPE_CHECKING, Any

from ..errors import DictbenchError

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = ["CheckedSchema", "checked_schema", "ecma_pattern", "ecma_validator", "schema",
           "validate", "validation_error"]


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
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not ecma_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def ecma_validator() -> Any:
    """Draft 2020-12 validation with ECMA semantics for ``pattern`` (see
    :func:`ecma_pattern`): a ``jsonschema`` validator class."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {"pattern": _pattern})


class CheckedSchema:
    """A schema's ``jsonschema`` validator, with its compiled twin when there is one (each
    made when first needed)."""

    def __init__(self, document: Mapping[str, Any], *, ecma: bool = True) -> None:
        self.schema = document
        self.ecma = ecma

    @cached_property
    def fast(self) -> Any | None:
        """The compiled ``jsonschema-rs`` validator, or ``None`` (no wheel, or a schema it
        does not take)."""
        return _compiled(self.schema)

    @cached_property
    def python(self) -> Any:
        """The ``jsonschema`` validator: the verdict and message on anything that the
        compiled one does not accept."""
        from jsonschema import Draft202012Validator

        return (ecma_validator() if self.ecma else Draft202012Validator)(self.schema)

    def is_valid_fast(self, instance: Any) -> bool:
        """Whether the compiled validator finds ``instance`` valid (``False`` when there
        is none, or it cannot read the value: ``jsonschema`` decides)."""
        if self.fast is None:
            return False
        try:
            return bool(self.fast.is_valid(instance))
        except Exception:  # a value it cannot convert
            return False

    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        """``jsonschema``'s errors of ``instance``; none at once when the compiled
        validator finds it valid."""
        if self.is_valid_fast(instance):
            return iter(())
        return self.python.iter_errors(instance)


def _compiled(document: Mapping[str, Any]) -> Any | None:
    try:
        import jsonschema_rs
    except ImportError:
        return None
    try:
        return jsonschema_rs.validator_for(dict(document))
    except Exception:  # a schema it does not take: jsonschema alone
        return None


def checked_schema(document: Mapping[str, Any], *, ecma: bool = True) -> CheckedSchema:
    """``document`` ready to validate: with ECMA ``pattern`` semantics
    (:func:`ecma_validator`) or, with ``ecma=False``, plain Draft 2020-12 as
    ``jsonschema`` reads it."""
    return CheckedSchema(document, ecma=ecma)


@cache
def _validator(name: str) -> CheckedSchema:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return checked_schema(json.loads(text))


def schema(name: str) -> dict[str, Any]:
    """The schema document ``name`` (a file name in this folder)."""
    return dict(_validator(name).schema)


def validation_error(instance: Any, name: str) -> str | None:
    """The most relevant violation of schema ``name`` as one line, or ``None``."""
    checked = _validator(name)
    if checked.is_valid_fast(instance):
        return None
    from jsonschema.exceptions import best_match

    error = best_match(checked.python.iter_errors(instance))
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
