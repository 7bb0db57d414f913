"""dictbench.md: content worked out by hand on a mini report, GFM validity, escaping,
truncation, size and byte-identical output on the bundled sample run."""

from __future__ import annotations

import copy
import json
import re

import pytest
from report_support import MINI_EXPECTED, mini_records, mini_report, rendered_twice, sample_run

from pytest_dictbench.report.markdown import FAILING_LIMIT, code, md, render_markdown
from pytest_dictbench.report.sections import fmt

_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")


def cells(line: str) -> list[str]:
    """Cells of a GFM table row, split on pipes that are not backslash-escaped."""
    inner = line.strip()[1:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner)]


def tables(text: str) -> list[list[str]]:
    """Every table of the document as its lines."""
    found, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            found.append(current)
            current = []
    return [*found, current] if current else found


def assert_valid_gfm(text: str) -> None:
    for table in tables(text):
        width = len(cells(table[0]))
        assert re.fullmatch(r"\|(?:-{3}:?\|)+|\|(?:(?:---|---:)\|)+", table[1]), table[1]
        assert len(cells(table[1])) == width, table[:2]
        for row in table[2:]:
            assert len(cells(row)) == width, (table[0], row)
    # Every table is followed by a blank line (else GFM swallows the next line as a row).
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("|"):
            assert lines[i + 1] == "" or lines[i + 1].startswith("|"), lines[i + 1]


def assert_no_html(text: str) -> None:
    """Outside code spans, every '<' and '>' is backslash-escaped."""
    plain = re.sub(r"^> ", "", _CODE_SPAN.sub("", text), flags=re.M)  # blockquote marks
    assert not re.search(r"(?<!\\)[<>]", plain), re.findall(r".{0,20}(?<!\\)[<>].{0,20}", plain)


@pytest.fixture
def mini_md() -> str:
    return render_markdown(mini_report(), mini_records(), MINI_EXPECTED)


# -- helpers ----------------------------------------------------------------------------

def test_md_escapes_markdown_and_html_punctuation() -> None:
    assert md("a|b <i>x</i> *y* [z](u) `c` & d_e") == \
        r"a\|b \<i\>x\</i\> \*y\* \[z\](u) \`c\` \& d\_e"
    assert md("two\nlines\r\n  here") == "two lines here"


def test_code_span_survives_backticks_and_pipes() -> None:
    assert code("a|b") == r"`a\|b`"
    assert code("x `y` z") == "``x `y` z``"
    assert code("`edge`") == "`` `edge` ``"
    assert code("line1\nline2") == "`line1↵line2`"


def test_fmt_places() -> None:
    # fractions: 3 places; scores and ms: 1 place; ints as they are; "-0.0" never shown
    assert [fmt(0.12345, "wer"), fmt(0.5, "disfluency_f1"), fmt(94.91667), fmt(3),
            fmt(None), fmt(-0.04), fmt(-0.0004, "cer")] == \
        ["0.123", "0.500", "94.9", "3", "-", "0.0", "0.000"]


# -- the mini report, checked by hand ---------------------------------------------------

def test_statement_and_statistics(mini_md: str) -> None:
    assert "there is no overall winner across suites" in mini_md
    assert "1000 resamples, seed 7" in mini_md
    assert "p adjusted by Holm and Bonferroni across all comparisons" in mini_md


def test_leaderboard_rows(mini_md: str) -> None:
    assert ("| 1 | - | **p2** | 0.200 | 66.7 | 40.0 – 90.0 | 2 | 1 | 0 | 1 | - / - | - |  |"
            in mini_md)
    # not ranked, with the exact reason (escaped), latency median / p95 and RTFx
    assert ("| *not ranked* | - | **p1** | 0.250 | 70.0 | 50.0 – 90.0 | 3 | 1 | 1 | 0 | "
            r"612.0 / 1180.5 | 8.5 | \<b\>incomplete\</b\>: c4 \& c5 missing |") in mini_md
    # p2 (rank 1) before p1: leaderboard order is kept
    assert mini_md.index("**p2**") < mini_md.index("**p1**")


def test_error_rates_table(mini_md: str) -> None:
    assert "| WER | 0.250 | 0.200 |" in mini_md
    assert "| CER | 0.125 | 0.100 |" in mini_md
    assert "| strict | 0.300 | 0.250 |" in mini_md


def test_genre_scores_from_records(mini_md: str) -> None:
    # p1 chat: c1 100, c2 50 -> 75.0 over 2 cases; p1 email: c3 median(80, 60) = 70.0
    # (c4 errored: no score, not counted); p2 chat: (90 + 70) / 2 = 80.0; email: 40.0.
    assert "| chat | 75.0 (n=2) | 80.0 (n=2) |" in mini_md
    assert "| email | 70.0 (n=1) | 40.0 (n=1) |" in mini_md


def test_comparisons_row(mini_md: str) -> None:
    # p < 0.001 shown as <0.001 (escaped); Bonferroni 0.0012 -> 0.001; difference b - a.
    assert (r"| p2 − p1 | 3 | 1 / 1 / 0 | \<0.001 | \<0.001 | 0.001 | -3.3 | -8.0 – -2.0 | "
            "**yes** |") in mini_md


def test_failing_items_with_rules_and_diff(mini_md: str) -> None:
    # c2's closest expected output is "Hello world" (1 word edit, against 4); the suite
    # counts words (en-US), so the diff replaces the whole word "world".
    assert (r"| p1 | `c2` | WER=0: WER 0.500 \> 0.2 \<b\>bold\</b\> | "
            r"`Hello [-world-]{+world!+}` |"
            in mini_md)
    assert "**Failing items** (2)" in mini_md


def test_failing_item_without_expected_output_has_no_diff() -> None:
    text = render_markdown(mini_report(), mini_records())
    assert r"| p1 | `c2` | WER=0: WER 0.500 \> 0.2 \<b\>bold\</b\> | - |" in text


def test_canary_errors_and_judging(mini_md: str) -> None:
    assert "Canary: **missing**." in mini_md
    assert "- Canary **missing** in cases.jsonl" in mini_md
    assert "- **p1** output contains the canary: c1" in mini_md
    assert r"- Error: p1 `c4`: error: capture \<timeout\>" in mini_md
    assert "| p2 | judge-a, judge-b | 3 | 1 | 0.0123 | 0.600 |" in mini_md


def test_valid_gfm_without_html(mini_md: str) -> None:
    assert_valid_gfm(mini_md)
    assert_no_html(mini_md)


def test_script_in_names_and_texts_is_escaped() -> None:
    hostile = "<script>alert(1)</script>|x"
    report = json.loads(json.dumps(mini_report()).replace('"p2"', json.dumps(hostile)))
    records = json.loads(json.dumps(mini_records()).replace('"p2"', json.dumps(hostile)))
    text = render_markdown(report, records, MINI_EXPECTED)
    assert_valid_gfm(text)
    assert_no_html(text)
    assert r"\<script\>alert(1)\</script\>\|x" in text


def test_failing_items_are_truncated() -> None:
    report, base = mini_report(), mini_records()[1]
    records = []
    for i in range(FAILING_LIMIT + 3):
        record = copy.deepcopy(base)
        record["case_id"] = f"f{i:02d}"
        records.append(record)
    text = render_markdown(report, records)
    assert f"**Failing items** ({FAILING_LIMIT + 3})" in text
    assert "\n\n... 3 more in dictbench.html\n" in text
    assert "`f09`" in text and "`f10`" not in text
    assert_valid_gfm(text)


# -- the bundled sample run -------------------------------------------------------------

def test_sample_is_small_valid_and_complete() -> None:
    sample = sample_run()
    text = render_markdown(sample.report, sample.records, sample.expected)
    assert len(text.encode("utf-8")) < 60_000
    assert_valid_gfm(text)
    assert_no_html(text)
    for suite in sample.report["suites"]:
        assert f"## {md(suite['title'])} (`{suite['id']}` " in text
        for entry in suite["products"]:
            if entry.get("reason"):
                assert md(entry["reason"]) in text
    # the rubric's own diffs are used (a Japanese homophone case of the example data)
    rubric = next(s for s in sample.report["suites"] if s["method"] == "rubric")
    first = rubric["products"][0]["tables"]["failing_items"][0]
    assert code(first["diff"]) in text
    # automated / judged / unjudged rule scores per layer, straight from the summary
    summary = rubric["products"][0]["tables"]["summary"]
    row = (f"| {md(rubric['products'][0]['product'])} | "
           f"{summary['auto_A']:g} / {summary['judge_A']:g} / {summary['unjudged_A']:g} |")
    assert "**Rule scores by source** (automated / judged / unjudged)" in text
    assert row in text


def test_sample_is_byte_identical_and_order_independent() -> None:
    first, again = rendered_twice(render_markdown)
    assert first == again
