"""The scoring methods dictbench registers itself (through ``pytest_dictbench_methods``).

Each is a :class:`~pytest_dictbench.deferred.Deferred` that knows its ``name``: its
module loads (and the method is made) when a suite uses it, or when anything else about
it is read.
"""

from __future__ import annotations

from ..deferred import Deferred
from .base import Method

__all__ = ["builtin_methods"]

#: ``(name, module:class)`` of each built-in method, in registration order.
_BUILTIN = (("error_rate", "error_rate:ErrorRate"), ("keypoints", "keypoints:Keypoints"),
            ("rubric", "rubric:RubricMethod"), ("verbatim", "verbatim:Verbatim"),
            ("rig", "rig:RigMethod"))


def builtin_methods() -> list[Method]:
    """A fresh (deferred) instance of every built-in method, in registration order."""
    package = __name__.rpartition(".")[0]
    return [Deferred(f"{package}.{target}", instantiate=True, name=name)  # type: ignore[misc]
            for name, target in _BUILTIN]
