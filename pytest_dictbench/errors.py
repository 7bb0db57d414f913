"""Typed errors that carry the file, line or case they are about."""

from __future__ import annotations

from pathlib import Path


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
