"""A missing API key said once per product, before any item runs (CF24).

A live product whose ``[settings] api_key_env`` names an unset environment variable
would fail every item that needs a capture with the same error. After collection this
plugin counts, per such product, the selected items whose output is not in the capture
cache; when any product has some, the run stops with one usage error (exit 4) and one
line per product. Products whose outputs are all cached run without the key. Checked
where items are collected in this process (a run without ``-n``); under xdist each item
still says it for itself.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import pytest

from ..errors import DictbenchError

__all__ = ["PLUGIN_NAME", "MissingKeys"]

#: Name under which the plugin is registered.
PLUGIN_NAME = "dictbench-missing-keys"


def _usable(adapter: Any) -> set[tuple[str, int]]:
    """The (case, repetition) keys of the adapter's capture cache that hold an output."""
    try:
        lines = adapter.cache.read()
    except DictbenchError:
        return set()
    return {key for key, out in lines.items() if not out.is_error}


class MissingKeys:
    """The check (see module doc)."""

    def __init__(self, recapture: bool) -> None:
        self.recapture = recapture

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        needing: Counter[str] = Counter()
        variables: dict[str, str] = {}
        usable: dict[int, set[tuple[str, int]]] = {}
        for item in items:
            product = getattr(item, "product", None)
            adapter = getattr(item, "adapter", None)
            if product is None or product.adapter == "cache" or adapter is None \
                    or not hasattr(adapter, "cache") or not hasattr(item, "case"):
                continue
            variable = product.settings.get("api_key_env")
            if not isinstance(variable, str) or os.environ.get(variable):
                continue
            if not self.recapture:
                cached = usable.setdefault(id(adapter), _usable(adapter))
                if (item.case.id, item.repetition) in cached:
                    continue
            needing[product.name] += 1
            variables[product.name] = variable
        if needing:
            lines = [f"{name}: environment variable {variables[name]} (api_key_env) is not "
                     f"set, and {count} selected item{'s' if count != 1 else ''} need a "
                     "capture; export it, or leave the product out"
                     for name, count in sorted(needing.items())]
            raise pytest.UsageError("dictbench: a key is missing\n  " + "\n  ".join(lines))
