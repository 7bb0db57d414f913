"""What a rig run checked about its package before scoring, as the reports state it.

:func:`package_checks` verifies every ``integrity.files`` digest (a mismatch raises,
naming the file: nothing is scored from a changed package) and measures each fixture's
canonical audio against the package's ``protocol.audio_specification``. The result is
plain JSON, kept per suite and written into ``dictbench.json`` (``suites[].rig``):

- ``integrity_verified``: true once every listed digest matched;
- ``audio_specification``: whether the audio was checked, and each fixture whose audio
  fails it (or could not be measured), with the failed checks. Any such fixture blocks
  every rank of the run, as a closed execution gate does: the specification is part of
  the preregistered protocol.

:func:`exclusion_facts` adds the rows of the results CSV that were excluded rather than
imported (:class:`~pytest_dictbench.rig.results.Exclusion`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Mapping
from typing import Any

from ..model import Suite
from .package import verify_package
from .results import Exclusion

__all__ = ["RIG_PACKAGES", "audio_blocking", "exclusion_facts", "missing_packages",
           "package_checks"]

#: What a rig run imports beyond the core, all in the extra ``rig``: (module, package).
RIG_PACKAGES = (("icu", "PyICU"), ("scipy", "scipy"), ("pyloudnorm", "pyloudnorm"),
                ("soxr", "soxr"))


def missing_packages(packages: Iterable[tuple[str, str]] = RIG_PACKAGES) -> list[str]:
    """The packages of ``packages`` that cannot be imported here, found without
    importing them (a rig run asks once, before anything is read)."""
    return [package for module, package in packages if importlib.util.find_spec(module) is None]


def _audio_findings(suite: Suite) -> dict[str, Any]:
    """``{"checked", "failures", "problem"}`` of the fixtures' canonical audio."""
    from ..audio.io import AudioError  # numpy and soundfile: only when audio is checked
    from ..audio.spec import AudioSpec, check_audio

    spec = AudioSpec.from_suite(suite)
    if spec is None:
        return {"checked": False, "failures": [],
                "problem": "the package declares no protocol.audio_specification"}
    failures = []
    for case in suite.cases:
        rel = case.data.get("audio")
        if not isinstance(rel, str):
            continue
        try:
            failed = [f.describe() for f in check_audio(suite.root / rel, spec)
                      if not f.passed]
        except AudioError as exc:
            if "pip install" in str(exc):  # a missing optional package: nothing measured
                return {"checked": False, "failures": [],
                        "problem": f"not checked: {exc}"}
            failed = [f"cannot be measured: {exc}"]
        if failed:
            failures.append({"fixture_id": case.id, "audio_path": rel, "failed": failed})
    return {"checked": True, "failures": failures, "problem": None}


def package_checks(suite: Suite) -> dict[str, Any]:
    """Verify the package's digests (raises :class:`SuiteError` on a mismatch), then
    check its canonical audio; the facts the reports state."""
    verify_package(suite)
    return {"integrity_verified": True,
            "integrity": {"algorithm": "sha256", "files": len(suite.files)},
            "audio_specification": _audio_findings(suite)}


def exclusion_facts(exclusions: Iterable[Exclusion]) -> list[dict[str, Any]]:
    """The excluded rows as ``dictbench.json`` lists them, in row order."""
    return [{"row": e.row, "status": e.status, "app_id": e.app_id,
             "fixture_id": e.fixture_id, "reason": e.reason}
            for e in sorted(exclusions, key=lambda e: e.row)]


def audio_blocking(facts: Mapping[str, Any] | None) -> str | None:
    """The reason every rank is withheld for the canonical audio, or None.

    A fixture whose audio fails the specification blocks ranks; so does audio that could
    not be checked at all (a missing optional package), since an unchecked protocol
    condition is not a met one. A package that declares no specification blocks nothing.
    """
    audio = (facts or {}).get("audio_specification")
    if not audio:
        return None
    if audio.get("failures"):
        shown = "; ".join(f"{f['fixture_id']}: {', '.join(f['failed'])}"
                          for f in audio["failures"])
        return f"canonical audio fails the specification: {shown}"
    if not audio.get("checked") and str(audio.get("problem", "")).startswith("not checked"):
        return f"canonical audio not checked against the specification ({audio['problem']})"
    return None
