"""A gate baseline read from the store: ``store:latest``, ``store:official``,
``store:<run id>`` or ``store:<git ref>``, the same three things a baseline folder gives
(item records, suite versions, the morphological analyser of its run-info.json)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .interface import Store, StoreError

__all__ = ["PREFIX", "StoreBaseline", "is_store_baseline", "load_store_baseline"]

PREFIX = "store:"


def is_store_baseline(value: str | None) -> bool:
    return bool(value) and str(value).startswith(PREFIX)


@dataclass
class StoreBaseline:
    """What the gate compares with, and which stored runs it came from."""

    records: list[dict[str, Any]]
    versions: dict[str, str]
    analyser: dict[str, Any] | None
    runs: list[str] = field(default_factory=list)


def _analyser(store: Store, run_id: str) -> dict[str, Any] | None:
    try:
        info = json.loads(store.run_info(run_id))
    except ValueError:
        return None
    analyser = info.get("analyser") if isinstance(info, dict) else None
    return dict(analyser) if isinstance(analyser, dict) else None


def _whole_run(store: Store, run_id: str) -> StoreBaseline:
    run = store.run(run_id)
    return StoreBaseline(store.items(run.run_id), dict(run.suites),
                         _analyser(store, run.run_id), [run.run_id])


def load_store_baseline(store: Store, value: str, products: Sequence[str],
                        resolve_ref: Callable[[str], str | None]) -> StoreBaseline:
    """The baseline ``value`` names (``store:...``) for a run of ``products``."""
    what = value[len(PREFIX):].strip()
    if what == "latest":
        for run in reversed(store.runs()):
            if set(products) <= set(run.products):
                return _whole_run(store, run.run_id)
        raise StoreError(f"{store.location}: no stored run has {', '.join(products)} "
                         "(store:latest)")
    if what == "official":
        base = StoreBaseline([], {}, None)
        in_force = {(d.suite, d.product): d.run_id for d in store.declarations()}
        for (suite, product), run_id in sorted(in_force.items()):
            if product not in products:
                continue
            run = store.run(run_id)
            base.records += store.items(run.run_id, suite=suite, product=product)
            base.versions.setdefault(suite, run.suites[suite])
            base.analyser = base.analyser or _analyser(store, run.run_id)
            if run.run_id not in base.runs:
                base.runs.append(run.run_id)
        if not base.runs:
            raise StoreError(f"{store.location}: no official run is declared for "
                             f"{', '.join(products)} (dictbench official)")
        return base
    if not what:
        raise StoreError("store: needs latest, official, a run id or a git ref")
    try:
        return _whole_run(store, what)
    except StoreError as not_a_run:
        commit = resolve_ref(what)
        if commit is None:
            raise not_a_run from None
        runs = store.runs(commit=commit)
        if not runs:
            raise StoreError(f"{store.location}: no stored run of commit {commit[:12]} "
                             f"({what})") from None
        return _whole_run(store, runs[-1].run_id)
