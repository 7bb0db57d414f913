"""A suite's common set (issue 48): `[limits] max_audio_s` of the suite and of each
product decide which cases a product can take; comparisons and ranks use only the cases
every product could take, and the reports say who lost which cases and why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from report_support import bundled_run, example_products

from pytest_dictbench.common_set import product_limit
from pytest_dictbench.model import Product

REPO = Path(__file__).resolve().parents[1]


def test_a_cloud_provider_brings_its_documented_limit() -> None:
    azure = Product(name="az", version="1", adapter="azure", path=Path("az.toml"))
    seconds, source = product_limit(azure)
    assert (seconds, source.endswith("documented 2-hour audio limit")) == (7200.0, True)
    own = Product(name="az", version="1", adapter="azure", path=Path("az.toml"),
                  limits={"max_audio_s": 600})
    assert product_limit(own) == (600.0, "az's [limits] max_audio_s")
    assert product_limit(Product(name="c", version="1", adapter="cache",
                                 path=Path("c.toml"))) is None


@pytest.fixture(scope="module")
def capped_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ja-journal capped at 42 s, example-weak taking at most 40 s, Bonferroni chosen."""
    root = tmp_path_factory.mktemp("capped")
    suite = root / "ja-journal"
    shutil.copytree(REPO / "cases/ja-journal", suite)
    manifest = (suite / "suite.toml").read_text(encoding="utf-8")
    at = manifest.index("[[files]]")
    (suite / "suite.toml").write_text(
        manifest[:at] + '[limits]\nmax_audio_s = 42\n\n[comparisons]\n'
        'correction = "bonferroni"\n\n' + manifest[at:], encoding="utf-8")
    products = example_products(root, {"example-weak": "\n[limits]\nmax_audio_s = 40\n"})
    report = root / "reports"
    done = bundled_run(
        report, f"--rootdir={REPO}", "-c", str(REPO / "pyproject.toml"), str(suite),
        f"--product={products / 'example.toml'}", f"--product={products / 'example-weak.toml'}")
    assert done.returncode == 0, done.stdout + done.stderr
    return report


def test_ranks_and_comparisons_use_only_the_common_set(capped_run: Path) -> None:
    suite = json.loads((capped_run / "dictbench.json").read_text())["suites"][0]
    common = suite["common_set"]
    # by hand from suite.toml's durations: over 42 s jr-04 (44.776) and jr-08 (42.69);
    # over example-weak's 40 s also jr-01 (41.469) and jr-18 (41.643)
    assert (common["cases"], common["of"]) == (16, 20)
    assert [(r["case_id"], r["for"]) for r in common["left_out"]] == [
        ("jr-01", ["example-weak"]), ("jr-04", ["example", "example-weak"]),
        ("jr-08", ["example", "example-weak"]), ("jr-18", ["example-weak"])]
    assert common["lost"] == {"example": 2, "example-weak": 4}
    assert "over example-weak's [limits] max_audio_s of 40 s" in common["left_out"][0]["reason"]
    for entry in suite["products"]:
        assert (entry["cases"], entry["cases_scored"], entry["items"]) == (16, 16, 16)
        assert entry["rank"] is not None
    (comparison,) = suite["comparisons"]
    assert comparison["n"] == 16
    assert comparison["adjusted"]["confidence"] == pytest.approx(0.95)  # one pair
    assert suite["correction"] == {"method": "bonferroni", "family_alpha": 0.05}


def test_the_reports_say_who_lost_which_cases(capped_run: Path) -> None:
    markdown = (capped_run / "dictbench.md").read_text()
    assert ("Compared and ranked on the 16 of 20 cases every product could take; 4 left "
            "out (cases each product could not take: example 2; example-weak 4).") in markdown
    assert "| jr-18 | 41.6 | example-weak | 41.643 s is over example-weak's" in markdown
    html = (capped_run / "dictbench.html").read_text()
    assert "Common set" in html and "jr-18" in html
    assert "Score gaps, Bonferroni over 1 pair" in markdown


def test_a_case_a_product_cannot_take_is_never_sent(capped_run: Path) -> None:
    records = {(r["product"], r["case_id"]): r for r in map(
        json.loads, (capped_run / "items.jsonl").read_text().splitlines())}
    weak = records[("example-weak", "jr-01")]
    assert (weak["status"], weak["output_status"]) == ("not_tested", "unsupported")
    assert weak["message"] == "41.469 s is over example-weak's [limits] max_audio_s of 40 s"
    # example could take jr-01: scored, but left out of the suite's comparisons and ranks
    assert records[("example", "jr-01")]["status"] == "passed"
    capped = records[("example", "jr-04")]
    assert capped["status"] == "not_tested"
    assert capped["message"] == "44.776 s is over the suite's [limits] max_audio_s of 42 s"


def test_bad_limits_claims_and_corrections_name_their_file(tmp_path: Path) -> None:
    from pytest_dictbench.errors import ProductError, SuiteError
    from pytest_dictbench.products import load_product
    from pytest_dictbench.suites import load_suite

    base = 'name = "acme"\nversion = "1"\nadapter = "cache"\n'
    for extra, why in (("[limits]\nmax_audio_s = 0\n", "max_audio_s"),
                       ('[[claims]]\nclaim = "99 languages"\nchecked = "2026-12-01"\n',
                        "source_url"),
                       ('[[claims]]\nclaim = "x"\nsource_url = "u"\nchecked = "Dec 1"\n',
                        "checked")):
        (tmp_path / "acme.toml").write_text(base + extra, encoding="utf-8")
        with pytest.raises(ProductError, match=why) as caught:
            load_product("acme", tmp_path)
        assert "acme.toml" in str(caught.value)
    suite = tmp_path / "s"
    shutil.copytree(REPO / "cases/en-dictation", suite)
    manifest = (suite / "suite.toml").read_text(encoding="utf-8")
    at = manifest.index("[[files]]")
    for extra, why in (('[comparisons]\ncorrection = "sidak"\n', "correction"),
                       ("[limits]\nmax_audio_s = -5\n", "max_audio_s")):
        (suite / "suite.toml").write_text(manifest[:at] + extra + "\n" + manifest[at:],
                                          encoding="utf-8")
        with pytest.raises(SuiteError, match=why) as caught:
            load_suite(suite)
        assert "suite.toml" in str(caught.value)


def test_publish_keeps_the_counts_of_the_common_set_and_the_components(
        capped_run: Path, tmp_path: Path) -> None:
    from pytest_dictbench.workbench.publish import publish

    publish(capped_run, tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    (suite,) = summary["suites"]
    assert suite["common_set"] == {"cases": 16, "of": 20,
                                   "lost": {"example": 2, "example-weak": 4}}
    assert "jr-" not in json.dumps(summary)  # no case is named
    (comparison,) = suite["comparisons"]
    assert [c["component"] for c in comparison["components"]] == [
        "names_f1", "recall", "precision", "fbeta"]
    assert comparison["adjusted"]["method"] == "bonferroni"
    assert ("Compared and ranked on the 16 of 20 cases every product could take (cases "
            "each could not take: example 2; example-weak 4).") in (
        tmp_path / "out" / "summary.md").read_text()
