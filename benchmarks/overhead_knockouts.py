"""A pytest plugin that switches parts of dictbench's work off, to see what each costs
(``bench_plugin_overhead.py --parts``). A run with any part off is no valid run: its
reports are missing or wrong. It only attributes time.

``DICTBENCH_KNOCKOUT`` names the parts, comma-separated:

- ``end``: no end of run (no summary, pages, files or store);
- ``scrub``: an item's line is not scrubbed of secrets;
- ``order``: an item's line is plain ``json.dumps`` (no natural key order);
- ``record``: no record at all, a constant short line instead;
- ``score``: no scoring, one constant result.

Load it with ``-p overhead_knockouts`` and this folder on ``PYTHONPATH``. It replaces
functions by name, so a renamed one fails loudly here rather than timing nothing.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest_dictbench.plugin.collect as collect
import pytest_dictbench.plugin.session as session
from pytest_dictbench.model import ItemResult, RuleScore

PARTS = ("end", "scrub", "order", "record", "score")
#: The line an item leaves with ``record`` off (what the item store needs of it).
_CONSTANT_LINE = json.dumps({"suite": "gen", "product": "gen", "case_id": "x",
                             "status": "passed", "suite_path": "cases/gen", "score": 1.0})
_CONSTANT_RESULT = ItemResult(passed=True, score=87.5, rules=(RuleScore("WER", 2, ""),))


class _ConstantMethod:
    def score(self, *_args: Any) -> ItemResult:
        return _CONSTANT_RESULT


def _replace(owner: Any, name: str, value: Any) -> None:
    """``owner.name = value``, refused when ``owner`` has no ``name`` (renamed since)."""
    if not hasattr(owner, name):
        raise SystemExit(f"overhead_knockouts: {owner.__name__}.{name} is gone; update "
                         "this plugin")
    setattr(owner, name, value)


def _constant_record(item: Any, status: str, **_fields: Any) -> None:
    item.user_properties.append((session.RECORD_PROPERTY, _CONSTANT_LINE))


def _knock_out(parts: set[str]) -> None:
    unknown = parts - set(PARTS)
    if unknown:
        raise SystemExit(f"DICTBENCH_KNOCKOUT: unknown parts {sorted(unknown)}; "
                         f"known: {', '.join(PARTS)}")
    replacements = {
        "end": (session.DictbenchSession, "_write_reports", lambda self, *_args: None),
        "scrub": (session, "scrub", lambda text: text),
        "order": (session, "natural_record", lambda record: (json.dumps(record), record)),
        "record": (collect.CaseItem, "_record", _constant_record),
        "score": (session.DictbenchSession, "method", lambda self, suite: _ConstantMethod()),
    }
    for part in sorted(parts):
        _replace(*replacements[part])


_knock_out({p for p in os.environ.get("DICTBENCH_KNOCKOUT", "").split(",") if p})
