"""Adapter kinds and methods registered before their modules load (deferred.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pytest_dictbench.adapters import BUILTIN_ADAPTERS, PROVIDER_KINDS
from pytest_dictbench.adapters.providers import PROVIDER_ADAPTERS
from pytest_dictbench.deferred import Deferred, resolve
from pytest_dictbench.methods.builtin import builtin_methods


def test_every_builtin_kind_loads_the_factory_it_names() -> None:
    assert set(PROVIDER_KINDS) == set(PROVIDER_ADAPTERS)
    for kind in PROVIDER_KINDS:
        assert resolve(BUILTIN_ADAPTERS[kind]) is PROVIDER_ADAPTERS[kind]
    for kind, factory in BUILTIN_ADAPTERS.items():
        assert isinstance(factory, Deferred) and callable(resolve(factory)), kind
        assert not isinstance(resolve(factory), Deferred)


def test_every_builtin_method_is_the_method_its_name_says() -> None:
    for deferred in builtin_methods():
        method = resolve(deferred)
        assert method.name == deferred.name and type(method).__name__ != "Deferred"
        assert deferred.case_schema == method.case_schema  # attributes pass through


def test_a_deferred_object_loads_once_and_forwards_calls_and_attributes() -> None:
    joined = Deferred("os.path:join")
    assert repr(joined) == "<deferred os.path:join>"  # nothing loaded yet
    assert joined("a", "b") == "a/b" and resolve(joined) is __import__("os").path.join
    assert repr(joined) == repr(__import__("os").path.join)
    assert Deferred("os:environ", item="PATH").load() == __import__("os").environ["PATH"]
    made = Deferred("collections:OrderedDict", instantiate=True, name="od")
    assert made.name == "od" and resolve(made) is resolve(made) and made.keys() is not None
    with pytest.raises(ModuleNotFoundError):
        Deferred("no_such_module_here:thing")()
    with pytest.raises(AttributeError):
        Deferred("os.path:no_such_name").load()


def test_starting_the_plugin_loads_no_live_adapter_nor_method_module() -> None:
    probe = ("import sys, pytest_dictbench.plugin; "
             "print(sorted(m for m in sys.modules if m.startswith(("
             "'pytest_dictbench.adapters.live', 'pytest_dictbench.adapters.providers', "
             "'pytest_dictbench.adapters.pipeline.refiner', 'pytest_dictbench.methods.rubric', "
             "'pytest_dictbench.methods.keypoints', 'pytest_dictbench.methods.verbatim'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
