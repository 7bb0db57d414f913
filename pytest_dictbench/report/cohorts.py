"""Environment cohorts as every report shows them beside a rank: a short label per suite
(``A``, ``B``, ...) and a legend naming each label's field values.

Products are ranked only against products of their own cohort (the suite's ``[ranking]
same_environment`` fields), so two products may both be ranked first; the label says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from string import ascii_uppercase
from typing import Any

__all__ = ["cohort_labels", "cohort_legend", "cohort_text"]


#: How a field the product did not declare is shown, in every report (CF27).
NOT_DECLARED = "(not declared)"


def _value(value: Any) -> str:
    """A cohort value on one line: undeclared named so, line breaks as ``\\n`` (CF14)."""
    if value is None:
        return NOT_DECLARED
    return str(value).replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")


def cohort_text(cohort: Mapping[str, Any] | None) -> str:
    """``hardware=example, os=example`` (fields in the suite's order), or ``""``."""
    return ", ".join(f"{k}={_value(v)}" for k, v in (cohort or {}).items())


def _label(i: int) -> str:
    """``A`` ... ``Z``, then ``AA``, ``AB``, ..."""
    return ascii_uppercase[i] if i < 26 else _label(i // 26 - 1) + ascii_uppercase[i % 26]


def cohort_labels(products: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """``{product: label}`` in the order the suite lists its products; products without
    cohort fields (no ``same_environment``) get none."""
    seen: dict[str, str] = {}
    labels = {}
    for entry in products:
        text = cohort_text(entry.get("cohort"))
        if text:
            labels[entry["product"]] = seen.setdefault(text, _label(len(seen)))
    return labels


def cohort_legend(products: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, list[str]]]:
    """``[(label, "hardware=..., os=...", [products])]``, one entry a cohort."""
    labels = cohort_labels(products)
    legend: dict[str, tuple[str, list[str]]] = {}
    for entry in products:
        label = labels.get(entry["product"])
        if label:
            legend.setdefault(label, (cohort_text(entry.get("cohort")), []))[1].append(
                entry["product"])
    return [(label, text, names) for label, (text, names) in legend.items()]
