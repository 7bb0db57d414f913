"""Helpers for the live adapter tests: tiny audio files, suites and products in tmp."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from pytest_dictbench.model import Case, Output, Product, Suite, SuiteFile

CANARY = "DICTBENCH-CANARY adapter-tests 0000"


def write_tone(path: Path, seconds: float = 0.5, rate: int = 16000, freq: float = 440.0
               ) -> Path:
    """A quiet sine tone as 16-bit WAV (or FLAC, by suffix)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    t = np.arange(int(seconds * rate)) / rate
    sf.write(str(path), (0.2 * np.sin(2 * np.pi * freq * t)).astype(np.float32), rate,
             subtype="PCM_16")
    return path


def make_suite(root: Path, audio: Mapping[str, str], *, suite_id: str = "mini",
               files: Sequence[SuiteFile] = (), manifest: Mapping[str, Any] | None = None,
               write_audio: bool = True, locale: str = "en-US") -> Suite:
    """A suite whose case ``id`` has audio ``audio[id]`` (a path relative to ``root``)."""
    cases = []
    for line, (case_id, relative) in enumerate(audio.items(), start=1):
        if write_audio:
            write_tone(root / relative, freq=300.0 + 40 * line)
        cases.append(Case(case_id, {"id": case_id, "audio": relative, "canary": CANARY,
                                    "reference": f"reference {case_id}"}, line))
    return Suite(id=suite_id, version="1", title="t", method="error_rate", locale=locale,
                 canary=CANARY, root=root, cases=tuple(cases), files=tuple(files),
                 manifest=dict(manifest or {}))


def make_product(folder: Path, adapter: str, settings: Mapping[str, Any], *,
                 name: str = "p1", version: str = "1.0") -> Product:
    """A product whose file would be ``folder/<name>.toml`` (the file is not needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    return Product(name=name, version=version, adapter=adapter, path=folder / f"{name}.toml",
                   settings=dict(settings))


def live_adapter(product: Product, suite: Suite, factory: Any = None, **options: Any) -> Any:
    """``product``'s built-in adapter (or ``factory``'s) for ``suite``, with no warm-up
    capture; ``options`` are further :class:`AdapterOptions`."""
    from pytest_dictbench.adapters import builtin_adapters
    from pytest_dictbench.adapters.base import AdapterOptions

    make = factory or builtin_adapters()[product.adapter]
    return make(product, suite, AdapterOptions(warmup=False, **options))


def first_output(adapter: Any, suite: Suite) -> Output:
    """``adapter``'s output for ``suite``'s first case, repetition 1 (there must be one)."""
    output = adapter.get(suite.cases[0], 1)
    assert output is not None
    return output  # type: ignore[no-any-return]


def cache_lines(product: Product, suite: Suite) -> list[str]:
    """The raw non-blank lines of the product's output file for the suite."""
    path = product.outputs_dir / f"{suite.id}.jsonl"
    if not path.exists():
        return []
    return [line for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def suite_with_audio(write_suite: Any, cases: Sequence[Mapping[str, Any]], seconds: float,
                     **suite: Any) -> Path:
    """Suite ``mini`` written by the ``write_suite`` fixture (``suite``: its further
    arguments) whose ``cases`` each have ``audio/<id>.wav``, a tone of ``seconds``."""
    root = write_suite(cases=[dict(c, audio=f"audio/{c['id']}.wav") for c in cases], **suite)
    for case in cases:
        write_tone(root / "audio" / f"{case['id']}.wav", seconds=seconds)
    return root


def live_project(pytester: Any, write_suite: Any, cases: Sequence[Mapping[str, Any]],
                 conftest: str, products: Sequence[str], *, product_toml: str = "") -> Any:
    """A project for live runs: suite ``mini`` whose ``cases`` each have a 0.1 s tone as
    audio, ``conftest`` (its transcriber), and a ``python`` product file for each name in
    ``products`` (``product_toml`` appended, ``{name}`` filled in). Returns ``pytester``."""
    suite_with_audio(write_suite, cases, 0.1)
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    pytester.makeconftest(conftest)
    (pytester.path / "products").mkdir()
    for name in products:
        (pytester.path / "products" / f"{name}.toml").write_text(
            f'name = "{name}"\nversion = "1"\nadapter = "python"\n'
            + product_toml.replace("{name}", name), encoding="utf-8")
    return pytester
