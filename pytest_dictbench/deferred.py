"""Registered objects whose modules load when first used.

The plugin registers every adapter kind and scoring method when pytest starts, in every
pytest run of an environment where it is installed. Importing them all (live capture
pulls in numpy and audio I/O, the refine pipeline its clients, each method its checks)
took about 0.2 s of that start. A :class:`Deferred` stands in for one of them: calling it
or reading an attribute imports the module and forwards to the real object.
:func:`resolve` gives the real object itself (for the hot path and identity checks).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["Deferred", "resolve"]


class Deferred:
    """``module:name`` (its entry ``item`` when given; instantiated without arguments when
    ``instantiate``), loaded on first use. ``known`` attributes (such as a method's
    ``name``) answer without loading."""

    def __init__(self, target: str, *, item: str | None = None, instantiate: bool = False,
                 **known: Any) -> None:
        self._target, self._item, self._instantiate = target, item, instantiate
        self._object: Any = None
        self.__dict__.update(known)

    def load(self) -> Any:
        """The real object (imported, and made, on the first call)."""
        if self._object is None:
            module, _, name = self._target.partition(":")
            found = getattr(import_module(module), name)
            if self._item is not None:
                found = found[self._item]
            self._object = found() if self._instantiate else found
        return self._object

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.load()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_target", "_item", "_instantiate", "_object"):
            raise AttributeError(name)
        return getattr(self.load(), name)

    def __repr__(self) -> str:
        if self._object is not None:
            return repr(self._object)
        return f"<deferred {self._target}{'' if self._item is None else f'[{self._item!r}]'}>"


def resolve(value: Any) -> Any:
    """``value`` itself, or the real object a :class:`Deferred` stands for."""
    return value.load() if isinstance(value, Deferred) else value
