"""Methods and adapter kinds gathered from every plugin's registration hooks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .adapters.base import AdapterFactory
from .deferred import resolve
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
                    raise DictbenchError(f"two adapters are registered for kind {kind!r}")
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
