"""``dictbench select`` on hand-made reports: a known winner, its optimism gap, a known
overlap with the runner-up, and the refusals that keep the halves apart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.cli import main
from pytest_dictbench.select import SelectError, render_selection, select, select_paths
from pytest_dictbench.split import RULE


def entry(product: str, score: float, low: float, high: float) -> dict[str, Any]:
    return {"product": product, "score": score, "score_ci": {"low": low, "high": high},
            "cases_scored": 10}


def report(half: str, products: list[dict[str, Any]], seed: int = 7, *,
           version: str = "1.0", of: int = 20, digest: str = "d" * 64) -> dict[str, Any]:
    suite = {"half": half, "seed": seed, "version": version, "cases": 10, "of": of,
             "cases_sha256": half * 3, "suite_cases_sha256": digest}
    return {"schema_version": 2, "split": {"half": half, "seed": seed, "rule": RULE,
                                           "suites": {"mini": suite}},
            "suites": [{"id": "mini", "products": products}], "_path": f"{half}.json"}


DEV = report("dev", [entry("a", 80.0, 75.0, 85.0), entry("b", 90.0, 86.0, 94.0),
                     entry("c", 70.0, 60.0, 80.0)])
#: On test, b (the dev winner) scores 84 [80, 88]; a scores 70 [66, 74] and c 71
#: [61, 79]: no overlap.
TEST = report("test", [entry("a", 70.0, 66.0, 74.0), entry("b", 84.0, 80.0, 88.0),
                       entry("c", 71.0, 61.0, 79.0)])


def test_the_dev_winner_is_reported_on_test_with_its_gap() -> None:
    [suite] = select(DEV, TEST)["suites"]
    assert suite["winner"]["product"] == "b"
    assert suite["winner"]["test_score"] == 84.0
    assert suite["winner"]["test_ci"] == {"low": 80.0, "high": 88.0}
    assert suite["winner"]["optimism_gap"] == pytest.approx(90.0 - 84.0)
    assert suite["runner_up"]["product"] == "a"
    assert suite["test_overlaps_runner_up"] is False
    assert [row["product"] for row in suite["candidates"]] == ["b", "a", "c"]


def test_an_overlap_with_the_runner_up_is_flagged() -> None:
    test = report("test", [entry("a", 79.0, 74.0, 84.0), entry("b", 82.0, 78.0, 86.0),
                           entry("c", 71.0, 61.0, 81.0)])
    [suite] = select(DEV, test)["suites"]
    assert suite["winner"]["product"] == "b" and suite["test_overlaps_runner_up"] is True
    assert suite["winner"]["optimism_gap"] == pytest.approx(8.0)


def test_a_product_in_one_half_only_is_not_a_candidate() -> None:
    test = report("test", [entry("a", 70.0, 66.0, 74.0), entry("c", 71.0, 61.0, 81.0)])
    [suite] = select(DEV, test)["suites"]
    assert suite["winner"]["product"] == "a" and suite["not_in_both"] == ["b"]


def write(folder: Path, data: dict[str, Any]) -> Path:
    folder.mkdir(parents=True)
    (folder / "dictbench.json").write_text(json.dumps(
        {k: v for k, v in data.items() if k != "_path"}))
    return folder


def test_halves_swapped_or_missing_or_of_two_seeds_are_refused(tmp_path: Path) -> None:
    dev, test = write(tmp_path / "dev", DEV), write(tmp_path / "test", TEST)
    with pytest.raises(SelectError, match="ran the 'test' half, but is given as the 'dev'"):
        select_paths(test, dev)
    plain = write(tmp_path / "plain", {k: v for k, v in TEST.items() if k != "split"})
    with pytest.raises(SelectError, match=r"records no split.*--dictbench-split test"):
        select_paths(dev, plain)
    other = write(tmp_path / "other", report("test", TEST["suites"][0]["products"], seed=8))
    with pytest.raises(SelectError, match="different seeds"):
        select_paths(dev, other)


def test_the_command_prints_and_writes_the_selection(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    dev, test = write(tmp_path / "dev", DEV), write(tmp_path / "test", TEST)
    assert main(["select", str(dev), str(test), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "Chosen: **b**: dev 90.00, test 84.00 [80.00, 88.00], optimism gap +6.00." \
        in printed
    assert "FLAG" not in printed
    saved = json.loads((tmp_path / "out" / "selection.json").read_text())
    assert saved["suites"][0]["winner"]["product"] == "b"
    assert (tmp_path / "out" / "selection.md").read_text() == printed
    assert main(["select", str(test), str(dev)]) == 2
    assert "given as the 'dev' half" in capsys.readouterr().err


@pytest.mark.parametrize(("change", "named"), [
    ({"version": "1.1"}, r"suite 'mini': version 1\.0 in the dev report, 1\.1 in the test"),
    ({"of": 21}, r"suite 'mini': 20 cases in the dev report, 21 in the test"),
    ({"digest": "e" * 64}, r"suite 'mini': the case lists differ \(digest dddddddddddd in "
                           r"the dev report, eeeeeeeeeeee in the test"),
])
def test_halves_of_two_suite_versions_or_case_lists_are_refused(
        change: dict[str, Any], named: str) -> None:
    """PL1: halves of different suite versions, case totals or case lists may overlap
    (and leave cases out): refused, naming the suite and both values."""
    test = report("test", TEST["suites"][0]["products"], **change)
    with pytest.raises(SelectError, match=named):
        select(DEV, test)


def test_a_half_without_the_suite_digest_is_refused() -> None:
    """PL1: a report of an older split records no digest of the whole case list, so
    the halves cannot be checked against each other."""
    test = report("test", TEST["suites"][0]["products"])
    del test["split"]["suites"]["mini"]["suite_cases_sha256"]
    with pytest.raises(SelectError, match="records no digest of the suite's case list"):
        select(DEV, test)


def provisional(entry_: dict[str, Any]) -> dict[str, Any]:
    return {**entry_, "provisional": {"unjudged": 24, "items": 12}}


def test_provisional_configurations_are_marked_and_never_chosen() -> None:
    """PL3: b is provisional on dev: it is shown as such and a (the best of the rest) is
    chosen; when every product is provisional nothing is chosen."""
    dev = report("dev", [entry("a", 80.0, 75.0, 85.0),
                         provisional(entry("b", 90.0, 86.0, 94.0))])
    test = report("test", [entry("a", 70.0, 66.0, 74.0), entry("b", 84.0, 80.0, 88.0)])
    [suite] = select(dev, test)["suites"]
    assert suite["winner"]["product"] == "a"
    assert suite["candidates"][0]["product"] == "b"
    assert suite["candidates"][0]["status"] == "provisional: 24 unjudged judgement(s) (dev)"
    text = render_selection(select(dev, test))
    assert "| b | 90.00 | 10 | 84.00 | 10 | [80.00, 88.00] | +6.00 | provisional: 24 " \
        "unjudged judgement(s) (dev) |" in text
    dev = report("dev", [provisional(entry("a", 0.0, 0.0, 0.0)),
                         provisional(entry("b", 0.0, 0.0, 0.0))])
    [suite] = select(dev, test)["suites"]
    assert suite["winner"] is None
    text = render_selection(select(dev, test))
    assert "Chosen" not in text
    assert "Nothing was chosen: every configuration is provisional or incomplete" in text


def test_a_configuration_with_fewer_cases_than_its_half_is_incomplete() -> None:
    """PL3: a product that scored 9 of the half's 10 cases is not chosen."""
    short = {**entry("b", 90.0, 86.0, 94.0), "cases_scored": 9}
    dev = report("dev", [entry("a", 80.0, 75.0, 85.0), short])
    [suite] = select(dev, TEST)["suites"]
    assert suite["winner"]["product"] == "a"
    assert suite["candidates"][0]["status"] == "incomplete: 9 of 10 cases scored (dev)"


def test_every_overlapping_product_is_named_and_a_sole_one_is_not_chosen() -> None:
    """PL5: three products whose test intervals all overlap the winner's are all named;
    a single product is reported with "nothing to choose between"."""
    dev = report("dev", [entry("x", 90.4, 85, 95), entry("y", 90.2, 85, 95),
                         entry("z", 90.0, 85, 95)])
    test = report("test", [entry("x", 90.0, 86, 94), entry("y", 89.0, 85, 93),
                           entry("z", 88.0, 84, 92)])
    [suite] = select(dev, test)["suites"]
    assert suite["test_overlaps"] == ["y", "z"]
    assert "the test interval overlaps that of y [85.00, 93.00], z [84.00, 92.00]" in \
        render_selection(select(dev, test))
    one_dev, one_test = report("dev", [entry("x", 90.4, 85, 95)]), \
        report("test", [entry("x", 90.0, 86, 94)])
    text = render_selection(select(one_dev, one_test))
    assert "Chosen" not in text
    assert "Only one configuration (**x**) was scored in both halves: nothing was chosen" \
        in text
