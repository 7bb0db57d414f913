"""What a large run lets go of before its reports are built, and what it holds once:
adapters release the outputs they keep once every item has run, a suite's repeated
case values are one string each, and the fast text steps give what the plain ones give."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.cache import CacheAdapter
from pytest_dictbench.model import Product
from pytest_dictbench.suites import load_suite
from pytest_dictbench.text import normalize


def test_adapters_release_what_they_keep_after_the_last_item(mini: pytest.Pytester,
                                                             write_product: Callable[..., Path]
                                                             ) -> None:
    log = mini.path / "calls.log"
    mini.makeconftest(f'''
from pytest_dictbench.model import Output

LOG = {str(log)!r}

def _note(what):
    with open(LOG, "a") as f:
        f.write(what + "\\n")

class Echo:
    def __init__(self, product, suite, options):
        pass
    def get(self, case, repetition):
        _note("get " + case.id)
        return Output(case.id, case.get("reference"), repetition)
    def release(self):
        _note("release")

def pytest_dictbench_adapters():
    return {{"echo": Echo}}
''')
    write_product("echo", toml='name = "echo"\nversion = "1"\nadapter = "echo"\n')
    result = mini.runpytest("--product=echo")
    result.assert_outcomes(passed=4)
    calls = log.read_text().split("\n")[:-1]
    assert calls == ["get c1", "get c2", "get c3", "get c4", "release"]
    # the reports come from the records, not from the released outputs
    report = json.loads((mini.path / "reports" / "dictbench.json").read_text())
    assert report["suites"][0]["products"][0]["items"] == 4
    lines = (mini.path / "reports" / "items.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["text"] == "Hello Maria, see you at noon."


def test_a_released_cache_reads_its_file_again_when_asked(mini: pytest.Pytester,
                                                         write_product: Callable[..., Path]
                                                         ) -> None:
    root = mini.path
    suite = load_suite(root / "cases" / "mini", lambda method: None)
    (root / "products" / "p").mkdir(parents=True)
    (root / "products" / "p" / "mini.jsonl").write_text(
        "".join(json.dumps({"case_id": c.id, "text": f"said {c.id}"}) + "\n"
                for c in suite.cases))
    product = Product(name="p", version="1", adapter="cache", path=root / "products" / "p.toml")
    adapter = CacheAdapter(product, suite, AdapterOptions())
    before = adapter.get(suite.cases[1], 1)
    adapter.release()
    assert adapter.outputs is None
    again = adapter.get(suite.cases[1], 1)
    assert before is not None and again is not None and again.text == before.text == "said c2"
    assert adapter.get(suite.cases[0], 2) is None


def test_repeated_case_values_are_one_string_per_suite(mini: pytest.Pytester) -> None:
    suite = load_suite(mini.path / "cases" / "mini", lambda method: None)
    first, *others = suite.cases
    assert all(c.data["canary"] is first.data["canary"] for c in others)
    chats = [c.data["genre"] for c in suite.cases if c.data["genre"] == "chat"]
    assert len(chats) == 2 and chats[0] is chats[1]
    assert first.data["canary"] == suite.canary  # the value itself is unchanged


_PLAIN_WHITESPACE = re.compile(r"\s+")
#: Characters the folding steps treat specially, mixed with any others.
_TRICKY = st.sampled_from(list("\u2019\u2018\u02bc\uff07`\u2032\u00b4'"
                               "\u00a0\u3000\u2028\x1c \t\nA"))
_TEXTS = st.text(st.one_of(st.characters(exclude_categories=["Cs"]), _TRICKY), max_size=40)


@settings(max_examples=3000, deadline=None)
@given(_TEXTS)
def test_fold_and_collapse_give_what_the_plain_steps_give(text: str) -> None:
    plain_fold = unicodedata.normalize("NFKC", text.translate(normalize._BEFORE_NFKC))
    assert normalize.fold(text) == plain_fold.translate(normalize._CURLY_APOSTROPHES).lower()
    assert normalize.collapse_whitespace(text) == _PLAIN_WHITESPACE.sub(" ", text).strip()


def test_a_record_line_longer_than_the_store_takes_is_that_items_error(
        mini: pytest.Pytester, write_product: Callable[..., Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the real bound is 4 GiB; a run in this process sees a lower one
    monkeypatch.setattr("pytest_dictbench.report.items._LONGEST", 2000)
    long_text = "word " * 600  # its record line (text, digest, evidence) is over 3,000 bytes
    write_product(outputs=[{"case_id": "c1", "text": long_text},
                           {"case_id": "c2", "text": "Please send the invoice by Friday."}])
    result = mini.runpytest_inprocess("--product=p1", "--dictbench-item-failures=report")
    result.stdout.fnmatch_lines(["*record error: the item's record cannot be written "
                                 "(ValueError: the record line is * bytes, above the 2000 "
                                 "an item store keeps)*"])
    lines = (mini.path / "reports" / "items.jsonl").read_text().splitlines()
    records = {r["case_id"]: r for r in map(json.loads, lines)}
    assert records["c1"]["status"] == "error" and records["c1"]["text"] is None
    assert "2000 an item store keeps" in records["c1"]["message"]
    assert records["c2"]["status"] == "passed"
