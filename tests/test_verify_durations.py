"""``--dictbench-verify`` compares each case's declared ``duration_s`` with the length of
its audio file (J15, the verify half): a case whose figure is off by more than half a
second fails, naming the case, both lengths and the file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

JOURNAL = Path(__file__).parents[1] / "cases" / "ja-journal"


def _suite(root: Path, durations: dict[str, float]) -> None:
    """Two journal cases with their audio, ``duration_s`` replaced where given."""
    suite = root / "cases" / "jj"
    (suite / "audio").mkdir(parents=True)
    cases = [json.loads(line) for line in
             (JOURNAL / "cases.jsonl").read_text(encoding="utf-8").splitlines()[:2]]
    for case in cases:
        shutil.copy(JOURNAL / case["audio"], suite / case["audio"])
        case["duration_s"] = durations.get(case["id"], case["duration_s"])
    (suite / "cases.jsonl").write_text(
        "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    manifest = (JOURNAL / "suite.toml").read_text(encoding="utf-8").split("[[files]]")[0]
    (suite / "suite.toml").write_text(manifest.replace('id = "ja-journal"', 'id = "jj"'),
                                      encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\ndictbench_suites = cases/jj\n")


def test_a_duration_far_from_the_audio_fails_naming_the_case(pytester: pytest.Pytester
                                                              ) -> None:
    _suite(pytester.path, {"jr-01": 300.0, "jr-02": 36.7})  # jr-02: 0.28 s off, within
    result = pytester.runpytest("--dictbench-verify", "-v", "-k", "duration")
    result.stdout.fnmatch_lines([
        "*suite.toml::duration[[]jr-01[]] FAILED*",
        "*suite.toml::duration[[]jr-02[]] PASSED*",
        "*case 'jr-01': duration_s 300 but audio/jr-01.flac is 41.47 s long*"])
    result.assert_outcomes(passed=1, failed=1)
