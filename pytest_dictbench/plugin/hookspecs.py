"""Hooks other plugins (and ``conftest.py`` files) implement to extend dictbench.

They are added to pytest's own plugin manager in ``pytest_addhooks``, so they work
from installed plugins and from conftest files alike. Implement only the arguments
you need: pluggy passes any subset of a hook's parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from ..adapters.base import AdapterFactory
    from ..adapters.live import CaptureRequest
    from ..methods.base import Method
    from ..model import Product, Suite

hookspec = pytest.hookspec

# -------------------------------------------------------------------------------------
# Registration hooks
# -------------------------------------------------------------------------------------


@hookspec
def pytest_dictbench_methods() -> Iterable[Method]:
    """Called once per run to collect the scoring methods suites may name.

    :returns: Method objects (see :class:`pytest_dictbench.methods.base.Method`). Two
        methods with the same ``name`` are an error naming both.

    Example::

        def pytest_dictbench_methods():
            return [ExactMatch()]

    Use in conftest plugins
    =======================
    Any conftest file may implement this hook; it is called before collection.
    """


@hookspec
def pytest_dictbench_adapters() -> Mapping[str, AdapterFactory]:
    """Called once per run to collect adapter kinds a product file may name.

    :returns: A mapping of adapter kind (the ``adapter`` field of
        ``products/<name>.toml``) to a factory ``(product, suite, options) -> Adapter``.

    Example::

        def pytest_dictbench_adapters():
            return {"echo": lambda product, suite, options: Echo(product, suite)}

    Use in conftest plugins
    =======================
    Any conftest file may implement this hook; it is called before collection.
    """


# -------------------------------------------------------------------------------------
# Reporting hooks: generate (first result wins) / update (every implementation runs)
# -------------------------------------------------------------------------------------


@hookspec(firstresult=True)
def pytest_dictbench_generate_report(
    config: pytest.Config, records: list[Mapping[str, Any]]
) -> dict[str, Any] | None:
    """Called on the controller at the end of a run to build ``dictbench.json``.

    The default implementation aggregates the item records per suite and product.
    Stops at first non-None result, see :ref:`firstresult`.

    :param config: The pytest config object.
    :param records: Every item record of the run (the lines of ``items.jsonl``, in
        report order: suite, product, case id, repetition). Read
        them, do not change them: a record shares its parts (a case's tags, an output's
        metadata) with the run's cases and outputs.
    :returns: The report as plain JSON data, or None to leave it to the next plugin.

    Use in conftest plugins
    =======================
    Only the rootdir conftest is consulted (the report is global to the run).
    """


@hookspec
def pytest_dictbench_update_report(config: pytest.Config, report: dict[str, Any]) -> None:
    """Called after ``pytest_dictbench_generate_report`` to adjust the report in place.

    :param config: The pytest config object.
    :param report: The report about to be written; mutate it.

    Example::

        def pytest_dictbench_update_report(report):
            report["lab"] = "rig-3"

    Use in conftest plugins
    =======================
    Only the rootdir conftest is consulted (the report is global to the run).
    """


# -------------------------------------------------------------------------------------
# Capture hooks
# -------------------------------------------------------------------------------------


@hookspec(firstresult=True)
def pytest_dictbench_transcriber(
    product: Product, suite: Suite
) -> Callable[[CaptureRequest], str | Mapping[str, Any]] | None:
    """Called by the ``python`` adapter the first time it must capture an output.

    The function returned is called once per item (and once for the warm-up) with a
    :class:`~pytest_dictbench.adapters.live.CaptureRequest` (``audio`` path, ``locale``,
    ``case_id``, ``warmup``; ``seed`` and ``target`` paths for a rig correction) and
    returns the product's text, or a transcript record (a dict with ``text``, ``status``,
    ``error``, ``capture_complete``, ``edit_actions``; see
    :mod:`pytest_dictbench.adapters.live`). It raises
    :class:`~pytest_dictbench.errors.CaptureError` when the product fails; that becomes
    an ``error`` output (cached, retried next run). Stops at first non-None result, see
    :ref:`firstresult`.

    :param product: The product (``adapter = "python"``) being captured.
    :param suite: The suite being run.
    :returns: The transcribe function, or None when this plugin does not serve
        ``product``.

    Example::

        def pytest_dictbench_transcriber(product):
            if product.name == "my-asr":
                return lambda request: my_asr.transcribe(str(request.audio))

    Use in conftest plugins
    =======================
    Any conftest file may implement this hook. It is called lazily, during the setup of
    the first item that is not already in the capture cache.
    """
