"""The one strict JSON reader (jsonl.py) and the safe file reader below it (files.py)."""

from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_dictbench.errors import SuiteError
from pytest_dictbench.files import read_regular
from pytest_dictbench.jsonl import (
    MAX_DEPTH,
    DuplicateKeyError,
    loads_strict,
    parse_json,
    read_json,
    read_jsonl,
)

scalars = (st.none() | st.booleans() | st.integers()
           | st.floats(allow_nan=False, allow_infinity=False) | st.text())
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=30)


@given(values)
def test_every_json_value_without_duplicates_reads_back_equal(value: object) -> None:
    """What json.dumps writes (unique keys, finite numbers, shallow) reads back unchanged."""
    assert loads_strict(json.dumps(value)) == value


@given(st.text(max_size=8), scalars, scalars, st.dictionaries(st.text(max_size=5), scalars,
                                                             max_size=3))
def test_a_key_written_twice_is_refused_whatever_the_values(
        key: str, first: object, second: object, others: dict) -> None:
    """Neither value of a duplicated key is ever chosen silently."""
    others.pop(key, None)
    body = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in others.items()]
    text = "{" + ", ".join([f"{json.dumps(key)}: {json.dumps(first)}", *body,
                            f"{json.dumps(key)}: {json.dumps(second)}"]) + "}"
    with pytest.raises(DuplicateKeyError) as caught:
        loads_strict(text)
    assert caught.value.key == key


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"x": -Infinity}', "1e999",
                                  '{"cost": -1e400}'])
def test_non_finite_numbers_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        loads_strict(text)


def test_nesting_is_refused_one_level_past_the_limit() -> None:
    assert loads_strict("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    for depth in (MAX_DEPTH + 1, 100_000):
        with pytest.raises(ValueError, match="nested too deeply"):
            loads_strict("[" * depth + "]" * depth)


def test_a_document_error_names_the_file_and_the_line_of_the_duplicate(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text('{\n  "execution_gate": {"ready": false},\n  "id": "x",\n'
                    '  "execution_gate": {"ready": true}\n}\n', encoding="utf-8")
    with pytest.raises(SuiteError) as caught:
        read_json(path, SuiteError)
    assert str(caught.value) == f"{path}:4: duplicate key 'execution_gate' in one object"


def test_a_malformed_document_names_its_line(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match=r":3: malformed JSON"):
        parse_json('{\n"a": 1,\n"b" 2}', SuiteError, tmp_path / "x.json")


def test_a_duplicate_key_in_a_jsonl_line_names_that_line(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('{"id": "a", "score": 2}\n\n{"id": "b", "score": 0, "score": 2}\n',
                    encoding="utf-8")
    lines = read_jsonl(path, SuiteError)
    assert next(lines) == (1, {"id": "a", "score": 2})
    with pytest.raises(SuiteError, match=r"answers.jsonl:3: duplicate key 'score'"):
        next(lines)


def _read_within(path: Path, seconds: float = 5.0, **kwargs: object) -> BaseException | bytes:
    """read_regular in a thread that must finish in time (a FIFO read would block)."""
    result: list[BaseException | bytes] = []

    def target() -> None:
        try:
            result.append(read_regular(path, SuiteError, **kwargs))
        except BaseException as exc:
            result.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert result, f"read_regular({path}) did not return within {seconds} s"
    return result[0]


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "cases.jsonl"
    os.mkfifo(fifo)
    outcome = _read_within(fifo)
    assert isinstance(outcome, SuiteError) and "not a regular file" in str(outcome)


def test_a_folder_and_a_missing_file_are_refused(tmp_path: Path) -> None:
    assert "not a regular file" in str(_read_within(tmp_path))
    assert "cannot read file" in str(_read_within(tmp_path / "missing"))


def test_a_file_over_the_limit_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 101)
    outcome = _read_within(path, max_bytes=100)
    assert isinstance(outcome, SuiteError) and "101 bytes, over the limit of 100" in str(outcome)
    assert _read_within(path, max_bytes=101) == b"x" * 101


def test_a_link_to_a_regular_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("{}", encoding="utf-8")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    assert read_json(tmp_path / "link.json", SuiteError) == {}


def test_floats_keep_their_value() -> None:
    assert loads_strict("[0.1, 1e308, -0.0]") == [0.1, 1e308, -0.0]
    assert math.copysign(1, loads_strict("-0.0")) == -1
