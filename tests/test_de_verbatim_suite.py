"""The bundled German verbatim suite (issue 48): its data, its audio, and typed figures
of the example product checked by hand on five utterances."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from report_support import bundled_run

from pytest_dictbench.audio.voices import DE_VOICES
from pytest_dictbench.methods.verbatim.labels import gold_problems
from pytest_dictbench.suites import load_suite

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "cases" / "de-verbatim"
CANARY = "DICTBENCH-CANARY de-verbatim 78bb4097-f968-4ae3-8493-7992aba09806"


def test_the_suite_loads_with_thirty_or_more_german_utterances() -> None:
    suite = load_suite(SUITE, lambda m: "case-verbatim.schema.json")
    assert (suite.id, suite.method, suite.locale, suite.canary) == (
        "de-verbatim", "verbatim", "de-DE", CANARY)
    assert len(suite.cases) >= 30
    for case in suite.cases:
        assert case.get("canary") == CANARY
        assert gold_problems(case.get("verbatim"), case.get("intended"), "de") == [], case.id
    entry, *audio = suite.files
    assert hashlib.sha256((SUITE / "cases.jsonl").read_bytes()).hexdigest() == entry.sha256
    assert [a.path for a in audio] == [f"audio/{c.id}.flac" for c in suite.cases]
    for a in audio:
        assert hashlib.sha256((SUITE / a.path).read_bytes()).hexdigest() == a.sha256
    # the project's German voices, spread evenly (34 cases over 4 voices: 9, 9, 8, 8)
    voices = Counter(a.voice for a in audio)
    assert set(voices) == {v.name for v in DE_VOICES}
    assert max(voices.values()) - min(voices.values()) <= 1
    # every disfluency type occurs
    tags = Counter(t for c in suite.cases for t in c.tags)
    assert all(tags[t] >= 5 for t in ("filler", "repetition", "cutoff", "sound", "other"))


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    report = tmp_path_factory.mktemp("de") / "reports"
    done = bundled_run(report, "cases/de-verbatim", "--product=example")
    assert done.returncode == 0, done.stdout + done.stderr
    return report


def test_typed_figures_of_five_utterances_by_hand(example_run: Path) -> None:
    items = {r["case_id"]: r["metrics"] for r in map(
        json.loads, (example_run / "items.jsonl").read_text().splitlines())}

    def counts(case: str, kind: str) -> tuple[int, int, int]:
        return tuple(int(items[case].get(f"{kind}_{k}", 0)) for k in ("tp", "fp", "fn"))

    # 001 drops the opening [ähm] and keeps "Ich ich": filler missed, repetition found
    assert counts("de-verb-001", "filler") == (0, 0, 1)
    assert counts("de-verb-001", "repetition") == (1, 0, 0)
    # 004 drops "Also" and [lacht]: one other and one sound missed, 2 of 13 words deleted
    assert (counts("de-verb-004", "other"), counts("de-verb-004", "sound")) == (
        (0, 0, 1), (0, 0, 1))
    assert (items["de-verb-004"]["vwer_edits"], items["de-verb-004"]["vwer_ref_words"]) == (
        2, 13)
    # 013 adds "äh" where nobody hesitated: a filler invented; "und und" kept
    assert counts("de-verb-013", "filler") == (0, 1, 0)
    assert counts("de-verb-013", "repetition") == (1, 0, 0)
    # 018 cleans "bin bin" and "einen Park* einen": two repetitions and a cut-off missed
    assert counts("de-verb-018", "repetition") == (0, 0, 2)
    assert counts("de-verb-018", "cutoff") == (0, 0, 1)
    # 031 writes "äh" for the spoken "öh" (both [uh]) and keeps "zum zum": all found
    assert counts("de-verb-031", "filler") == (1, 0, 0)
    assert counts("de-verb-031", "repetition") == (1, 0, 0)
    assert counts("de-verb-031", "disfluency") == (2, 0, 0)


def test_suite_figures_by_hand(example_run: Path) -> None:
    suite = json.loads((example_run / "dictbench.json").read_text())["suites"][0]
    (entry,) = suite["products"]
    summary = entry["tables"]["summary"]
    # every other output is the verbatim transcript: of 79 gold disfluencies 6 are missed
    # (1 + 2 + 3 above) and 1 invented -> F1 = 2*73 / (2*73 + 1 + 6) = 146 / 153
    assert summary["disfluency_f1"] == pytest.approx(146 / 153, abs=1e-6)
    # fillers: 17 gold, 1 missed (001), 1 invented (013) -> 32 / 34
    assert summary["filler_f1"] == pytest.approx(32 / 34, abs=1e-6)
    assert entry["tables"]["inventory"] == {
        "utterances": 34, "tokens": 370, "fluent": 291, "filler": 17, "sound": 10,
        "cutoff": 8, "repetition": 17, "other": 27, "disfluencies": 79}
    assert "**Typed inventory of the dataset**" in (example_run / "dictbench.md").read_text()


def test_the_suite_verifies() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--dictbench-verify",
         "cases/de-verbatim"], cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-2000:]
