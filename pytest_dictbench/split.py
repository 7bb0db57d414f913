"""A fixed dev/test split of a suite's cases. Pure.

Choosing a configuration (recogniser, refining model, instruction) on the same items it
is then scored on overstates it. ``--dictbench-split dev`` runs one half of every suite,
``--dictbench-split test`` the other; ``dictbench select`` (:mod:`.select`) picks on dev
and reports on test.

Each case's half depends only on the seed, the suite id and that case's own id:
``sha256(seed NUL suite id NUL case id)``, dev when its first byte is below 128, else
test. Adding or removing a case never moves another case to the other half, and the
machine, the order of the cases file and the run change nothing. The price: the halves
are even only on average (a 1-case suite has one empty half; 100 cases split within
about 40/60 nineteen times in twenty), so the report records each half's size and its
strata counts (genre, source), and ``select`` refuses halves of different case lists.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from .model import Case

__all__ = ["DEFAULT_SEED", "HALVES", "RULE", "assign", "case_half", "cases_digest",
           "split_summary", "stratum"]

#: The seed used when the run names none (``--dictbench-split-seed``).
DEFAULT_SEED = 20261201
HALVES = ("dev", "test")
#: How a case's half is decided, as the report records it (``select`` compares it).
RULE = "case-hash: sha256(seed NUL suite id NUL case id), first byte < 128 -> dev"


def stratum(case: Case) -> tuple[str, str]:
    """The case's (genre, source); a missing field is ``""``."""
    return str(case.get("genre") or ""), str(case.get("source") or "")


def case_half(seed: int, suite_id: str, case_id: str) -> str:
    """``dev`` or ``test``: the half of one case, from its own id alone."""
    digest = hashlib.sha256(f"{seed}\0{suite_id}\0{case_id}".encode()).digest()
    return "dev" if digest[0] < 128 else "test"


def assign(suite_id: str, cases: Iterable[Case], seed: int = DEFAULT_SEED) -> dict[str, str]:
    """Case id -> ``dev`` or ``test``."""
    return {case.id: case_half(seed, suite_id, case.id) for case in cases}


def cases_digest(case_ids: Iterable[str]) -> str:
    """sha256 of the sorted case ids, one per line."""
    return hashlib.sha256("\n".join(sorted(case_ids)).encode()).hexdigest()


def split_summary(suite_id: str, cases: Iterable[Case], half: str,
                  seed: int = DEFAULT_SEED, version: str | None = None) -> dict[str, Any]:
    """What a report records about the half it ran: enough for ``select`` to refuse a
    mix of halves, seeds, suite versions or case lists."""
    cases = list(cases)
    halves = assign(suite_id, cases, seed)
    chosen = [case_id for case_id, h in halves.items() if h == half]
    strata: dict[str, dict[str, int]] = {}
    for case in sorted(cases, key=lambda c: c.id):
        name = "/".join(stratum(case))
        strata.setdefault(name, {"dev": 0, "test": 0})[halves[case.id]] += 1
    return {"half": half, "seed": seed, "version": version, "cases": len(chosen),
            "of": len(cases), "strata": dict(sorted(strata.items())),
            "cases_sha256": cases_digest(chosen),
            "suite_cases_sha256": cases_digest(halves)}
