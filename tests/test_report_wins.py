"""Where each competitor wins, and vendor claims kept apart (issue 48)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_support import bundled_run, example_products

from pytest_dictbench.report.wins import claims_table, win_sentences, wins_by_product
from pytest_dictbench.workbench.publish import publish

REPO = Path(__file__).resolve().parents[1]


def test_every_resolved_figure_names_its_winner() -> None:
    suite = {"products": [{"product": p} for p in ("fast", "slow", "third")],
             "comparisons": [
                 {"a": "fast", "b": "slow", "resolved": True, "mean_difference": 4.0,
                  "components": [{"label": "names F1", "moved": "better"},
                                 {"label": "proposition precision", "moved": "worse"},
                                 {"label": "proposition recall", "moved": "-"}],
                  "relative": [{"label": "median latency", "moved": "worse"}]},
                 {"a": "fast", "b": "third", "resolved": False, "mean_difference": 9.0},
                 # a chosen correction decides: unresolved there, so no win
                 {"a": "slow", "b": "third", "resolved": True, "mean_difference": -2.0,
                  "adjusted": {"resolved": False}}]}
    assert wins_by_product(suite) == {
        "fast": {"slow": ["the overall score", "names F1"]},
        "slow": {"fast": ["proposition precision", "median latency"]}}
    assert win_sentences(suite) == (
        ["fast loses where slow is better on the overall score, names F1.",
         "slow loses where fast is better on proposition precision, median latency.",
         "third: no other product is better on any compared figure by a resolved "
         "difference."])
    assert win_sentences({"products": suite["products"], "comparisons": []}) == ()


@pytest.fixture(scope="module")
def journal_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ja-journal with example (declaring a vendor claim) and example-weak."""
    root = tmp_path_factory.mktemp("wins")
    products = example_products(root, {"example": (
        '\n[[claims]]\nclaim = "EXAMPLE DATA: transcribes 99 languages"\n'
        'source_url = "https://example.com/languages"\nchecked = "2026-12-01"\n')})
    report = root / "reports"
    done = bundled_run(
        report, "cases/ja-journal", f"--product={products / 'example.toml'}",
        f"--product={products / 'example-weak.toml'}")
    assert done.returncode == 0, done.stdout + done.stderr
    return report


def test_the_reports_name_every_category_a_product_loses(journal_run: Path) -> None:
    markdown = (journal_run / "dictbench.md").read_text()
    assert ("- example-weak loses where example is better on the overall score, names F1, "
            "proposition recall, proposition precision, proposition F-beta, median "
            "latency, p95 latency.") in markdown
    assert "- example: no other product is better on any compared figure" in markdown
    assert "Where each competitor wins" in (journal_run / "dictbench.html").read_text()


def test_vendor_claims_are_apart_and_never_ranked(journal_run: Path) -> None:
    suite = json.loads((journal_run / "dictbench.json").read_text())["suites"][0]
    example = next(e for e in suite["products"] if e["product"] == "example")
    assert example["claims"] == [{"claim": "EXAMPLE DATA: transcribes 99 languages",
                                  "source_url": "https://example.com/languages",
                                  "checked": "2026-12-01"}]
    table = claims_table(suite)
    assert table is not None and table.rows == (
        ("example", "EXAMPLE DATA: transcribes 99 languages",
         "https://example.com/languages", "2026-12-01"),)
    assert all("claims" not in row for row in suite["leaderboard"])
    markdown = (journal_run / "dictbench.md").read_text()
    # after the measured results (comparisons and wins), before the failing items
    assert markdown.index("Where each competitor wins") < markdown.index(
        "Vendor claims (documented, not measured; never ranked)") < markdown.index(
        "**Failing items**")
    html = (journal_run / "dictbench.html").read_text()
    assert '<div class="note claims">\n<h3>Vendor claims' in html


def test_publish_names_the_losses_and_keeps_claims_apart(journal_run: Path,
                                                         tmp_path: Path) -> None:
    publish(journal_run, tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    (suite,) = summary["suites"]
    assert suite["where_others_win"][0].startswith(
        "example: no other product")
    assert suite["where_others_win"][1].startswith("example-weak loses where example is "
                                                   "better on the overall score")
    assert suite["vendor_claims"]["example"][0]["checked"] == "2026-12-01"
    text = (tmp_path / "out" / "summary.md").read_text()
    assert "Where each competitor wins (resolved differences only):" in text
    assert "| example | EXAMPLE DATA: transcribes 99 languages |" in text


def test_a_rig_package_names_the_metric_tables_each_product_loses(tmp_path: Path) -> None:
    report = tmp_path / "reports"
    bundled_run(report, "cases/mac-rig", "--dictbench-results",
                "cases/mac-rig/example-results.csv")
    # by hand from the package's rank tables: quillnote 1, murmurdesk 2 on elapsed seconds
    # of dictation and of file transcription; quillnote 1, parlo 2 on meeting speaker turn
    # accuracy; parlo 1, quillnote 2 on meeting elapsed seconds; echoline and
    # tessel-voice ranked in no table
    expected = [
        "echoline: ranked in no metric table (see why above), so no category is won or "
        "lost.",
        "murmurdesk loses where quillnote is better on dictation elapsed_seconds, "
        "file_transcription elapsed_seconds.",
        "parlo loses where quillnote is better on meeting speaker_turn_accuracy.",
        "quillnote loses where parlo is better on meeting elapsed_seconds.",
        "tessel-voice: ranked in no metric table (see why above), so no category is won "
        "or lost."]
    suite = json.loads((report / "dictbench.json").read_text())["suites"][0]
    assert list(win_sentences(suite)) == expected
    assert "**Where each competitor wins** (a better rank in a metric table)" in (
        report / "dictbench.md").read_text()
    publish(report, tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["suites"][0]["where_others_win"] == expected
