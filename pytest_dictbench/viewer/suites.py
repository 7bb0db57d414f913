"""The suites a store's runs name, read from the checkout the viewer runs in: an item's
expected text and audio come from there (the store keeps neither)."""

from __future__ import annotations

from pathlib import Path

from ..errors import DictbenchError
from ..model import Suite
from ..private import is_private
from ..report.sections import expected_texts
from ..suites import inside, load_suite
from ..workbench.checks import audio_path

__all__ = ["SuiteShelf"]


class SuiteShelf:
    """Suites by their path relative to ``root``, each loaded once; a suite missing here,
    unreadable, or whose path leaves ``root`` is ``None`` (its pages say so)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._suites: dict[str, Suite | None] = {}
        self._expected: dict[str, dict[str, list[str]]] = {}

    def get(self, suite_path: str | None) -> Suite | None:
        if not suite_path:
            return None
        if suite_path not in self._suites:
            try:
                folder = inside(self.root, suite_path, what="suite", where=self.root)
                self._suites[suite_path] = load_suite(folder)
            except DictbenchError:
                self._suites[suite_path] = None
        return self._suites[suite_path]

    def expected(self, suite: Suite, case_id: str) -> list[str]:
        """The texts an output of ``case_id`` is diffed against (none for a private suite)."""
        if is_private(suite):
            return []
        if suite.id not in self._expected:
            self._expected[suite.id] = expected_texts([suite])[suite.id]
        return self._expected[suite.id].get(case_id, [])

    def audio(self, suite: Suite, case_id: str) -> Path | None:
        """The case's audio file inside the suite folder (none for a private suite)."""
        if is_private(suite):
            return None
        case = next((c for c in suite.cases if c.id == case_id), None)
        audio = case.data.get("audio") if case is not None else None
        path = audio_path(suite.root, audio) if isinstance(audio, str) else None
        return path if path is not None and path.is_file() else None
