"""Property tests over the input formats: capture-cache lines, outputs files, product
files and suite manifests, each generated valid and then mutated.

Every property states what must hold: a valid file loads with its values intact, and
any mutation of it either loads or is refused with the file's own error type naming
the file (and the line, for JSON Lines) -- never another exception, never a hang.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import CANARY

from pytest_dictbench.adapters.capture_cache import CaptureCache
from pytest_dictbench.errors import OutputError, ProductError, SuiteError
from pytest_dictbench.model import Case, Suite
from pytest_dictbench.products import load_product, read_outputs
from pytest_dictbench.suites import load_suite

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
CASE_IDS = ("c1", "c2", "c3")
SUITE = Suite(id="mini", version="1", title="t", method="error_rate", locale="en-US",
              canary=CANARY, root=Path("."), cases=tuple(Case(c, {"id": c}) for c in CASE_IDS))

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
output_line = st.fixed_dictionaries(
    {"case_id": st.sampled_from(CASE_IDS), "text": text},
    optional={"latency_ms": st.floats(0, 86_400_000), "repetition": st.just(1)})


def unique_lines(lines: list[dict]) -> list[dict]:
    seen, out = set(), []
    for line in lines:
        if line["case_id"] not in seen:
            seen.add(line["case_id"])
            out.append(line)
    return out


@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with one mutation: bytes flipped, cut, inserted, or a JSON/TOML hazard
    (NaN, a duplicate key, deep nesting, a lone surrogate escape) spliced in."""
    hazards = [b"NaN", b"Infinity", b'"case_id":"c1","case_id":"c2"', b"[" * 200,
               b'"\\ud800"', b"\x00", b"\xff\xfe", b"\r\n", b"inf", b"nan", b"1979-05-27"]
    kind = draw(st.sampled_from(["flip", "cut", "insert", "hazard"]))
    at = draw(st.integers(0, max(len(data) - 1, 0)))
    if kind == "flip" and data:
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
    if kind == "cut":
        return data[:at]
    if kind == "insert":
        return data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return data[:at] + draw(st.sampled_from(hazards)) + data[at:]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder per module run, under pytest's own temporary root (which pytest prunes),
    so no xdist worker leaves a folder behind in the system's temporary folder."""
    return tmp_path_factory.mktemp("prop")


def written(root: Path, data: bytes, name: str) -> Path:
    folder = Path(tempfile.mkdtemp(dir=root))
    path = folder / name
    path.write_bytes(data)
    return path


@SETTINGS
@given(st.lists(output_line, min_size=1, max_size=3).map(unique_lines))
def test_a_valid_outputs_file_loads_with_its_texts(root: Path, lines: list[dict]) -> None:
    """Property: every generated valid line loads, with the text it was written with."""
    raw = "".join(json.dumps(line) + "\n" for line in lines).encode()
    path = written(root, raw, "mini.jsonl")
    outputs = read_outputs(path, SUITE)
    assert {k[0]: o.text for k, o in outputs.items()} == {d["case_id"]: d["text"]
                                                            for d in lines}


@SETTINGS
@given(st.lists(output_line, min_size=1, max_size=3).map(unique_lines), st.data())
def test_a_mutated_outputs_file_loads_or_is_refused_naming_file_and_line(
        root: Path, lines: list[dict], data: st.DataObject) -> None:
    """Property: a mutated outputs file either loads or raises OutputError naming the
    file and a line; an output that loads is valid Unicode text."""
    raw = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode()
    path = written(root, data.draw(mutated(raw)), "mini.jsonl")
    try:
        outputs = read_outputs(path, SUITE)
    except OutputError as exc:
        assert str(path) in str(exc)
        return
    for output in outputs.values():
        output.text.encode("utf-8")  # loads only as text a report can hold


@SETTINGS
@given(st.lists(output_line, min_size=1, max_size=3).map(unique_lines), st.data())
def test_a_mutated_capture_cache_reads_or_is_refused(root: Path, lines: list[dict],
                                                     data: st.DataObject) -> None:
    """Property: a capture cache with a mutated line reads (a torn last line is
    ignored) or raises OutputError naming the cache file."""
    raw = "".join(json.dumps({**line, "status": "complete"}) + "\n" for line in lines).encode()
    path = written(root, data.draw(mutated(raw)), "mini.jsonl")
    try:
        CaptureCache(path, SUITE).read()
    except OutputError as exc:
        assert str(path) in str(exc)


product_toml = st.fixed_dictionaries({
    "name": st.just("p1"), "version": st.from_regex(r"[0-9]\.[0-9]", fullmatch=True),
    "adapter": st.sampled_from(["cache", "command"]),
    "hardware": st.text(st.characters(min_codepoint=32, max_codepoint=126,
                                      blacklist_characters='"\\'), max_size=12)})


def render_product(p: dict) -> bytes:
    settings = '\n[settings]\ncommand = ["true"]\n' if p["adapter"] == "command" else ""
    return (f'name = "{p["name"]}"\nversion = "{p["version"]}"\nadapter = "{p["adapter"]}"\n'
            f'[environment]\nhardware = "{p["hardware"]}"\n{settings}').encode()


@SETTINGS
@given(product_toml, st.data())
def test_a_product_file_loads_or_is_refused_naming_it(root: Path, p: dict,
                                                     data: st.DataObject) -> None:
    """Property: the valid product file loads with its values; a mutated one loads or
    raises ProductError naming the file (dates and non-finite numbers included)."""
    path = written(root, render_product(p), "p1.toml")
    product = load_product("p1", path.parent)
    assert (product.version, product.environment["hardware"]) == (p["version"], p["hardware"])
    path.write_bytes(data.draw(mutated(render_product(p))))
    try:
        load_product("p1", path.parent)
    except ProductError as exc:
        assert str(path) in str(exc)


def render_suite(threshold: float, title: str) -> bytes:
    return (f'id = "mini"\nversion = "1.0"\ntitle = "{title}"\nmethod = "error_rate"\n'
            f'locale = "en-US"\ncanary = "{CANARY}"\n[params]\nthreshold = {threshold!r}\n'
            ).encode()


@SETTINGS
@given(st.floats(0.0, 1.0), st.text(st.characters(min_codepoint=32, max_codepoint=126,
                                                  blacklist_characters='"\\'),
                                    min_size=1, max_size=12), st.data())
def test_a_suite_manifest_loads_or_is_refused_naming_it(root: Path, threshold: float,
                                                        title: str, data: st.DataObject) -> None:
    """Property: the valid manifest loads with its values; a mutated one loads or raises
    SuiteError naming a file of the suite; a number it loads is finite."""
    path = written(root, render_suite(threshold, title), "suite.toml")
    (path.parent / "cases.jsonl").write_text(
        json.dumps({"id": "c1", "reference": "hello", "canary": CANARY}) + "\n")
    suite = load_suite(path.parent)
    assert (suite.title, suite.params["threshold"]) == (title, threshold)
    path.write_bytes(data.draw(mutated(render_suite(threshold, title))))
    try:
        suite = load_suite(path.parent)
    except SuiteError as exc:
        assert str(path.parent) in str(exc)
        return
    value = suite.params.get("threshold")
    assert not isinstance(value, float) or math.isfinite(value)
