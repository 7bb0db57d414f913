"""Methods and adapter kinds gathered from every plugin's registration hooks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .adapters.base import AdapterFactory
from .deferred import Deferred, resolve
from .errors import DictbenchError
from .methods.base import Method

__all__ = ["Registry"]


@dataclass(frozen=True)
class Registry:
    """Every scoring method by name and every adapter factory by kind."""

    methods: Mapping[str, Method]
    adapters: Mapping[str, AdapterFactory]

    @classmethod
    def build(cls, method_lists: Iterable[Iterable[Method]],
              adapter_maps: Iterable[Mapping[str, AdapterFactory]]) -> Registry:
        methods: dict[str, Method] = {}
        for listed in method_lists:
            for method in listed:
                if method.name in methods:
                    raise DictbenchError(f"two scoring methods are named {method.name!r}: "
                                         f"{methods[method.name]!r} and {method!r}")
                methods[method.name] = method
        adapters: dict[str, AdapterFactory] = {}
        for mapping in adapter_maps:
            for kind, factory in mapping.items():
                if kind in adapters:
                    raise DictbenchError(f"two adapters are registered for kind {kind!r}: "
                                         f"{_named(adapters[kind])} and {_named(factory)}")
                twin = next((k for k in adapters if k.lower() == kind.lower()), None)
                if twin is not None:  # kinds are matched exactly: a case twin is a mistake
                    raise DictbenchError(f"adapter kinds {twin!r} and {kind!r} differ only in "
                                         f"case ({_named(adapters[twin])} and "
                                         f"{_named(factory)}); kinds are case-sensitive")
                adapters[kind] = factory
        return cls(methods, adapters)

    def method(self, name: str) -> Method:
        try:
            return resolve(self.methods[name])  # the method itself, loaded on first use
        except KeyError:
            raise DictbenchError(f"unknown scoring method {name!r} (known: "
                                 f"{', '.join(sorted(self.methods))})") from None

    def case_schema(self, method: str) -> str | None:
        return self.method(method).case_schema


def _named(factory: object) -> str:
    """Where an adapter factory comes from: ``module.qualname`` (a built-in one,
    deferred, by its ``module:name[item]``), for messages."""
    if isinstance(factory, Deferred):  # loaded or not, named by where it comes from
        item = factory._item
        return factory._target + ("" if item is None else f"[{item!r}]")
    module = getattr(factory, "__module__", None) or type(factory).__module__
    name = getattr(factory, "__qualname__", None) or type(factory).__qualname__
    return f"{module}.{name}"
