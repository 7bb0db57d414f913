"""A verdict cache line that parses but breaks the verdict schema is skipped with a
warning naming file:line and judged again, never read as a nearby score (S35)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from judge_server import MessagesServer, all_twos
from judge_support import JUDGE_A, make_request, run_judges

from pytest_dictbench.judge import JudgeCacheWarning, VerdictCache


def _judged_cache(tmp_path: Path) -> tuple[Path, str]:
    """A cache with one live verdict of the default request, and its first rule."""
    path = tmp_path / "verdicts.jsonl"
    with MessagesServer(all_twos) as server:
        cache = VerdictCache(path, fsync=False)
        run_judges([make_request()], server.url, judges=[JUDGE_A], cache=cache)
        cache.close()
    line = json.loads(path.read_text(encoding="utf-8"))
    return path, sorted(line["rules"])[0]


def _tamper(path: Path, rule: str, score: Any) -> None:
    line = json.loads(path.read_text(encoding="utf-8"))
    line["rules"][rule]["score"] = score
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")


@pytest.mark.parametrize("score", [1.9, True, "2", -1, None])
def test_a_score_of_the_wrong_type_is_skipped_at_load(tmp_path: Path, score: Any) -> None:
    path, rule = _judged_cache(tmp_path)
    _tamper(path, rule, score)
    with pytest.warns(JudgeCacheWarning, match=r"verdicts\.jsonl:1"):
        cache = VerdictCache(path)
    assert len(cache) == 0


def test_a_score_outside_its_range_is_a_miss_with_a_warning(tmp_path: Path) -> None:
    path, rule = _judged_cache(tmp_path)
    _tamper(path, rule, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cache = VerdictCache(path)  # an integer loads: its range is the task's business
    with pytest.warns(JudgeCacheWarning, match=rf"verdicts\.jsonl:1.*{rule}.*7"):
        run = run_judges([make_request()], "http://127.0.0.1:9", judges=[JUDGE_A],
                         mode="replay", cache=cache)
    outcome = run.outcome(next(iter(run.requests)), "judge-a")
    assert outcome is not None and outcome.status == "missing"  # a miss, not an item error


def test_an_intact_line_is_a_hit_without_a_warning(tmp_path: Path) -> None:
    path, _ = _judged_cache(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = run_judges([make_request()], "http://127.0.0.1:9", judges=[JUDGE_A],
                         mode="replay", cache=VerdictCache(path))
    outcome = run.outcome(next(iter(run.requests)), "judge-a")
    assert outcome is not None and outcome.status == "cached"
