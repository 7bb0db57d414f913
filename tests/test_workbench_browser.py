"""The review page and the adjudication view in a real headless Chromium (Playwright
driving Debian's /usr/bin/chromium), checked against the files on disk."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from judge_server import MessagesServer, Recorded, Reply, requested_rules, user_text, verdict_reply
from judge_support import run_judged, write_ja_project
from workbench_support import (
    CHROMIUM,
    JUDGE_TABLE,
    KEY,
    browser,
    drafter_for,
    make_review_suite,
    open_page,
    serving,
    tool_reply,
)

from pytest_dictbench.suites import read_toml
from pytest_dictbench.workbench.commands import _rule_meanings

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed (CI installs it)")

DURATION = """() => new Promise((resolve) => {
  const audio = document.getElementById("player");
  if (audio.readyState >= 1) resolve(audio.duration);
  else audio.addEventListener("loadedmetadata", () => resolve(audio.duration));
})"""


def rows(root: Path) -> list[dict]:
    return [json.loads(line) for line in
            (root / "cases.jsonl").read_text(encoding="utf-8").splitlines()]


def listed_sha(root: Path) -> str:
    files = read_toml(root / "suite.toml")["files"]
    return next(f["sha256"] for f in files if f["path"] == "cases.jsonl")


def test_review_page_edit_and_approve_with_the_keyboard(tmp_path: Path) -> None:
    root = make_review_suite(tmp_path / "suite")
    before = rows(root)
    with serving(root) as (url, _), browser() as chromium:
        page, errors = open_page(chromium, url + "/")
        assert page.inner_text("#progress") == "0 of 3 approved"
        assert "Case 1 of 3: rec-1" in page.inner_text("#where")
        assert page.evaluate(DURATION) == pytest.approx(1.5, abs=0.01)

        # edit the transcript and the key points, approve with Ctrl+Enter
        page.fill("#transcript", "The verified transcript of the first recording.")
        page.fill("#points tbody tr:nth-child(1) .point", "first point, edited")
        page.click("#add")
        page.keyboard.type("a point added by hand")
        page.select_option("#points tbody tr:nth-child(2) select", "critical")
        page.focus("#transcript")
        page.wait_for_selector("body[data-settled='rec-1']")
        page.keyboard.press("Control+Enter")
        page.wait_for_selector("body[data-saved='1']")
        assert page.inner_text("#progress") == "1 of 3 approved"
        assert "Case 2 of 3: rec-2" in page.inner_text("#where")
        assert page.evaluate(DURATION) == pytest.approx(2.25, abs=0.01)

        after = rows(root)
        assert after[0]["status"] == "approved"
        assert after[0]["reference"] == "The verified transcript of the first recording."
        assert after[0]["key_points"] == [
            {"id": "k1", "text": "first point, edited", "severity": "critical"},
            {"id": "k2", "text": "a point added by hand", "severity": "critical"}]
        assert {k: v for k, v in after[0].items() if k not in ("status", "reference",
                                                                "key_points")} == \
            {k: v for k, v in before[0].items() if k not in ("status", "reference",
                                                             "key_points")}
        assert after[1:] == before[1:]
        cases_bytes = (root / "cases.jsonl").read_bytes()
        assert listed_sha(root) == hashlib.sha256(cases_bytes).hexdigest()

        # play / pause from the keyboard, then remove a key point and approve with Cmd+Enter
        page.keyboard.press("Alt+KeyK")
        page.wait_for_function("() => !document.getElementById('player').paused")
        page.keyboard.press("Alt+KeyK")
        page.wait_for_function("() => document.getElementById('player').paused")
        page.click("#points tbody tr:nth-child(1) button")
        page.wait_for_selector("body[data-settled='rec-2']")
        page.keyboard.press("Meta+Enter")  # no key point left: refused, nothing written
        page.wait_for_selector("#message.error")
        assert "add at least one key point" in page.inner_text("#message")
        assert rows(root)[1] == before[1]
        page.click("#add")
        page.keyboard.type("the only point")
        page.keyboard.press("Meta+Enter")
        page.wait_for_selector("body[data-saved='2']")
        assert page.inner_text("#progress") == "2 of 3 approved"
        assert rows(root)[1]["key_points"] == [
            {"id": "k1", "text": "the only point", "severity": "minor"}]
        assert rows(root)[1]["status"] == "approved"

        # previous with Alt+ArrowLeft shows case 2 as approved
        page.keyboard.press("Alt+ArrowLeft")
        assert "Case 2 of 3" in page.inner_text("#where")
        assert page.inner_text("#status") == "approved"

        # someone else edits the file: the page's save is refused, the file kept
        changed = rows(root)
        changed[2]["reference"] = "edited in another window"
        other = "".join(json.dumps(r) + "\n" for r in changed)
        (root / "cases.jsonl").write_text(other, encoding="utf-8")
        page.fill("#transcript", "this edit must not be saved")
        page.keyboard.press("Control+s")
        page.wait_for_selector("#message.error")
        assert "changed on disk" in page.inner_text("#message")
        assert (root / "cases.jsonl").read_text(encoding="utf-8") == other
        assert errors == []


def _output_of(request: Recorded) -> str:
    return user_text(request.body).split("<output>\n", 1)[1].split("\n</output>")[0]


def judges(request: Recorded) -> Reply:
    """judge-a: 2 everywhere; judge-b: A6 = 1 on the first case, quoting its output."""
    scores = dict.fromkeys(requested_rules(request.body), 2)
    reasons = {}
    output = _output_of(request)
    if request.body["model"] == "model-b" and \
            "Zoom" in json.dumps(request.body, ensure_ascii=False):
        scores["A6"] = 1
        reasons["A6"] = f'the words "{output[:6]}" lose the hedge'
    return verdict_reply(scores, reasons=reasons)


def test_adjudication_decided_in_the_browser_is_used_on_replay(
        pytester: pytest.Pytester) -> None:
    cases = write_ja_project(pytester.path, JUDGE_TABLE)
    root = pytester.path / "cases" / "ja"
    pytester.makeini("[pytest]\ndictbench_suites = cases/ja\n")

    def run(server: MessagesServer, mode: str) -> pytest.RunResult:
        return run_judged(pytester, server, KEY, f"--judge={mode}")

    with MessagesServer(judges) as server:
        run(server, "live")
    pending = (pytester.path / "reports/adjudication-pending.jsonl").read_text().splitlines()
    assert [json.loads(p)["rule"] for p in pending] == ["A6"]
    target = json.loads(pending[0])
    # the product's output: the case's expected text without its final 。
    output = next(c["expected"][0].rstrip("。") for c in cases if c["id"] == target["case"])

    def drafting(request: Recorded) -> Reply:
        assert request.body["tools"][0]["name"] == "record_decision"
        return tool_reply("record_decision", {
            "score": 2, "reason": f'"{output[:6]}" keeps the meaning'})

    decisions = pytester.path / "judges" / "adjudications.jsonl"
    with MessagesServer(drafting) as drafts, serving(
            root, suite_id="ja-dictation", reports=pytester.path / "reports",
            judges=pytester.path / "judges", drafter=drafter_for(drafts.url),
            cases={c["id"]: c for c in cases}, meanings=_rule_meanings("rubric")
    ) as (url, _), browser() as chromium:
        page, errors = open_page(chromium, url + "/adjudicate")
        assert page.inner_text("#progress") == "0 of 1 decided"
        assert target["case"] in page.inner_text("#where")
        assert page.inner_text("#output mark") == output[:6]
        judges_text = page.inner_text("#judges")
        assert "judge-a" in judges_text and "judge-b" in judges_text
        page.wait_for_function("() => document.querySelector('#draft h3').textContent"
                               ".startsWith('DRAFT proposed by model-c')")
        assert "score 2" in page.inner_text("#draft")
        assert page.input_value("#score") == ""  # the draft's score is not pre-selected
        assert len(drafts.requests) == 1
        assert not decisions.exists()  # a draft decides nothing

        page.select_option("#score", "2")
        page.click("#decide")  # no reason yet: refused
        page.wait_for_selector("#message.error")
        assert not decisions.exists()
        page.fill("#reason", "the hedge is kept in other words")
        page.focus("#reason")
        page.keyboard.press("Control+Enter")
        page.wait_for_selector("body[data-decided='1']")
        assert page.inner_text("#progress") == "1 of 1 decided"
        assert errors == []
        # a second look reuses the cached draft: no new request
        page.reload()
        page.wait_for_selector("body[data-ready='1']")
        assert len(drafts.requests) == 1

    line = json.loads(decisions.read_text(encoding="utf-8"))
    assert {k: line[k] for k in ("case", "rule", "score", "reason", "decided_by")} == {
        "case": target["case"], "rule": "A6", "score": 2,
        "reason": "the hedge is kept in other words", "decided_by": "tester"}
    assert len(line["date"]) == 10 and line["draft"]["score"] == 2

    with MessagesServer(judges) as server:
        run(server, "replay")
        assert server.requests == []
    items = [json.loads(x) for x in
             (pytester.path / "reports/items.jsonl").read_text().splitlines()]
    a6 = next(r for r in items if r["case_id"] == target["case"])["rules"]["A6"]
    assert a6 == {"score": 2, "evidence": "the hedge is kept in other words",
                  "source": "human"}
