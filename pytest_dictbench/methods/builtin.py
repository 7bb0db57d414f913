"""The scoring methods dictbench registers itself (through ``pytest_dictbench_methods``)."""

from __future__ import annotations

from .base import Method
from .error_rate import ErrorRate
from .keypoints import Keypoints
from .rig import RigMethod
from .rubric import RubricMethod
from .verbatim import Verbatim

__all__ = ["builtin_methods"]


def builtin_methods() -> list[Method]:
    """A fresh instance of every built-in method, in registration order."""
    return [ErrorRate(), Keypoints(), RubricMethod(), Verbatim(), RigMethod()]
