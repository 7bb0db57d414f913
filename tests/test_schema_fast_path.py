"""The compiled schema validator (jsonschema-rs) is only a fast path: whatever it finds
valid, jsonschema finds valid too, on every shipped schema, for the bundled files (and a
report made from them) and for hypothesis' mutations of them; and it does find those
files valid, so the fast path is taken."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema.exceptions import best_match

from pytest_dictbench.schemas import _validator, checked_schema, validation_error

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("jsonschema_rs")


def _jsonl(paths: Iterable[Path]) -> list[dict[str, Any]]:
    return [json.loads(line) for path in sorted(paths)
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    """Bundled instances of each shipped schema, and a report of the bundled example
    product on ``cases/en-dictation`` (item records, ``dictbench.json``)."""
    report = tmp_path_factory.mktemp("report")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "--product=example", "--dictbench-item-failures=report", "--dictbench-report",
         str(report), "cases/en-dictation"], cwd=ROOT, capture_output=True, text=True)
    # exit 1: the example product has an error item on purpose; the reports are written
    assert run.returncode in (0, 1) and (report / "dictbench.json").is_file(), \
        run.stdout[-2000:] + run.stderr[-2000:]
    suites = {p.parent.name: tomllib.loads(p.read_text(encoding="utf-8"))
              for p in sorted(ROOT.glob("cases/*/suite.toml"))}
    found: dict[str, list[Any]] = {
        "suite.schema.json": list(suites.values()),
        "product.schema.json": [tomllib.loads(p.read_text(encoding="utf-8"))
                                for p in sorted(ROOT.glob("products/*.toml"))],
        "output.schema.json": _jsonl(ROOT.glob("products/*/*.jsonl")),
        "item-record.schema.json": _jsonl([report / "items.jsonl"]),
        "report.schema.json": [json.loads((report / "dictbench.json").read_text())],
        "case.schema.json": [],
    }
    for name, manifest in suites.items():
        cases = _jsonl([ROOT / "cases" / name / manifest.get("cases", "cases.jsonl")])
        found["case.schema.json"] += cases
        method_schema = f"case-{manifest['method']}.schema.json"
        if (ROOT / "pytest_dictbench/schemas" / method_schema).exists():
            found.setdefault(method_schema, []).extend(
                c for c in cases if c.get("status") != "draft")
    return {k: v for k, v in found.items() if v}


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False,
                    allow_infinity=False), st.text(max_size=8),
                    st.sampled_from(["", "a\n", "A1", "x" * 200, "0" * 64, "é"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6)


def _python_valid(name: str, instance: Any) -> bool:
    return best_match(_validator(name).python.iter_errors(instance)) is None


@st.composite
def mutated(draw: st.DrawFn, examples: dict[str, list[Any]]) -> tuple[str, Any]:
    """A bundled instance with up to three keys, anywhere in it, replaced, removed or
    added."""
    name = draw(st.sampled_from(sorted(examples)))
    instance = json.loads(json.dumps(draw(st.sampled_from(examples[name]))))
    for _ in range(draw(st.integers(1, 3))):
        holders = [instance]
        stack = [instance]
        while stack:  # every object and array inside, as candidates
            node = stack.pop()
            for child in (node.values() if isinstance(node, dict) else node):
                if isinstance(child, (dict, list)):
                    holders.append(child)
                    stack.append(child)
        node = draw(st.sampled_from(holders))
        action = draw(st.sampled_from(["set", "drop", "add"]))
        if isinstance(node, dict):
            keys = sorted(node)
            if action == "add" or not keys:
                node[draw(st.text(max_size=6))] = draw(VALUES)
            elif action == "drop":
                del node[draw(st.sampled_from(keys))]
            else:
                node[draw(st.sampled_from(keys))] = draw(VALUES)
        elif node and action != "add":
            index = draw(st.integers(0, len(node) - 1))
            if action == "drop":
                del node[index]
            else:
                node[index] = draw(VALUES)
        else:
            node.append(draw(VALUES))
    return name, instance


def test_the_compiled_validator_accepts_every_bundled_file(examples: dict[str, list[Any]]):
    assert set(examples) >= {"suite.schema.json", "product.schema.json", "output.schema.json",
                             "case.schema.json", "item-record.schema.json",
                             "report.schema.json"}
    for name, instances in examples.items():
        fast = _validator(name).fast
        assert fast is not None, name
        for instance in instances:
            assert _python_valid(name, instance), (name, validation_error(instance, name))
            assert fast.is_valid(instance), (name, instance)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_what_the_compiled_validator_accepts_jsonschema_accepts(
        examples: dict[str, list[Any]], data: st.DataObject):
    name, instance = data.draw(mutated(examples))
    checked = _validator(name)
    try:
        fast_valid = checked.fast.is_valid(instance)
    except Exception:
        fast_valid = False
    if fast_valid:
        assert _python_valid(name, instance), (name, validation_error(instance, name))
    # and the answer the callers get is jsonschema's, fast path or not
    assert (validation_error(instance, name) is None) == _python_valid(name, instance)


def test_ecma_end_of_text_holds_on_both_paths():
    # "$" is the end of the text in JSON Schema: "mini\n" is no id for either validator
    checked = checked_schema({"type": "string", "pattern": "^[a-z]+$"})
    assert checked.fast is not None and not checked.fast.is_valid("mini\n")
    assert list(checked.iter_errors("mini\n")) and not list(checked.iter_errors("mini"))
