"""Shared fixtures: small suites and products written into a pytester folder."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support import CANARY, MINI_CASES, jsonl

from pytest_dictbench.report.helper import ReportHelper

pytest_plugins = ["pytester"]


def _load_matplotlib() -> None:
    """Import all of matplotlib the reports' figures use, once, before any test.

    pytester's in-process runs drop the modules imported during them; a package kept
    (``import matplotlib``, e.g. by an ``importorskip`` at collection) with its submodules
    dropped comes back half re-imported, and its class checks fail ("Invalid arguments
    to set_clip_path") for every later report."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return
    import io

    fig = Figure()
    ax = fig.add_subplot()
    bars = ax.bar([0, 1], [1.0, 2.0], label="a")
    ax.bar_label(bars, labels=["1", "2"], rotation=90)
    ax.barh([0], [1.0], xerr=[[0.1], [0.1]])
    ax.errorbar([0.5], [0.5], xerr=[[0.1], [0.1]], fmt="o")
    ax.axvline(0.0)
    ax.set_xticks([0, 1], ["a", "b"], rotation=90)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.savefig(io.BytesIO(), format="svg")
    fig.savefig(io.BytesIO(), format="png")


_load_matplotlib()
# the results store's database modules, loaded once before any in-process run records
# a run (pytester drops the modules a run imports; a second SQLAlchemy, or a second
# psycopg whose errors SQLAlchemy no longer recognises, would follow)
import pytest_dictbench.store.sql  # noqa: E402, F401

with contextlib.suppress(ImportError):
    import psycopg  # noqa: F401
    import sqlalchemy.dialects.postgresql.psycopg  # noqa: F401


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


@pytest.fixture
def helper() -> Iterator[ReportHelper]:
    """A started report helper process, closed after the test."""
    started = ReportHelper.start()
    assert started is not None
    yield started
    started.close()


@pytest.fixture(autouse=True)
def _secrets_of_this_test_only() -> Iterator[None]:
    """The secrets a test registers (directly, or by an in-process run loading products)
    are forgotten after it: scrubbing in another test never depends on the order."""
    from pytest_dictbench import redact

    saved = dict(redact._SECRETS)
    yield
    redact._SECRETS.clear()
    redact._SECRETS.update(saved)
    redact._FORMS.clear()


@pytest.fixture
def provider_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The provider fakes' key in their variable (``provider_servers.KEY_ENV``)."""
    from provider_servers import KEY, KEY_ENV

    monkeypatch.setenv(KEY_ENV, KEY)


@pytest.fixture
def serve() -> Iterator[Callable[[Any], Any]]:
    """``serve(fake)``: a running ``provider_servers.ProviderServer`` for ``fake``,
    stopped after the test."""
    from provider_servers import ProviderServer

    servers: list[Any] = []

    def start(fake: Any) -> Any:
        servers.append(ProviderServer(fake).__enter__())
        return servers[-1]

    yield start
    for server in servers:
        server.__exit__()
