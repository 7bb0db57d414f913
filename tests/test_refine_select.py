"""``dictbench select`` on hand-made reports: a known winner, its optimism gap, a known
overlap with the runner-up, and the refusals that keep the halves apart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.cli import main
from pytest_dictbench.select import SelectError, select, select_paths


def entry(product: str, score: float, low: float, high: float) -> dict[str, Any]:
    return {"product": product, "score": score, "score_ci": {"low": low, "high": high},
            "cases_scored": 10}


def report(half: str, products: list[dict[str, Any]], seed: int = 7) -> dict[str, Any]:
    return {"schema_version": 2, "split": {"half": half, "seed": seed,
                                           "suites": {"mini": {"half": half}}},
            "suites": [{"id": "mini", "products": products}], "_path": f"{half}.json"}


DEV = report("dev", [entry("a", 80.0, 75.0, 85.0), entry("b", 90.0, 86.0, 94.0),
                     entry("c", 70.0, 60.0, 80.0)])
#: On test, b (the dev winner) scores 84 [80, 88]; a scores 70 [66, 74]: no overlap.
TEST = report("test", [entry("a", 70.0, 66.0, 74.0), entry("b", 84.0, 80.0, 88.0),
                       entry("c", 71.0, 61.0, 81.0)])


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
