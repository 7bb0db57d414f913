"""Official runs: a pre-registered condition checked, the declaration recorded with the
runs it passed over and why. Pure over a :class:`Store`.

The rubric methodology measured one product three times and declared the third run
official under a condition fixed before looking at results (at most 2 items through
the server's fallback path): :func:`declare_official` does that, and refuses a run that
does not meet the condition registered for its suite and product.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from .interface import Condition, Declaration, Store, StoreError

__all__ = ["check_condition", "declaration_in_force", "declare_official", "now_utc",
           "official_run_id"]


def now_utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def check_condition(condition: Condition, records: Iterable[Mapping[str, Any]]
                    ) -> tuple[bool, str]:
    """Whether the records meet the condition, and the count in words."""
    if condition.status:
        count = sum(1 for r in records if r.get("status") == condition.status)
    else:
        count = sum(1 for r in records if (r.get("flags") or {}).get(condition.flag) is True)
    return count <= condition.max_items, f"{count} item(s) with " + (
        f"status {condition.status}" if condition.status else f"flag {condition.flag}") + \
        f" ({condition.describe()})"


def _suite_of(store: Store, run_id: str, suite: str | None) -> tuple[str, str]:
    run = store.run(run_id)
    if suite is None:
        if len(run.suites) != 1:
            raise StoreError(f"run {run.run_id} holds {len(run.suites)} suites "
                             f"({', '.join(run.suites) or 'none'}); name one with --suite")
        suite = next(iter(run.suites))
    if suite not in run.suites:
        raise StoreError(f"run {run.run_id} has no suite {suite!r}")
    return run.run_id, suite


def declare_official(store: Store, run_id: str, product: str, reason: str, *,
                     suite: str | None = None) -> Declaration:
    """Declare ``run_id`` the official run of ``product`` on its suite."""
    if not reason.strip():
        raise StoreError("an official run needs a reason (--reason)")
    run_id, suite = _suite_of(store, run_id, suite)
    records = store.items(run_id, suite=suite, product=product)
    if not records:
        raise StoreError(f"run {run_id} has no item of {product} on {suite}")
    conditions = store.conditions(suite, product)
    condition = conditions[0] if conditions else None  # the product's own first
    if condition is not None:
        met, words = check_condition(condition, records)
        if not met:
            raise StoreError(f"run {run_id} does not meet the official-run condition "
                             f"registered {condition.registered_utc} for {suite}"
                             f"{'/' + condition.product if condition.product else ''}: {words}")
    version = store.run(run_id).suites[suite]
    declared = {d.run_id for d in store.declarations(suite=suite, product=product)}
    passed_over = []
    for earlier in store.runs(suite=suite, product=product, suite_version=version):
        if earlier.run_id == run_id:
            break
        if earlier.run_id in declared:
            continue
        if condition is None:
            why = "not declared (no condition registered)"
        else:
            met, words = check_condition(condition, store.items(
                earlier.run_id, suite=suite, product=product))
            why = (f"met the condition ({words}); a later run was declared" if met
                   else f"did not meet the condition: {words}")
        passed_over.append({"run_id": earlier.run_id, "why": why})
    return store.declare_official(Declaration(
        run_id=run_id, suite=suite, product=product, declared_utc=now_utc(), reason=reason,
        condition=condition.as_dict() if condition else None, passed_over=passed_over))


def declaration_in_force(store: Store, suite: str, product: str) -> Declaration | None:
    """The declaration in force for ``product`` on ``suite`` (the newest), or None."""
    found = store.declarations(suite=suite, product=product)
    return found[-1] if found else None


def official_run_id(store: Store, suite: str, product: str) -> str | None:
    """The run in force as official for ``product`` on ``suite``, or None."""
    found = declaration_in_force(store, suite, product)
    return found.run_id if found else None
