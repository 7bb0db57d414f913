"""``cache``: outputs read from ``products/<name>/<suite id>.jsonl``."""

from __future__ import annotations

from ..model import Case, Output, Product, Suite
from ..products import outputs_file, read_outputs
from .base import AdapterOptions


class CacheAdapter:
    """Reads every output of the product for the suite once, at construction, and lets
    go of them when the run calls :meth:`release`.

    A missing output file means the product was not run on this suite: every item is
    ``not_tested``. A malformed file raises :class:`~pytest_dictbench.errors.OutputError`.
    """

    def __init__(self, product: Product, suite: Suite, options: AdapterOptions) -> None:
        self.path = outputs_file(product, suite)
        self._suite, self._options = suite, options
        self.outputs: dict[tuple[str, int], Output] | None = self._read()

    def _read(self) -> dict[tuple[str, int], Output]:
        if not self.path.is_file():
            return {}
        return read_outputs(self.path, self._suite, max_text_chars=self._options.max_text_chars,
                            repetitions=self._options.repetitions or self._suite.repetitions)

    def get(self, case: Case, repetition: int) -> Output | None:
        if self.outputs is None:  # asked again after release(): read the file again
            self.outputs = self._read()
        return self.outputs.get((case.id, repetition))

    def release(self) -> None:
        """Let go of the outputs once every item has run (100,000 items' texts)."""
        self.outputs = None
