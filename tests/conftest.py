"""Shared fixtures: small suites and products written into a pytester folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import CANARY, MINI_CASES, jsonl

pytest_plugins = ["pytester"]

@pytest.fixture
def write_suite(pytester: pytest.Pytester) -> Callable[..., Path]:
    """Write a suite folder ``cases/<id>/`` and return it."""

    def write(suite_id: str = "mini", cases: list[dict[str, Any]] | None = None, *,
              method: str = "error_rate", params: str = "threshold = 0.2",
              extra: str = "", cases_text: str | None = None) -> Path:
        root = pytester.path / "cases" / suite_id
        root.mkdir(parents=True, exist_ok=True)
        rows = [dict(c, canary=CANARY) for c in (cases or MINI_CASES)]
        (root / "cases.jsonl").write_text(cases_text if cases_text is not None else jsonl(rows),
                                          encoding="utf-8")
        (root / "suite.toml").write_text(
            f'id = "{suite_id}"\nversion = "1.0"\ntitle = "Mini"\nmethod = "{method}"\n'
            f'locale = "en-US"\ncanary = "{CANARY}"\n{extra}\n[params]\n{params}\n',
            encoding="utf-8")
        return root

    return write


@pytest.fixture
def write_product(pytester: pytest.Pytester) -> Callable[..., Path]:
    """Write ``products/<name>.toml`` and its outputs for suite ``mini``."""

    def write(name: str = "p1", outputs: list[dict[str, Any]] | None = None, *,
              suite_id: str = "mini", outputs_text: str | None = None,
              toml: str | None = None) -> Path:
        folder = pytester.path / "products"
        (folder / name).mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.toml").write_text(
            toml if toml is not None else
            f'name = "{name}"\nversion = "1"\nadapter = "cache"\n[environment]\nos = "x"\n',
            encoding="utf-8")
        if outputs is None:
            outputs = [{"case_id": c["id"], "text": c["reference"]} for c in MINI_CASES]
        path = folder / name / f"{suite_id}.jsonl"
        path.write_text(outputs_text if outputs_text is not None else jsonl(outputs),
                        encoding="utf-8")
        return path

    return write


@pytest.fixture
def mini(pytester: pytest.Pytester, write_suite: Callable[..., Path],
         write_product: Callable[..., Path]) -> pytest.Pytester:
    """A project with suite ``mini`` and product ``p1`` (c3 wrong, c4 missing)."""
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite()
    write_product(outputs=[
        {"case_id": "c1", "text": "Hello Maria, see you at noon."},
        {"id": "c2", "text": "please send the invoice by friday", "latency_ms": 120},
        {"case_id": "c3", "text": "The meeting moved to a room for."},
    ])
    return pytester
