"""The rubric's observation tables of one suite x product, from scored item records.

- ``layer_errors``: per layer, the items with an error in it (any rule of the layer below
  2; for layer A these are the meaning errors, the gated items) and, per rule, how many
  of those items involve that rule (an item counts once per rule, however many places);
- ``not_full``: per rule, ``[items where it scored below 2, items where it was scored]``
  (a rule scored only where it applies: a case rule on its cases, a common rule on all);
- ``decisions``: the rules a person decided (source ``human``) counted by outcome (``no
  penalty`` for 2, ``partial`` for 1, ``penalty`` for 0) and by the reason they wrote;
- ``by_voice`` (only when the suite's audio has several voices): per voice of the case's
  ``[[files]]`` entry, the items, the mean score and the meaning errors.

Every repetition is one item, as in the rubric's other tables.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from ...model import Suite
from .rules import LAYERS, layer_of, sorted_rules

__all__ = ["OUTCOMES", "observations"]

Record = Mapping[str, Any]

#: A person's decision by the score it gave.
OUTCOMES = {2: "no penalty", 1: "partial", 0: "penalty"}


def _layer_errors(scored: Sequence[Record]) -> dict[str, dict[str, Any]]:
    items: Counter[str] = Counter()
    rules: dict[str, Counter[str]] = defaultdict(Counter)
    for record in scored:
        below = [rule for rule, v in (record.get("rules") or {}).items()
                 if v.get("score") is not None and v["score"] < 2]
        for layer in {layer_of(rule) for rule in below}:
            items[layer] += 1
        for rule in below:
            rules[layer_of(rule)][rule] += 1
    return {layer: {"items": items[layer],
                    "rules": {r: rules[layer][r] for r in sorted_rules(rules[layer])}}
            for layer in LAYERS if items[layer]}


def _not_full(scored: Sequence[Record]) -> dict[str, list[int]]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record in scored:
        for rule, v in (record.get("rules") or {}).items():
            if v.get("score") is None:
                continue
            counts[rule][1] += 1
            counts[rule][0] += v["score"] < 2
    return {rule: counts[rule] for rule in sorted_rules(counts)}


def _decisions(scored: Sequence[Record]) -> dict[str, dict[str, int]]:
    outcomes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for record in scored:
        for v in (record.get("rules") or {}).values():
            if v.get("source") == "human" and v.get("score") in OUTCOMES:
                outcomes[OUTCOMES[v["score"]]] += 1
                reasons[str(v.get("evidence") or "-")] += 1
    return {"outcomes": {o: outcomes[o] for o in OUTCOMES.values() if outcomes[o]},
            "reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))}


def _voices(suite: Suite) -> dict[str, str]:
    return {f.case_id: f.voice for f in suite.files
            if f.case_id is not None and f.voice is not None}


def _by_voice(scored: Sequence[Record], voices: Mapping[str, str]) -> dict[str, Any]:
    groups: dict[str, list[Record]] = defaultdict(list)
    for record in scored:
        groups[voices.get(str(record.get("case_id")), "-")].append(record)
    return {voice: {"items": len(rows),
                    "score": sum(float(r["score"]) for r in rows) / len(rows),
                    "meaning_errors": sum(int((r.get("metrics") or {}).get("meaning_error", 0))
                                          for r in rows)}
            for voice, rows in sorted(groups.items())}


def observations(scored: Sequence[Record], suite: Suite) -> dict[str, Any]:
    """The observation tables (see the module docstring); ``by_voice`` is a table of its
    own beside them, returned under that key when the suite has several voices."""
    tables: dict[str, Any] = {"observations": {
        "layer_errors": _layer_errors(scored), "not_full": _not_full(scored),
        "decisions": _decisions(scored)}}
    voices = _voices(suite)
    if len(set(voices.values())) > 1:
        tables["by_voice"] = _by_voice(scored, voices)
    return tables
