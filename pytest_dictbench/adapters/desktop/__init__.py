"""``desktop``: a dictation app driven by a rig, the way an operator runs it.

For each item: a fresh document of the rig's own, focused; the app's hotkey (toggle or
hold) as real key events; the case's audio played once into a virtual microphone; the
document read until its text settles (:mod:`.settle`); the timings from the first
audible sample. Backends: :mod:`.linux` (X11 + PulseAudio, tested end to end) and
:mod:`.macos` (AppleScript; its commands tested as data). See ``docs/desktop.md``.
"""

from __future__ import annotations

from ...errors import ProductError
from ...model import Product, Suite
from ...products import outputs_file
from ..base import AdapterOptions
from ..live import LiveAdapter
from .backend import DesktopBackend
from .config import DesktopConfig
from .driver import DesktopTranscriber

__all__ = ["DesktopAdapter", "check_machine", "desktop_adapter", "make_backend"]


def make_backend(config: DesktopConfig) -> DesktopBackend:
    """The backend of ``config.platform``."""
    if config.platform == "macos":
        from .macos import MacBackend

        return MacBackend(config.input_device)
    from .linux import LinuxBackend

    return LinuxBackend(config.display, config.input_device,
                        record_screen=config.record_screen)


class DesktopAdapter(LiveAdapter):
    """The live-adapter engine, told when a rig block starts (the app may relaunch) and
    when the run's items are done (the rig is given back at once, not at exit)."""

    def release(self) -> None:
        if isinstance(self._transcriber, DesktopTranscriber):
            self._transcriber.close()

    def start_block(self, block: int) -> None:
        new = self._block is not None and block != self._block
        super().start_block(block)
        if new and isinstance(self._transcriber, DesktopTranscriber):
            self._transcriber.start_block()


def check_machine(product: Product) -> None:
    """Raise :class:`ProductError` (one line, everything missing and how to fix it) when
    this machine cannot run the rig for ``product``: no display, no audio route or input
    device, no app binary, a hotkey not on the keyboard map, the rig busy with another
    run. The plugin calls it before collection (a usage error)."""
    config = DesktopConfig.from_product(product)
    _refuse_unfit(config, product, busy=True)


def _refuse_unfit(config: DesktopConfig, product: Product, busy: bool = False) -> None:
    backend = make_backend(config)
    problems = backend.problems(config.app, config.hotkey)
    held = getattr(backend, "busy", None)
    if busy and not problems and callable(held):
        holder = held()
        if holder:
            problems.append(holder)
    if problems:
        raise ProductError("the desktop rig cannot run here: " + "; ".join(problems) +
                           " (see `dictbench desktop doctor`); the run stops before any "
                           "product is measured", path=product.path)


class _DesktopFactory:
    """The ``desktop`` adapter factory, with the machine check a run makes first."""

    #: Called with each ``desktop`` product before collection (see :func:`check_machine`).
    preflight = staticmethod(check_machine)

    def __call__(self, product: Product, suite: Suite, options: AdapterOptions
                 ) -> LiveAdapter:
        config = DesktopConfig.from_product(product)
        _refuse_unfit(config, product)
        backend = make_backend(config)
        outputs = outputs_file(product, suite).parent
        return DesktopAdapter(product, suite, options,
                              lambda: DesktopTranscriber(config, backend, outputs))


#: Adapter factory for ``adapter = "desktop"``. A machine that cannot run the rig stops
#: the run before any item, with what is missing and how to fix it.
desktop_adapter = _DesktopFactory()
