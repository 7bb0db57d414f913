"""A fixed dev/test split of a suite's cases, stratified by genre and source. Pure.

Choosing a configuration (recogniser, refining model, instruction) on the same items it
is then scored on overstates it. ``--dictbench-split dev`` runs one half of every suite,
``--dictbench-split test`` the other; ``dictbench select`` (:mod:`.select`) picks on dev
and reports on test.

The assignment depends only on the seed, the suite id and the case ids, never on the
machine, the order of the cases file or the run: within each stratum (genre, source) the
cases are ordered by ``sha256(seed, suite id, case id)`` and dealt alternately to the two
halves, each stratum starting with the half that is smaller so far. So every stratum is
split to within one case, and the halves overall too.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from .model import Case

__all__ = ["DEFAULT_SEED", "HALVES", "assign", "split_summary", "stratum"]

#: The seed used when the run names none (``--dictbench-split-seed``).
DEFAULT_SEED = 20261201
HALVES = ("dev", "test")


def stratum(case: Case) -> tuple[str, str]:
    """The case's (genre, source); a missing field is ``""``."""
    return str(case.get("genre") or ""), str(case.get("source") or "")


def _order(seed: int, suite_id: str, case_id: str) -> str:
    return hashlib.sha256(f"{seed}\0{suite_id}\0{case_id}".encode()).hexdigest()


def assign(suite_id: str, cases: Iterable[Case], seed: int = DEFAULT_SEED) -> dict[str, str]:
    """Case id -> ``dev`` or ``test``."""
    strata: dict[tuple[str, str], list[str]] = defaultdict(list)
    for case in cases:
        strata[stratum(case)].append(case.id)
    counts = {"dev": 0, "test": 0}
    halves: dict[str, str] = {}
    for key in sorted(strata):
        ids = sorted(strata[key], key=lambda case_id: _order(seed, suite_id, case_id))
        first = "dev" if counts["dev"] <= counts["test"] else "test"
        second = "test" if first == "dev" else "dev"
        for index, case_id in enumerate(ids):
            half = first if index % 2 == 0 else second
            halves[case_id] = half
            counts[half] += 1
    return halves


def split_summary(suite_id: str, cases: Iterable[Case], half: str,
                  seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """What a report records about the half it ran: enough for ``select`` to refuse a
    mix of halves or of seeds."""
    cases = list(cases)
    halves = assign(suite_id, cases, seed)
    chosen = sorted(case_id for case_id, h in halves.items() if h == half)
    strata: dict[str, dict[str, int]] = {}
    for case in sorted(cases, key=lambda c: c.id):
        name = "/".join(stratum(case))
        strata.setdefault(name, {"dev": 0, "test": 0})[halves[case.id]] += 1
    return {"half": half, "seed": seed, "cases": len(chosen), "of": len(cases),
            "strata": dict(sorted(strata.items())),
            "cases_sha256": hashlib.sha256("\n".join(chosen).encode()).hexdigest()}

