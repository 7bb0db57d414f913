"""One string object per repeated value: a run of 100,000 items holds its suites'
canaries, genres and statuses once each, not once per case or record. Pure."""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from typing import Any

__all__ = ["share_strings"]


def share_strings(table: MutableMapping[str, Any], keys: Iterable[str],
                  seen: dict[str, str]) -> None:
    """Replace each string under ``keys`` of ``table`` by the equal string first met in
    ``seen`` (recorded there when new); other values are left alone."""
    for key in keys:
        value = table.get(key)
        if isinstance(value, str):
            table[key] = seen.setdefault(value, value)
