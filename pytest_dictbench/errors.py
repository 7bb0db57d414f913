"""Typed errors that carry the file, line or case they are about."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any


class DictbenchError(Exception):
    """Base class: a problem with benchmark input, named by where it is."""

    def __init__(self, message: str, *, path: Path | str | None = None, line: int | None = None):
        self.path = str(path) if path is not None else None
        self.line = line
        where = self.path or ""
        if where and line:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}" if where else message)


class SuiteError(DictbenchError):
    """A suite manifest or cases file is missing, malformed or inconsistent."""


class ProductError(DictbenchError):
    """A product file is missing, malformed or names an unknown adapter."""


class OutputError(DictbenchError):
    """A product output file is malformed or does not fit its suite."""


class CaptureError(DictbenchError):
    """A live adapter failed to produce an output for one item."""


class JudgeError(DictbenchError):
    """An LLM judge request failed or returned an invalid answer."""


def install_hint(packages: Sequence[str], extra: str) -> str:
    """``needs the optional package 'scipy': pip install 'pytest-dictbench[rig]'``."""
    named = ", ".join(repr(p) for p in packages)
    plural = "s" if len(packages) > 1 else ""
    return f"needs the optional package{plural} {named}: pip install 'pytest-dictbench[{extra}]'"


def require(module: str, extra: str, purpose: str, *, package: str | None = None) -> Any:
    """Import the optional ``module`` (of the extra ``extra``), or raise one line saying
    how to install it, never the import's traceback::

        DictbenchError: speaker attribution (cpWER) needs the optional package
        'scipy': pip install 'pytest-dictbench[rig]'
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise DictbenchError(f"{purpose} "
                             f"{install_hint([package or module.split('.')[0]], extra)}"
                             ) from None
