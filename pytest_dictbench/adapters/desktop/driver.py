"""One item the way an operator runs it: a fresh document, the hotkey, the audio, the
settle rule, and the timings (see ``docs/desktop.md``).

:class:`DesktopTranscriber` is a :class:`~pytest_dictbench.adapters.live.Transcriber`,
so the one live-adapter engine caches, warms up and records it like any other kind. It
answers with a transcript record: the settled text and, in ``desktop``, the timings and
what happened (kept on failed and invalid lines too, with the last text); its
``latency_s`` (the line's ``latency_ms``) is the live timing, first audible sample to
final text.
"""

from __future__ import annotations

import atexit
import contextlib
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ...audio.io import read_audio
from ...errors import CaptureError
from ..live import CaptureRequest
from ..settings import public_settings
from .backend import App, DesktopBackend
from .config import DesktopConfig
from .pulse import AUDIBLE
from .ready import LogWatch, wait_ready
from .settle import Verdict, settle, timings

__all__ = ["DesktopTranscriber", "audible_span"]


def audible_span(path: Path) -> tuple[float, float]:
    """(first audible sample, duration) of an audio file, in seconds."""
    samples, rate = read_audio(path)
    loud = np.flatnonzero(np.abs(samples) > AUDIBLE)
    first = float(loud[0]) / rate if loud.size else 0.0
    return first, len(samples) / rate


class DesktopTranscriber:
    """Drives the app through a backend; one per live adapter (see module doc)."""

    decodes_audio = False

    def __init__(self, config: DesktopConfig, backend: DesktopBackend, outputs: Path,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config, self.backend, self.outputs, self.clock = config, backend, outputs, clock
        self._claim = contextlib.ExitStack()
        self._claim.enter_context(backend.claim())
        self._app: App | None = None
        self._relaunch = config.relaunch != "never"
        self._counts: dict[str, int] = {}
        atexit.register(self.close)

    def describe(self) -> Mapping[str, Any]:
        return {"engine": f"desktop-{self.backend.platform}", "engine_version": None,
                "model": None, "app": public_settings({"app": list(self.config.app)})["app"],
                "hotkey": self.config.hotkey.spec, "hotkey_mode": self.config.hotkey_mode}

    def start_block(self) -> None:
        """A new rig block starts: relaunch the app first when ``relaunch = "block"``."""
        if self.config.relaunch == "block":
            self._relaunch = True

    # -- one item -----------------------------------------------------------------------

    def transcribe(self, request: CaptureRequest) -> Mapping[str, Any]:
        path = request.audio_path()
        onset, duration = audible_span(path)
        self._ensure_app()
        number = self._counts[request.case_id] = self._counts.get(request.case_id, 0) + 1
        stem = f"{request.case_id}{'.warmup' if request.warmup else ''}.{number}"
        attempts = 1 + self.config.replay_if_empty
        for attempt in range(1, attempts + 1):
            if attempt > 1 and self.config.hotkey_mode == "toggle":
                # nothing arrived: the app may have missed a press and be dictating now,
                # out of phase with the rig's toggles; a relaunch puts it back at rest
                self._relaunch = True
                self._ensure_app()
            verdict, facts = self._attempt(path, onset, duration, f"{stem}.{attempt}")
            facts.update(attempt=attempt, replays=attempt - 1)
            if verdict.state != "empty":
                break
        return self._answer(verdict, facts, attempts)

    def _attempt(self, audio: Path, onset: float, duration: float, stem: str
                 ) -> tuple[Verdict, dict[str, Any]]:
        cfg, backend = self.config, self.backend
        document = backend.open_document(f"dictbench {stem}")
        screen = None
        try:
            if cfg.record_screen:
                screen = backend.record_screen(self.outputs / "screen" / f"{stem}.mp4")
            if not document.wait_focused(cfg.focus_timeout_s):
                self._relaunch = True
                raise CaptureError(f"the document did not get the keyboard focus in "
                                   f"{cfg.focus_timeout_s:g} s")
            start = self.clock()
            backend.key_down(cfg.hotkey)
            if cfg.hotkey_mode == "toggle":
                backend.key_up(cfg.hotkey)
            time.sleep(cfg.hotkey_lead_s)
            playback = backend.play(audio)
            try:
                playback.wait(duration + 30)
            except RuntimeError as exc:
                raise CaptureError(f"audio route: {exc}") from None
            finally:
                if cfg.hotkey_mode == "hold":
                    backend.key_up(cfg.hotkey)
            heard = playback.first_audible()
            if heard is None:
                raise CaptureError("the virtual input heard nothing while the audio played: "
                                   "check the audio route (`dictbench desktop doctor`)")
            audio_end = heard + (duration - onset)
            if cfg.hotkey_mode == "toggle":
                self._wait_until(audio_end)
                backend.key_down(cfg.hotkey)
                backend.key_up(cfg.hotkey)
            verdict = self._settle(document, start, audio_end)
            shots = document.snapshots()
        finally:
            if screen is not None:
                screen.stop()
            document.close()
        facts: dict[str, Any] = {
            "platform": backend.platform, "settle": verdict.state,
            "stable_s": cfg.rule.stable_s, "max_wait_s": cfg.rule.max_wait_s,
            **timings(verdict, heard, audio_end),
            "audio_end_s": round(audio_end - heard, 3),
            "snapshots": len(shots), "changes": verdict.changes,
            "screen_recording": (f"screen/{stem}.mp4" if screen is not None else None),
        }
        if verdict.state == "focus_lost" and verdict.focus_lost_at is not None:
            facts["focus_lost_s"] = round(verdict.focus_lost_at - heard, 3)
        if verdict.first_text_at is not None and verdict.first_text_at < heard:
            facts["stray_text"] = True  # typed before there was anything to hear
        return verdict, facts

    def _settle(self, document: Any, start: float, audio_end: float) -> Verdict:
        while True:
            code = self._app.exit_code() if self._app is not None else None
            if code is not None:
                self._relaunch = True
                raise CaptureError(f"the app exited with status {code} during the item; "
                                   "the next item relaunches it")
            verdict = settle(document.snapshots(), audio_end=audio_end, now=self.clock(),
                             rule=self.config.rule, start=start)
            if verdict.state != "waiting":
                return verdict
            time.sleep(self.config.poll_s)

    def _wait_until(self, moment: float) -> None:
        left = moment - self.clock()
        if left > 0:
            time.sleep(left)

    def _answer(self, verdict: Verdict, facts: dict[str, Any], attempts: int
                ) -> dict[str, Any]:
        rule = self.config.rule
        if facts.get("stray_text"):
            self._relaunch = self.config.relaunch != "never"
            facts["last_text"] = verdict.text
            return {"status": "invalid", "desktop": facts,
                    "error": f"text arrived in the fresh document {-facts['first_text_s']:g} s "
                             "before the first audible sample: left over from an earlier "
                             "dictation (is the app still typing?); not scored"}
        if verdict.state == "settled":
            return {"text": verdict.text, "desktop": facts,
                    "latency_s": facts["final_text_s"]}
        self._relaunch = self._relaunch or self.config.relaunch != "never"
        facts["last_text"] = verdict.text
        if verdict.state == "empty":
            error = (f"no text arrived within {rule.empty_wait_s:g} s after the audio, "
                     f"{attempts} time(s) (replay_if_empty = {attempts - 1}): does the "
                     f"hotkey {self.config.hotkey.spec!r} start the app's dictation?")
            return {"status": "failed", "error": error, "desktop": facts}
        if verdict.state == "timeout":
            return {"status": "failed", "desktop": facts,
                    "error": f"the text was still changing {rule.max_wait_s:g} s after the "
                             f"audio ended (max_wait_s); its last text is kept as "
                             f"desktop.last_text"}
        return {"status": "invalid", "desktop": facts,
                "error": f"the document lost the keyboard focus "
                         f"{facts.get('focus_lost_s', 0):g} s after the first audible "
                         "sample: not scored"}

    # -- the app ------------------------------------------------------------------------

    def _ensure_app(self) -> None:
        if self.config.relaunch == "never":
            return
        if self._app is not None and self._app.exit_code() is None and not self._relaunch:
            return
        if self._app is not None:
            self._app.stop()
        log = self.config.app_log(self.outputs)
        watch = LogWatch.at_end(log)
        self._app = self.backend.launch(self.config.app, log)
        self._relaunch = False
        if self.config.ready:
            try:
                wait_ready(self._app, self.config.ready, watch, self.config.launch_wait_s,
                           self.backend.window_titles)
            except CaptureError:
                self._relaunch = True  # an app that never got ready is stopped next time
                raise
            return
        time.sleep(self.config.launch_wait_s)  # no readiness setting: a fixed wait
        code = self._app.exit_code()
        if code is not None:
            raise CaptureError(f"the app {self.config.app[0]!r} exited with status {code} "
                               f"right after its launch (its output: {log})")

    def close(self) -> None:
        """Stop the app the rig launched, take the audio route down, free the display."""
        with contextlib.suppress(Exception):  # at exit the display may be gone already
            if self._app is not None:
                self._app.stop()
                self._app = None
            self.backend.close()
        self._claim.close()
