"""Adapter kinds registered twice or in another case (PV22), and a provider product
without httpx (PV15)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from adapter_support import live_adapter, make_product, make_suite

from pytest_dictbench.adapters import builtin_adapters
from pytest_dictbench.errors import CaptureError, DictbenchError
from pytest_dictbench.registry import Registry


def plugin_factory(*args: object) -> None:
    return None


def test_a_kind_registered_twice_names_both_registrations() -> None:
    """PV22."""
    builtin = builtin_adapters()
    with pytest.raises(DictbenchError, match=(
            r"two adapters are registered for kind 'deepgram': pytest_dictbench.adapters."
            r"providers:PROVIDER_ADAPTERS\['deepgram'\] and "
            r"test_providers_registry.plugin_factory")):
        Registry.build([], [builtin, {"deepgram": plugin_factory}])


def test_kinds_that_differ_only_in_case_are_refused() -> None:
    """PV22: ``Deepgram`` beside ``deepgram`` is a mistake, not a second kind."""
    with pytest.raises(DictbenchError, match=r"adapter kinds 'deepgram' and 'Deepgram' differ "
                                             r"only in case"):
        Registry.build([], [builtin_adapters(), {"Deepgram": plugin_factory}])


def test_without_httpx_only_the_provider_product_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PV15: the provider product's items are errors naming the extra; building it does
    not stop the run."""
    monkeypatch.setitem(sys.modules, "httpx", None)
    suite = make_suite(tmp_path / "suite", {"c1": "audio/c1.wav"})
    product = make_product(tmp_path / "p", "deepgram", {"api_key_env": "X_KEY"})
    monkeypatch.setenv("X_KEY", "k" * 20)
    adapter = live_adapter(product, suite)
    with pytest.raises(CaptureError, match=r"pip install 'pytest-dictbench\[providers\]'"):
        adapter.get(suite.cases[0], 1)  # an item error, as a missing key is
