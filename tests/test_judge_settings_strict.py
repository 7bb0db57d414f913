"""``[judge]`` values that would leak a credential or switch a limit off are refused at
load, naming the key (J11, J18)."""

from __future__ import annotations

import math

import pytest

from pytest_dictbench.errors import JudgeError
from pytest_dictbench.judge import JudgeClientFactory, JudgeConfig
from pytest_dictbench.judge.settings import parse_judge_settings

JUDGE = {"name": "a", "model": "m"}


@pytest.mark.parametrize("url, part", [
    ("http://user:pass1234@127.0.0.1:9/v1", "user-info"),
    ("http://127.0.0.1:9/v1?api-key=abcdef123", "query"),
    ("https://host/v1#abcdef123", "fragment"),
])
def test_credentials_in_a_judge_base_url_are_refused(url: str, part: str) -> None:
    table = {"judges": [{**JUDGE, "family": "openai", "base_url": url}]}
    with pytest.raises(JudgeError) as caught:
        parse_judge_settings(table, path="suite.toml")
    message = str(caught.value)
    assert "[judge].judges[0].base_url" in message and part in message
    assert "pass1234" not in message and "abcdef123" not in message


def test_credentials_in_the_table_base_url_are_refused() -> None:
    with pytest.raises(JudgeError, match=r"\[judge\]\.base_url.*user-info") as caught:
        parse_judge_settings({"judges": [JUDGE], "base_url": "https://u:secret9@h/"})
    assert "secret9" not in str(caught.value)


def test_credentials_in_a_base_url_variable_are_refused_without_echo() -> None:
    config = JudgeConfig("o", "m", family="openai")
    factory = JudgeClientFactory(environ={"OPENAI_API_KEY": "k" * 20,
                                          "OPENAI_BASE_URL": "http://u:pw5678@127.0.0.1:9/v1"})
    with pytest.raises(JudgeError, match="user-info") as caught:
        factory(config)
    assert "pw5678" not in str(caught.value)


@pytest.mark.parametrize("value", [math.nan, math.inf, 1e309])
def test_a_budget_that_is_not_finite_is_refused(value: float) -> None:
    with pytest.raises(JudgeError, match=r"\[judge\]\.budget_usd"):
        parse_judge_settings({"budget_usd": value, "judges": [JUDGE]})


@pytest.mark.parametrize("key", ["price_in_per_mtok", "price_out_per_mtok"])
def test_a_price_that_is_not_finite_is_refused(key: str) -> None:
    with pytest.raises(JudgeError, match=rf"\[judge\]\.judges\[0\]\.{key}"):
        parse_judge_settings({"judges": [{**JUDGE, key: math.inf}]})


def test_two_judges_on_one_endpoint_and_model_are_warned_about() -> None:
    same = {"model": "m", "base_url": "https://api.example.com", "price_in_per_mtok": 1.0,
            "price_out_per_mtok": 1.0}
    with pytest.warns(UserWarning, match=r"judges 'a' and 'b' .* not independent"):
        parse_judge_settings({"judges": [{"name": "a", **same}, {"name": "b", **same}]})
