"""``[params] normalization = "whisper"``: English WER as the field computes it (the
Whisper English normaliser of the ``whisper-normalizer`` package, as the Open ASR
Leaderboard uses it)."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import pytest

from pytest_dictbench.errors import SuiteError
from pytest_dictbench.methods.error_rate import ErrorRate
from pytest_dictbench.model import Case, Output, ScoreContext, Suite

pytest.importorskip("whisper_normalizer")

ROOT = Path(__file__).resolve().parents[1]


def suite(normalization: str = "whisper", locale: str = "en-US") -> Suite:
    return Suite(id="s", version="1", title="s", method="error_rate", locale=locale,
                 canary="X", root=Path("."), cases=(),
                 params={"normalization": normalization})


def wer(reference: str, output: str, normalization: str = "whisper") -> tuple[int, int]:
    """(word errors, reference words) of one item."""
    result = ErrorRate().score(Case("c", {"reference": reference}), Output("c", output),
                               ScoreContext(suite(normalization)))
    m = result.metrics
    return m["word_sub"] + m["word_del"] + m["word_ins"], m["word_ref"]


@pytest.mark.parametrize(("reference", "output"), [
    ("We start in ten minutes.", "we start in 10 minutes"),
    ("The colour of the sky", "the color of the sky"),
    ("It costs twenty dollars.", "It costs $20."),
])
def test_spelled_and_written_forms_compare_equal(reference: str, output: str) -> None:
    assert wer(reference, output)[0] == 0
    # the default normaliser counts each as an error
    assert wer(reference, output, "default")[0] > 0


def test_clock_times_still_differ() -> None:
    # "9:15" -> "9 15" but "nine fifteen" -> "915": one substitution, one deletion
    assert wer("We meet at 9:15.", "We meet at nine fifteen.") == (2, 5)


def test_the_normaliser_and_its_version_are_recorded() -> None:
    method = ErrorRate()
    method.check_params(suite())
    records = [{"metrics": {"word_ref": 4, "word_sub": 1, "word_del": 0, "word_ins": 0,
                            "char_ref": 10, "char_sub": 0, "char_del": 0, "char_ins": 0,
                            "strict_ref": 10, "strict_distance": 1}}]
    tables = method.aggregate(records, suite())
    assert tables["normalizer"] == {"name": "whisper-english", "package": "whisper-normalizer",
                                    "version": metadata.version("whisper-normalizer")}
    assert tables["normalization"].startswith("whisper: the Whisper English normaliser")
    assert "normalizer" not in method.aggregate(records, suite("default"))


def test_only_english_suites_may_choose_it() -> None:
    with pytest.raises(SuiteError, match="normalization 'whisper' is the English normaliser"):
        ErrorRate().check_params(suite(locale="de-DE"))


def test_a_missing_package_is_a_one_line_install_hint(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(check="""
        import sys
        sys.modules["whisper_normalizer"] = None  # as if not installed
        from pathlib import Path
        from pytest_dictbench.errors import SuiteError
        from pytest_dictbench.methods.error_rate import ErrorRate
        from pytest_dictbench.model import Suite
        s = Suite(id="s", version="1", title="s", method="error_rate", locale="en-US",
                  canary="X", root=Path("cases/s"), cases=(),
                  params={"normalization": "whisper"})
        try:
            ErrorRate().check_params(s)
        except SuiteError as exc:
            print(exc)
    """)
    run = pytester.run(sys.executable, "check.py")
    assert run.outlines == [
        "cases/s/suite.toml: params.normalization 'whisper' needs the whisper-normalizer "
        "package: pip install 'pytest-dictbench[normalizer]'"]


def test_a_suite_run_records_the_normaliser_in_dictbench_json(
        pytester: pytest.Pytester, write_suite, write_product) -> None:
    import json

    root = write_suite(params="threshold = 0.5\nnormalization = \"whisper\"")
    write_product()
    pytester.runpytest_subprocess(str(root), "--product=p1", "-p", "no:cacheprovider")
    report = json.loads((pytester.path / "reports/dictbench.json").read_text())
    tables = report["suites"][0]["products"][0]["tables"]
    assert tables["normalizer"]["package"] == "whisper-normalizer"
    assert tables["normalizer"]["version"] == metadata.version("whisper-normalizer")


@pytest.mark.parametrize(("reference", "output", "errors", "words"), [
    ("I kinda like it", "I kind of like it", 2, 4),
    ("it is sorta fine", "it is sort of fine", 2, 4),
    ("I dunno", "I do not know", 3, 2),
    ("'cause I said so", "because I said so", 1, 4),
    ("the cause of the fire", "the because of the fire", 1, 5),
    ("a good cause", "a good because", 1, 3),
])
def test_four_replacements_openais_normaliser_does_not_make_are_not_made(
        reference: str, output: str, errors: int, words: int) -> None:
    """PS18: the package adds kinda, sorta, dunno and cause to OpenAI's replacers; the
    figures are OpenAI's normaliser (whisper/normalizers/english.py) with jiwer."""
    assert wer(reference, output) == (errors, words)


def test_cause_stays_cause() -> None:
    """PS18: ``the cause of the fire`` is not ``the because of the fire``."""
    from pytest_dictbench.text.whisper import whisper_english
    assert whisper_english("the cause of the fire") == "the cause of the fire"
