"""``python``: a transcriber function supplied by another plugin or a ``conftest.py``.

The function is found through the ``pytest_dictbench_transcriber(product, suite)`` hook
the first time a capture is needed (so a fully cached run needs no plugin). It is called
with a :class:`~pytest_dictbench.adapters.live.CaptureRequest` and returns the text (or a
transcript record, see :mod:`.live`); it raises
:class:`~pytest_dictbench.errors.CaptureError` when the product fails.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ProductError
from ..model import Product, Suite
from .base import AdapterOptions
from .live import CaptureRequest, LiveAdapter
from .settings import Settings

__all__ = ["CallableTranscriber", "python_adapter"]

#: What the hook returns.
TranscribeFunction = Callable[[CaptureRequest], "str | Mapping[str, Any]"]


class CallableTranscriber:
    """Wraps the plugin's function; it reads the audio itself, so the adapter checks it."""

    decodes_audio = False

    def __init__(self, function: TranscribeFunction, describe: Mapping[str, Any]) -> None:
        self.function = function
        self._describe = dict(describe)

    def describe(self) -> Mapping[str, Any]:
        return self._describe

    def transcribe(self, request: CaptureRequest) -> str | Mapping[str, Any]:
        return self.function(request)


def python_adapter(product: Product, suite: Suite, options: AdapterOptions) -> LiveAdapter:
    """Adapter factory for ``adapter = "python"``."""
    settings = Settings(product, set())
    engine = settings.get("engine", str, None)
    engine_version = settings.get("engine_version", str, None)
    model = settings.get("model", str, None)

    def make() -> CallableTranscriber:
        if options.hook is None:
            raise ProductError("the python adapter needs pytest's hook relay "
                               "(AdapterOptions.hook)", path=product.path)
        function = options.hook.pytest_dictbench_transcriber(product=product, suite=suite)
        if function is None:
            raise ProductError(
                f"no plugin provided a transcriber for product {product.name!r}: implement "
                "pytest_dictbench_transcriber(product, suite) in a plugin or conftest.py",
                path=product.path)
        if not callable(function):
            raise ProductError(f"pytest_dictbench_transcriber returned {function!r}, which is "
                               "not callable", path=product.path)
        name = f"{getattr(function, '__module__', '?')}.{getattr(function, '__qualname__', '?')}"
        describe = {"engine": engine or name, "engine_version": engine_version, "model": model}
        return CallableTranscriber(function, describe)

    return LiveAdapter(product, suite, options, make)
