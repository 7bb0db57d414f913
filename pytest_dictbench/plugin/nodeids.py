"""Node ids of dictbench items: no secret in what makes them, and read back into suite
path, case, product, repetition."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..errors import DictbenchError
from ..model import Product, Suite
from ..private import is_private
from ..redact import any_secret, secret_source
from ..rig.package import is_package
from ..suites import MANIFEST

__all__ = ["refuse_secret_names", "split_item_id"]

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


def refuse_secret_names(suite: Suite, products: Iterable[Product]) -> None:
    """A node id is printed and written by pytest itself, where no scrubbing reaches: a
    suite id, case id, genre, tag or product name holding a registered secret (the
    value of an ``*_env`` variable) is refused before any item is made. The error names
    the variable and where the name comes from, never the name."""
    if not any_secret():  # nothing to find (and 10,000 cases' names not to look at)
        return
    names = [("the suite id", suite.id)]
    names += [("the product name", p.name) for p in products]
    if not is_private(suite):  # a private suite's case ids are keyed hashes
        names += [(f"case at line {c.line} of {suite.cases_file.name}: its id, genre or tag",
                   " ".join([c.id, c.genre or "", *c.tags])) for c in suite.cases]
    for what, name in names:
        source = secret_source(name)
        if source is not None:
            raise DictbenchError(f"{what} holds the value of {source} (a key); it would "
                                 "be printed and written in node ids: rename it",
                                 path=suite.root)
