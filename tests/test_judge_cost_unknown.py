"""Judge costs in exact decimal arithmetic; a missing price or usage makes a cost
unknown, never $0 (J6, J8, J10)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from judge_server import MessagesServer
from test_keypoints_plugin import entry, project, responder, run  # noqa: F401

from pytest_dictbench.errors import JudgeError
from pytest_dictbench.judge import JudgeConfig, TokenUsage
from pytest_dictbench.judge.client import read_message
from pytest_dictbench.judge.estimate import Budget
from pytest_dictbench.judge.report import judges_table
from pytest_dictbench.judge.settings import parse_judge_settings

PRICED = JudgeConfig("a", "m", price_in_per_mtok=3.0, price_out_per_mtok=15.0)


def test_an_exact_fit_budget_lets_every_request_through() -> None:
    budget = Budget(0.30)
    for _ in range(3):
        assert budget.reserve(0.1)
        budget.settle(0.1, 0.1)
    assert not budget.reserve(0.000001)


def test_costs_are_exact_decimals() -> None:
    # 1 input token at $3/Mtok + 1 output token at $15/Mtok = $0.000018 exactly
    assert PRICED.cost_usd(TokenUsage(1, 1)) == 0.000018
    # 0.1 + 0.2 style sums do not drift: 7 x (100 x 3 + 20 x 15) / 1e6 = 0.0042
    assert PRICED.cost_usd(TokenUsage(700, 140)) == 0.0042


def test_a_judge_without_prices_has_an_unknown_cost() -> None:
    assert JudgeConfig("a", "m").cost_usd(TokenUsage(100, 10)) is None
    assert JudgeConfig("a", "m", price_in_per_mtok=1.0).cost_usd(TokenUsage(1, 1)) is None


def _message(usage: dict | None) -> SimpleNamespace:
    block = SimpleNamespace(type="tool_use", name="t", input={})
    return SimpleNamespace(content=[block], stop_reason="tool_use",
                           usage=None if usage is None else SimpleNamespace(**usage))


@pytest.mark.parametrize("usage", [
    None,
    {"input_tokens": -100000, "output_tokens": 200},
    {"input_tokens": 1.5, "output_tokens": 2},
    {"input_tokens": "100", "output_tokens": 2},
])
def test_missing_or_invalid_usage_is_unknown_never_subtracted(usage: dict | None) -> None:
    answer = read_message(_message(usage), "t")
    assert answer.usage.unknown
    assert PRICED.cost_usd(answer.usage) is None


def test_a_budget_with_an_unpriced_judge_is_refused() -> None:
    with pytest.raises(JudgeError, match=r"budget_usd.*judge 'b'.*no price"):
        parse_judge_settings({"budget_usd": 1.0, "judges": [
            {"name": "a", "model": "m", "price_in_per_mtok": 1.0, "price_out_per_mtok": 1.0},
            {"name": "b", "model": "m"}]})


def test_the_judges_table_and_the_cost_summary_carry_unknown() -> None:
    records = [{"judges": {"a": {"k1": 2}},
                "judge_spend": {"m": {"input_tokens": 10, "output_tokens": 1,
                                      "cost_usd": None, "verdicts": 1,
                                      "cost_unknown": ["judge 'a': no price"]}}}]
    table = judges_table(records)
    assert table is not None and table["cost_usd"] is None
    assert table["cost_missing"] == ["judge 'a': no price"]


def test_an_unpriced_judge_leaves_the_product_cost_unknown(project: pytest.Pytester  # noqa: F811
                                                           ) -> None:
    manifest = project.path / "cases/jj/suite.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("price_in_per_mtok = 3.0\nprice_out_per_mtok = 15.0\n",
                                     "", 1), encoding="utf-8")
    with MessagesServer(responder) as server:
        result = run(project, server, "--judge-estimate")
        estimate = result.stdout.str()
        run(project, server, "--judge=live")
    assert "judge-a (model-a): 3 uncached requests" in estimate
    assert "live unknown (no price)" in estimate and "incomplete" in estimate
    cost = entry(project)["cost"]
    assert cost["judge_cost_usd"] is None and cost["total_cost_usd"] is None
    assert any("judge-a" in m for m in cost["missing"]), cost["missing"]
    md = (project.path / "reports/dictbench.md").read_text(encoding="utf-8")
    assert "$0.0000" not in md
    json.loads((project.path / "reports/dictbench.json").read_text())


def test_one_hour_cache_writes_have_their_own_price() -> None:
    judge = JudgeConfig("a", "m", price_in_per_mtok=1.0, price_out_per_mtok=5.0,
                        price_cache_write_per_mtok=1.25, price_cache_read_per_mtok=0.1)
    usage = SimpleNamespace(input_tokens=0, output_tokens=0, cache_creation_input_tokens=3000,
                            cache_read_input_tokens=0, cache_creation=SimpleNamespace(
                                ephemeral_5m_input_tokens=2000,
                                ephemeral_1h_input_tokens=1000))
    block = SimpleNamespace(type="tool_use", name="t", input={})
    answer = read_message(SimpleNamespace(content=[block], usage=usage), "t")
    assert answer.usage.cache_write_tokens == 3000 and answer.usage.cache_write_1h_tokens == 1000
    # 2,000 x 1.25 + 1,000 x 2.0 (the default 1-hour price: twice the input price) per Mtok
    assert judge.cost_usd(answer.usage) == 0.0045
    own = JudgeConfig("a", "m", price_in_per_mtok=1.0, price_out_per_mtok=5.0,
                      price_cache_write_1h_per_mtok=3.0)
    assert own.cost_usd(answer.usage) == 0.0055  # 2,000 x 1.25 + 1,000 x 3.0
    assert parse_judge_settings({"judges": [{"name": "a", "model": "m",
                                             "price_cache_write_1h_per_mtok": 3.0}]})
