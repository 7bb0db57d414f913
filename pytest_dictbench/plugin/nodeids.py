"""Node ids of dictbench items, read back into suite path, case, product, repetition."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..rig.package import is_package
from ..suites import MANIFEST

__all__ = ["split_item_id"]

_REPETITION = re.compile(r"(.+)-r([0-9]+)")


def split_item_id(nodeid: str, products: Sequence[str]) -> tuple[str, str, str, int] | None:
    """``(suite path, case id, product, repetition)`` of a dictbench item's node id
    (``<path>/suite.toml::<case>[<product>]`` or ``...[<product>-r<n>]``; a rig
    package's ``...[<product>-<profile>-r<n>]`` too), else None."""
    path, sep, name = nodeid.partition("::")
    if not sep or not (path.endswith(MANIFEST) or is_package(Path(path))) \
            or not name.endswith("]") or "[" not in name:
        return None
    case_id, _, bracket = name[:-1].partition("[")
    if bracket in products:
        return path, case_id, bracket, 1
    match = _REPETITION.fullmatch(bracket)
    if match is None:
        return None
    head = match[1]
    if head not in products:  # a rig row outside the default profile: <product>-<profile>
        head = max((p for p in products if head.startswith(f"{p}-")), key=len, default="")
    return (path, case_id, head, int(match[2])) if head else None
