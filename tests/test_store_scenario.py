"""Issue 42's "done when", as a new user would do it, on SQLite and on PostgreSQL: run,
change the product, run again; compare the two runs; a third run gates against
store:latest; three runs of one product give its variation table, one is declared
official, and a fourth run gates against store:official."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from store_support import store_url
from support import MINI_CASES

from pytest_dictbench.cli import main
from pytest_dictbench.store import open_store


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from store_url(request.param, tmp_path / "store")


def _outputs(texts: list[str]) -> list[dict[str, str]]:
    return [{"case_id": c["id"], "text": t} for c, t in zip(MINI_CASES, texts, strict=True)]


REFERENCES = [c["reference"] for c in MINI_CASES]


def test_runs_remembered_end_to_end(mini: pytest.Pytester, write_product, url: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    (mini.path / "store").mkdir(exist_ok=True)
    store_opt = f"--dictbench-store={url}"
    write_product(outputs=_outputs(REFERENCES))  # every case right
    mini.runpytest("--product=p1", store_opt).assert_outcomes(passed=4)
    changed = list(REFERENCES)
    changed[2] = "The meeting moved to a room for."  # c3 now fails
    write_product(outputs=_outputs(changed))
    mini.runpytest("--product=p1", store_opt).assert_outcomes(passed=3, failed=1)
    store = open_store(url)
    first, second = (r.run_id for r in store.runs())
    capsys.readouterr()  # (the runs' own output)
    assert main(["compare", "--store", url, first, second]) == 0
    out = capsys.readouterr().out
    assert "mini / p1: 3 of 4 outputs identical (line breaks ignored)" in out
    assert "1 passed -> failed: c3" in out

    gated = mini.runpytest("--product=p1", store_opt, "--dictbench-baseline=store:latest")
    gated.assert_outcomes(passed=4, failed=1)  # c3's item; the gate verdict passes
    gated.stdout.fnmatch_lines(["*dictbench summary*"])
    assert "dictbench gate FAILED" not in gated.stdout.str()

    capsys.readouterr()
    assert main(["variation", "--store", url, "mini", "p1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "mini / p1: 3 run(s)"
    assert out.count("4 of 4 outputs identical") == 1  # runs 2 and 3
    assert "score per run on the 4 cases every run scored: 100.00, 91.67, 91.67 " \
           "(range 8.33)" in out  # c3 scores 100 * (1 - 2/6) = 66.67: (300 + 66.67) / 4
    assert "cases whose score varies between runs: 1 of 4 (widest range 33.33: c3)" in out

    third = store.runs()[-1].run_id
    capsys.readouterr()
    assert main(["official", "--store", url, third, "--product", "p1",
                 "--reason", "the third run, as planned"]) == 0
    assert f"{third} is the official run of p1 on mini" in capsys.readouterr().out
    write_product(outputs=_outputs(["x", "y", "z", "w"]))  # everything wrong
    worse = mini.runpytest("--product=p1", store_opt, "--dictbench-baseline=store:official",
                           "--dictbench-max-drop-abs=20")
    worse.stdout.fnmatch_lines(["*dictbench gate FAILED: mini/p1: score dropped *"])
    assert len(store.runs()) == 4
    assert store.run(third).official == [("mini", "p1")]
    store.close()
