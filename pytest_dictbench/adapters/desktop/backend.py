"""What a desktop backend does for the driver: one interface, one module per platform.

The driver (:mod:`.driver`) runs an item through these calls only; ``linux.py`` does them
with X11 (XTest) and PulseAudio, ``macos.py`` with AppleScript, System Events and a
named virtual input device. Every time is ``time.monotonic()`` seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol, runtime_checkable

from .settle import Snapshot
from .xkeys import Hotkey

__all__ = ["App", "DesktopBackend", "Document", "Playback"]


@runtime_checkable
class Document(Protocol):
    """A fresh plain-text destination document, focused, read repeatedly."""

    def wait_focused(self, timeout_s: float) -> bool:
        """Wait until the document has the keyboard focus; False when it never got it."""
        ...

    def snapshots(self) -> Sequence[Snapshot]:
        """Every snapshot read so far, oldest first."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class App(Protocol):
    """The dictation app under test, as launched by the rig."""

    def exit_code(self) -> int | None:
        """``None`` while the app runs, else its exit status."""
        ...

    def stop(self) -> None: ...


@runtime_checkable
class Playback(Protocol):
    """The case's audio, playing once in real time into the virtual input."""

    def wait(self, timeout_s: float) -> None:
        """Until the audio has been played (raise RuntimeError when the player fails)."""
        ...

    def first_audible(self) -> float | None:
        """When the first audible sample reached the virtual input (None: not yet)."""
        ...


@runtime_checkable
class DesktopBackend(Protocol):
    """One platform's rig: display, keys, documents, audio route, the app."""

    #: ``linux`` or ``macos``.
    platform: str

    def problems(self, app: Sequence[str], hotkey: Hotkey | None = None) -> list[str]:
        """What is missing on this machine to run ``app`` with ``hotkey``, each with how
        to fix it."""
        ...

    def claim(self) -> AbstractContextManager[None]:
        """Hold this display and audio route; a second rig on them is refused
        (:class:`~pytest_dictbench.errors.ProductError`)."""
        ...

    def launch(self, argv: Sequence[str], log: Path | None) -> App: ...

    def open_document(self, title: str) -> Document: ...

    def key_down(self, hotkey: Hotkey) -> None: ...

    def key_up(self, hotkey: Hotkey) -> None: ...

    def play(self, audio: Path) -> Playback: ...

    def window_titles(self) -> Sequence[str]:
        """The titles of the windows shown on the display now (for ``ready_window``)."""
        ...

    def record_screen(self, path: Path) -> App | None:
        """Start recording the screen to ``path`` (None where it cannot)."""
        ...

    def close(self) -> None: ...
