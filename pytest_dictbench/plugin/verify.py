"""``pytest --dictbench-verify``: a suite's integrity checks, one test each.

Checks, in order: the manifest (schema, cases, paths inside the suite); the sha256 of
every listed file; the canary in every data file; every case's consistency (the
method's ``check_case``); every audio file against the suite's audio specification;
every case's declared ``duration_s`` against its audio file's length (within
:data:`DURATION_TOLERANCE_S`); the execution gate; and draft cases still waiting for
review. Node ids read ``<suite>/suite.toml::<check>[<file or case>]``.

For a private suite, case ids and the names of its data files (audio files are named
after cases) are shown as stable keyed hashes in node ids and failure text, and a
case's own problems are counted, not quoted (they may quote its text).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..errors import DictbenchError
from ..model import Suite
from ..private import is_private, public_case_id
from ..suites import MANIFEST, data_files
from .session import SESSION_KEY

__all__ = ["CheckItem", "IntegrityFailure", "VerifyCollector"]


class IntegrityFailure(Exception):
    """A check found a problem; the message says which and where."""


class Shown:
    """How a suite's case ids and file names are shown: as they are, or (private suite)
    as keyed hashes (:func:`~pytest_dictbench.private.public_case_id`)."""

    def __init__(self, suite: Suite) -> None:
        self.private = is_private(suite)
        self._swaps: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None
        if self.private:
            kept = {MANIFEST, suite.manifest.get("cases", "cases.jsonl")}
            files = [f.path for f in suite.files] + [
                p.relative_to(suite.root).as_posix() for p in data_files(suite)]
            self._swaps = {rel: self._file(suite, rel) for rel in files if rel not in kept}
            self._swaps.update({c.id: public_case_id(suite, c.id) for c in suite.cases})
            # longest first, whole names only (a case id "c1" stays inside "ac1f")
            names = sorted(self._swaps, key=len, reverse=True)
            self._pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, names))
                                       + r")(?![\w-])") if names else None

    @staticmethod
    def _file(suite: Suite, rel: str) -> str:
        path = Path(rel)
        return (path.parent / (public_case_id(suite, rel) + path.suffix)).as_posix()

    def __call__(self, text: str) -> str:
        """``text`` with every case id and data file name replaced (a private suite)."""
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: self._swaps[m.group(1)], text)


class CheckItem(pytest.Item):
    """One integrity check."""

    def __init__(self, *, check: Callable[[], None], shown: Callable[[str], str] = str,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.shown = shown

    def runtest(self) -> None:
        self.check()

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
                     ) -> Any:
        if isinstance(excinfo.value, (IntegrityFailure, DictbenchError)):
            return self.shown(str(excinfo.value))
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, self.name


class VerifyCollector(pytest.File):
    """Collects the integrity checks of one suite."""

    shown: Callable[[str], str] = str

    def _item(self, name: str, check: Callable[[], None]) -> CheckItem:
        name = self.shown(name)
        return CheckItem.from_parent(self, name=name, check=check, shown=self.shown)

    def collect(self) -> Iterator[CheckItem]:
        session = self.config.stash[SESSION_KEY]
        try:
            suite = session.load_suite(self.path)
        except DictbenchError as exc:
            problem = str(exc)

            def broken() -> None:
                raise IntegrityFailure(problem)

            yield self._item("manifest", broken)
            return
        self.shown = shown = Shown(suite)
        yield self._item("manifest", lambda: None)
        for entry in suite.files:
            yield self._item(f"sha256[{entry.path}]",
                             lambda e=entry: _check_digest(suite, e.path, e.sha256))
        for path in data_files(suite):
            rel = path.relative_to(suite.root).as_posix()
            yield self._item(f"canary[{rel}]", lambda p=path: _check_canary(suite, p))
        method = session.method(suite)
        if hasattr(method, "check_case"):
            # a method that reads the suite (its locale) checks a case with it
            in_suite = getattr(method, "check_case_in", None)
            for case in suite.cases:
                yield self._item(f"case[{case.id}]", lambda c=case: _check_problems(
                    f"case {c.id!r}", in_suite(c, suite) if in_suite else method.check_case(c),
                    withhold=shown.private))
        if "audio" in suite.manifest:
            for case in suite.cases:
                if "audio" in case.data:
                    yield self._item(f"audio[{case.data['audio']}]",
                                     lambda c=case: _check_audio(suite, c.data["audio"]))
        for case in suite.cases:
            if "audio" in case.data and "duration_s" in case.data:
                yield self._item(f"duration[{case.id}]", lambda c=case: _check_duration(
                    suite, c.id, c.data["audio"], c.data["duration_s"]))
        yield self._item("execution_gate", lambda: _check_gate(suite))
        if suite.drafts:
            yield self._item("drafts", lambda: _check_drafts(suite))


def _check_digest(suite: Suite, rel: str, expected: str | None) -> None:
    from ..audio.io import sha256_file

    path = suite.root / rel
    if expected is None:
        raise IntegrityFailure(f"{path}: no sha256 listed in suite.toml")
    _check_regular(path, "listed file")
    actual = sha256_file(path)
    if actual != expected:
        hint = (f"; check the cases, then run 'dictbench hash {suite.root}' (a review save "
                "cut short, or an edit by hand)" if rel == "cases.jsonl" else "")
        raise IntegrityFailure(f"{path}: sha256 {actual} does not match the listed "
                               f"{expected}{hint}")


def _check_regular(path: Path, what: str) -> None:
    """A missing file and something else in its place (a FIFO, a folder) told apart."""
    if not os.path.lexists(path):
        raise IntegrityFailure(f"{path}: {what} is missing")
    if not path.is_file():
        raise IntegrityFailure(f"{path}: {what} is not a regular file (a FIFO, device, "
                               "socket or folder is never read)")


def _check_canary(suite: Suite, path: Path) -> None:
    _check_regular(path, "file")
    if suite.canary.encode("utf-8") not in path.read_bytes():
        raise IntegrityFailure(f"{path}: the canary string {suite.canary!r} is missing")


def _check_problems(what: str, problems: list[str], withhold: bool = False) -> None:
    if problems and withhold:
        raise IntegrityFailure(f"{what}: {len(problems)} problem(s), not shown: the suite "
                               "is private (they may quote its text)")
    if problems:
        raise IntegrityFailure(f"{what}: " + "; ".join(problems))


def _check_audio(suite: Suite, rel: str) -> None:
    from ..audio.spec import AudioSpec, check_audio

    spec = AudioSpec.from_suite(suite)
    if spec is None:
        return
    failed = [f.describe() for f in check_audio(suite.root / rel, spec) if not f.passed]
    if failed:
        raise IntegrityFailure(f"{suite.root / rel}: " + "; ".join(failed))


#: How far a case's declared ``duration_s`` may be from its audio file's length, seconds.
DURATION_TOLERANCE_S = 0.5


def _check_duration(suite: Suite, case_id: str, rel: str, declared: float) -> None:
    """The declared ``duration_s`` (it prices the ASR cost) is the audio's length."""
    from ..audio.io import audio_info

    _check_regular(suite.root / rel, "audio file")
    actual = audio_info(suite.root / rel).duration
    if abs(actual - declared) > DURATION_TOLERANCE_S:
        raise IntegrityFailure(
            f"case {case_id!r}: duration_s {declared:g} but {rel} is {actual:.2f} s long "
            f"(more than {DURATION_TOLERANCE_S:g} s apart); correct duration_s in "
            f"{suite.root / suite.manifest.get('cases', 'cases.jsonl')}")


def _check_gate(suite: Suite) -> None:
    gate = suite.manifest.get("execution_gate", {})
    if not gate.get("ready", True):
        blocking = ", ".join(gate.get("blocking_items", ())) or "none listed"
        where = suite.root / suite.manifest.get("manifest_file", "suite.toml")
        raise IntegrityFailure(f"{where}: execution gate is closed; "
                               f"blocking items: {blocking}; ranking is suppressed")


def _check_drafts(suite: Suite) -> None:
    drafts = [case.id for case in suite.drafts]
    shown = ", ".join(drafts[:10]) + (f" and {len(drafts) - 10} more" if len(drafts) > 10
                                      else "")
    waiting = [f"without key points: {', '.join(ids)}" for ids in [
        [c.id for c in suite.drafts if "key_points" in c.data and not c.data["key_points"]]]
        if ids] + [f"without a transcript: {', '.join(ids)}" for ids in [
        [c.id for c in suite.drafts if "reference" in c.data
         and not str(c.data["reference"]).strip()]] if ids]
    detail = f"; {'; '.join(waiting)}" if waiting else ""
    raise IntegrityFailure(f"{suite.root / 'suite.toml'}: {len(drafts)} draft case(s) not "
                           f"yet approved ({shown}){detail}; review them with 'dictbench "
                           f"review {suite.root}'")
