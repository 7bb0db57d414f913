"""A missing API key said once, before any item runs (CF24).

A live product whose ``[settings] api_key_env`` names an unset environment variable
would fail every item that needs a capture with the same error. Once the run's items are
known, :func:`missing_keys` counts, per such product, the selected items whose output is
not in the capture cache; when any product has some, the run stops with one usage error
(exit 4), one line per variable naming the products that need it. Products whose
outputs are all cached run without the key. A serial run checks its collected items
(:class:`MissingKeys`); an xdist controller checks the node ids of the first worker's
collection before any item is scheduled (``scheduler.XdistHooks``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import pytest

from ..adapters.base import AdapterOptions
from ..errors import DictbenchError
from ..model import Product, Suite
from ..products import outputs_file

__all__ = ["PLUGIN_NAME", "MissingKeys", "check_keys", "missing_keys"]

#: Name under which the plugin is registered.
PLUGIN_NAME = "dictbench-missing-keys"

#: One selected item: its product, suite, case id and repetition.
Need = tuple[Product, Suite, str, int]


def _usable(product: Product, suite: Suite, max_text_chars: int) -> set[tuple[str, int]]:
    """The (case, repetition) keys of the product's capture cache that hold an output."""
    from ..adapters.capture_cache import CaptureCache  # only a run with an unset key reads it

    try:
        lines = CaptureCache(outputs_file(product, suite), suite,
                             max_text_chars=max_text_chars).read()
    except DictbenchError:
        return set()  # the item will say what is wrong with the file
    return {key for key, out in lines.items() if not out.is_error}


def missing_keys(needs: Iterable[Need], options: AdapterOptions) -> str | None:
    """The usage error's text when some selected items need a capture with an unset key
    (see module doc), else None."""
    users: dict[str, dict[str, int]] = {}
    usable: dict[tuple[str, str], set[tuple[str, int]]] = {}
    for product, suite, case_id, repetition in needs:
        variable = product.settings.get("api_key_env")
        if product.adapter == "cache" or not isinstance(variable, str) \
                or os.environ.get(variable):
            continue
        if not options.recapture:
            cached = usable.get((product.name, suite.id))
            if cached is None:
                cached = usable[product.name, suite.id] = _usable(product, suite,
                                                                 options.max_text_chars)
            if (case_id, repetition) in cached:
                continue
        counts = users.setdefault(variable, {})
        counts[product.name] = counts.get(product.name, 0) + 1
    if not users:
        return None
    lines = []
    for variable, counts in sorted(users.items()):
        names = sorted(counts)
        total = sum(counts.values())
        who = f"product {names[0]} needs" if len(names) == 1 else \
            f"products {', '.join(names)} need"
        lines.append(f"dictbench: environment variable {variable} (api_key_env) is not set: "
                     f"{who} it to capture {total} item{'s' if total != 1 else ''}; export "
                     "it, or leave the product out")
    return "\n".join(lines)


def check_keys(needs: Iterable[Need], options: AdapterOptions) -> None:
    """Raise the usage error of :func:`missing_keys`, if any."""
    message = missing_keys(needs, options)
    if message is not None:
        raise pytest.UsageError(message)


class MissingKeys:
    """The serial run's check, on its collected items (see module doc)."""

    def __init__(self, options: AdapterOptions) -> None:
        self.options = options

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        check_keys(((item.product, item.suite, item.case.id, item.repetition)  # type: ignore[attr-defined]
                    for item in items if isinstance(getattr(item, "product", None), Product)
                    and getattr(item, "case", None) is not None
                    and getattr(item, "suite", None) is not None), self.options)
