"""Typed view of a rubric case (the fields of ``case-rubric.schema.json``).

The suite loader has already validated each line against the schema, so parsing here
only shapes the data: word entries become tuples of accepted variants, defaults are
filled in, and the rules scored on the item are worked out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...model import Case
from .rules import COMMON_RULES, sorted_rules

__all__ = [
    "Alternative",
    "Enumeration",
    "Forbid",
    "Homophone",
    "NumberSpec",
    "RubricCase",
    "Term",
    "variants_of",
]

#: One must-keep entry: the accepted spellings, the first being the one shown in evidence.
Variants = tuple[str, ...]


def variants_of(entry: str | Sequence[str]) -> Variants:
    """A ``must`` / ``proper_nouns`` / enumeration entry as a tuple of accepted variants."""
    return (entry,) if isinstance(entry, str) else tuple(entry)


@dataclass(frozen=True)
class Term:
    """An English-derived term (D2); ``exact`` terms must be written in Latin letters."""

    text: str
    kind: str
    variants: tuple[str, ...] = ()
    wrong: tuple[str, ...] = ()

    @property
    def accepted(self) -> Variants:
        return (self.text, *self.variants)


@dataclass(frozen=True)
class NumberSpec:
    """A number with its accepted notations and meaning-preserving but off-standard forms."""

    notations: Variants
    variants: tuple[str, ...] = ()
    #: The notation rule a variant breaks: ``D3`` (numbers) or ``D4`` (units, symbols).
    rule: str = "D3"


@dataclass(frozen=True)
class Forbid:
    """Text that must not appear in the output; finding it sets ``rule`` to 0."""

    text: str
    rule: str
    note: str = ""


@dataclass(frozen=True)
class Homophone:
    """The kanji the context needs and same-reading words that would be wrong (D1)."""

    correct: str
    wrong: tuple[str, ...]


@dataclass(frozen=True)
class Enumeration:
    """Items the speaker enumerated, and whether the output should list them (C1, C4)."""

    items: tuple[Variants, ...]
    as_list: bool


@dataclass(frozen=True)
class Alternative:
    """A known lower-scored answer and the scores its listed rules receive."""

    text: str
    rules: Mapping[str, int]


@dataclass(frozen=True)
class RubricCase:
    """Everything the rubric needs to know about one case."""

    id: str
    genre: str
    short: bool
    source: str
    script: str
    expected: tuple[str, ...]
    alternatives: tuple[Alternative, ...] = ()
    must: tuple[Variants, ...] = ()
    proper_nouns: tuple[Variants, ...] = ()
    forbid: tuple[Forbid, ...] = ()
    homophones: tuple[Homophone, ...] = ()
    terms: tuple[Term, ...] = ()
    numbers: tuple[NumberSpec, ...] = ()
    enumeration: Enumeration | None = None
    rules: tuple[str, ...] = ()
    context: str = ""

    @property
    def scored_rules(self) -> tuple[str, ...]:
        """Common rules plus the case's own, in rubric order."""
        return sorted_rules(COMMON_RULES | set(self.rules))

    @classmethod
    def from_case(cls, case: Case) -> RubricCase:
        """Build the typed view from a loaded :class:`~pytest_dictbench.model.Case`."""
        return cls.from_mapping(case.data, case_id=case.id)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], case_id: str | None = None) -> RubricCase:
        """Build the typed view from the JSON object of a ``cases.jsonl`` line."""
        enumeration = data.get("enumeration")
        return cls(
            id=case_id if case_id is not None else str(data.get("id", "")),
            genre=str(data.get("genre", "")),
            short=bool(data.get("short", False)),
            source=str(data.get("source", "")),
            script=str(data.get("script", "")),
            expected=tuple(data.get("expected", ())),
            alternatives=tuple(
                Alternative(a["text"], dict(a.get("rules", {})))
                for a in data.get("alternatives", ())
            ),
            must=tuple(variants_of(e) for e in data.get("must", ())),
            proper_nouns=tuple(variants_of(e) for e in data.get("proper_nouns", ())),
            forbid=tuple(
                Forbid(f["text"], f["rule"], f.get("note", "")) for f in data.get("forbid", ())
            ),
            homophones=tuple(
                Homophone(h["correct"], tuple(h.get("wrong", ())))
                for h in data.get("homophones", ())
            ),
            terms=tuple(
                Term(
                    t["text"],
                    t.get("kind", "flexible"),
                    tuple(t.get("variants", ())),
                    tuple(t.get("wrong", ())),
                )
                for t in data.get("terms", ())
            ),
            numbers=tuple(
                NumberSpec(tuple(n["notations"]), tuple(n.get("variants", ())), n.get("rule", "D3"))
                for n in data.get("numbers", ())
            ),
            enumeration=(
                Enumeration(
                    tuple(variants_of(i) for i in enumeration["items"]),
                    bool(enumeration.get("as_list", True)),
                )
                if enumeration
                else None
            ),
            rules=tuple(data.get("rules", ())),
            context=str(data.get("context", "")),
        )
