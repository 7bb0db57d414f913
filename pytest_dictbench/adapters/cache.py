"""``cache``: outputs read from ``products/<name>/<suite id>.jsonl``."""

from __future__ import annotations

from ..model import Case, Output, Product, Suite
from ..products import outputs_file, read_outputs
from .base import AdapterOptions


class CacheAdapter:
    """Reads every output of the product for the suite once, at construction.

    A missing output file means the product was not run on this suite: every item is
    ``not_tested``. A malformed file raises :class:`~pytest_dictbench.errors.OutputError`.
    """

    def __init__(self, product: Product, suite: Suite, options: AdapterOptions) -> None:
        self.path = outputs_file(product, suite)
        self.outputs = read_outputs(
            self.path, suite, repetitions=options.repetitions or suite.repetitions,
            max_text_chars=options.max_text_chars) \
            if self.path.is_file() else {}

    def get(self, case: Case, repetition: int) -> Output | None:
        return self.outputs.get((case.id, repetition))
