"""The contract between the plugin and product adapters."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from ..model import Case, Output, Product, Suite
from ..redact import scrub
from ..suites import DEFAULT_MAX_TEXT_CHARS


@dataclass(frozen=True)
class AdapterOptions:
    """Run-wide options an adapter may honour."""

    #: Capture again even when the cache has an output (live adapters).
    recapture: bool = False
    #: Give each live adapter one unscored warm-up capture before its first measured one.
    warmup: bool = True
    #: pytest's hook relay (``config.hook``); the ``python`` adapter asks it for the
    #: product's transcriber (``pytest_dictbench_transcriber``). ``None`` outside pytest.
    hook: Any = None
    #: Repetitions the run measures (``--repetitions``); ``None``: each suite's own.
    repetitions: int | None = None
    #: Longest output text accepted, in characters (``--dictbench-max-text-chars``).
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    #: Capture every item a second time with no network (``--dictbench-offline-audit``,
    #: see :mod:`pytest_dictbench.rig.offline`).
    offline_audit: bool = False


@runtime_checkable
class Adapter(Protocol):
    """Supplies one product's outputs for one suite.

    Example::

        class Echo:
            def __init__(self, product, suite, options):
                self.suite = suite

            def get(self, case, repetition):
                return Output(case.id, case.get("reference", ""), repetition)

    An adapter may also define ``release()``: it is called once every item has run, so
    that outputs it keeps (the ``cache`` adapter's whole outputs file) are let go of
    before the reports are built from the item records.
    """

    def get(self, case: Case, repetition: int) -> Output | None:
        """The output for ``case`` and ``repetition``, or ``None`` when there is none."""
        ...


#: Builds an adapter; registered per adapter kind through ``pytest_dictbench_adapters``.
AdapterFactory = Callable[[Product, Suite, AdapterOptions], Adapter]


def scrubbed_output(output: Output | None) -> Output | None:
    """``output`` with every registered secret scrubbed from its text and error
    (:func:`~pytest_dictbench.redact.scrub`); a changed text is flagged ``redacted``,
    since what is scored is no longer what the product returned. Every product's output
    passes here before it is refined, judged, scored or quoted."""
    if output is None:
        return None
    text = scrub(output.text) if output.text else output.text
    error = scrub(output.error) if output.error else output.error
    if text == output.text and error == output.error:
        return output
    meta = {**output.meta, "redacted": True} if text != output.text else output.meta
    return replace(output, text=text, error=error, meta=meta)
