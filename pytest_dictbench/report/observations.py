"""The rubric's observation tables over a suite's products, with their denominators. Pure.

From each product's ``observations`` table (``methods/rubric/observations.py``):

- errors per layer and rule: per product the items with an error in the layer and the
  items involving each rule, then over all products the total and the share of the
  layer's error items that involve the rule ("162 of 183, 88.5%");
- items not at full marks per rule and product, "of N scored";
- a person's decisions by outcome and by reason, per product and in total.

Cells are plain text; the Markdown and HTML renderers escape and lay them out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .method_tables import PlainTable
from .sections import rule_key

__all__ = ["observation_tables"]

_LAYER_NAMES = {"A": "meaning", "B": "disfluencies", "C": "structure", "D": "notation"}


def _share(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.1f}%)" if whole else "-"


def _layer_errors(obs: Mapping[str, Mapping[str, Any]]) -> PlainTable | None:
    products = sorted(obs)
    layers = sorted({layer for o in obs.values() for layer in o.get("layer_errors", {})})
    rows = []
    for layer in layers:
        per = {p: obs[p].get("layer_errors", {}).get(layer, {"items": 0, "rules": {}})
               for p in products}
        total = sum(int(v["items"]) for v in per.values())
        rows.append((f"{layer} ({_LAYER_NAMES.get(layer, layer)})", "any rule",
                     *(str(per[p]["items"]) for p in products), str(total), "-"))
        rules = sorted({r for v in per.values() for r in v["rules"]}, key=rule_key)
        for rule in rules:
            counts = [int(per[p]["rules"].get(rule, 0)) for p in products]
            rows.append(("", rule, *map(str, counts), str(sum(counts)),
                         _share(sum(counts), total)))
    if not rows:
        return None
    return PlainTable(
        "Errors per layer and rule", ("Layer", "Rule", *products, "All products",
                                      "Share of the layer's error items"),
        tuple(rows), tuple(range(2, len(products) + 4)),
        "Items with an error in the layer (any rule below 2; layer A: the meaning errors, "
        "scored 0 by the gate), and per rule the items involving it; an item can involve "
        "several rules, so the shares can add up to more than 100%.")


def _not_full(obs: Mapping[str, Mapping[str, Any]]) -> PlainTable | None:
    products = sorted(obs)
    rules = sorted({r for o in obs.values() for r in o.get("not_full", {})}, key=rule_key)
    rows = []
    for rule in rules:
        cells = []
        for p in products:
            below, scored = obs[p].get("not_full", {}).get(rule, (0, 0))
            cells.append(f"{below} of {scored}" if scored else "-")
        rows.append((rule, *cells))
    if not rows:
        return None
    return PlainTable("Items not at full marks, of N scored", ("Rule", *products),
                      tuple(rows), tuple(range(1, len(products) + 1)),
                      "Per rule and product: items where the rule scored below 2, of the "
                      "items where it was scored (a case rule only on its own cases).")


def _decisions(obs: Mapping[str, Mapping[str, Any]], key: str, title: str,
               head: str) -> PlainTable | None:
    products = sorted(obs)
    per = {p: obs[p].get("decisions", {}).get(key, {}) for p in products}
    labels: list[str] = []
    for p in products:
        labels += [k for k in per[p] if k not in labels]
    if not labels:
        return None
    totals = {label: sum(int(per[p].get(label, 0)) for p in products) for label in labels}
    if key == "reasons":
        labels.sort(key=lambda label: (-totals[label], label))
    grand = sum(totals.values())
    rows = tuple((label, *(str(per[p].get(label, 0)) for p in products),
                  _share(totals[label], grand)) for label in labels)
    return PlainTable(title, (head, *products, "All products"), rows,
                      tuple(range(1, len(products) + 2)),
                      f"Rules a person decided ({grand} in all).")


def observation_tables(suite: Mapping[str, Any]) -> Sequence[PlainTable]:
    """The suite's observation tables (none for a method without them)."""
    obs = {e["product"]: e["tables"]["observations"] for e in suite.get("products", [])
           if isinstance(e.get("tables", {}).get("observations"), Mapping)}
    if not obs:
        return ()
    tables = (_layer_errors(obs), _not_full(obs),
              _decisions(obs, "outcomes", "Human decisions by outcome", "Outcome"),
              _decisions(obs, "reasons", "Human decisions by reason", "Reason"))
    return tuple(t for t in tables if t is not None)
