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
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ...audio.io import read_audio
from ...errors import CaptureError, DictbenchError, ProductError
from ..live import CaptureRequest
from ..settings import public_settings
from .backend import App, DesktopBackend
from .boundary import WAITING, LateText, watch_late
from .config import DesktopConfig
from .launch import OperatorsApp, check_grab, exit_reason
from .linux_process import video_problem
from .outcome import item_answer
from .pulse import AUDIBLE
from .ready import LogWatch, wait_ready
from .settle import Verdict, settle, timings

__all__ = ["MAX_LAUNCH_FAILURES", "DesktopTranscriber", "audible_span"]

#: Launches in a row that fail before the app is ready; then the product's remaining
#: items error at once, without launching it again.
MAX_LAUNCH_FAILURES = 2
#: The transcriber holding the rig in this process: the desktop products of a run (and
#: one product's suites) take the display and audio route in turn, one at a time.
_HOLDER: list[DesktopTranscriber] = []


class _RouteChanged(Exception):
    """The audio route changed during an item (its reason as the message)."""


class _EarlyText(Exception):
    """Text reached the fresh document before the first audible sample: late text of
    the item before (``facts``: what the next item records of it)."""

    def __init__(self, facts: dict[str, Any]) -> None:
        super().__init__(facts.get("text", ""))
        self.facts = facts


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
        self._claim: contextlib.ExitStack | None = None
        self._app: App | None = None
        self._relaunch = config.relaunch != "never"
        self._counts: dict[str, int] = {}
        #: Launches in a row that failed before the app was ready.
        self._failed_launches = 0
        self._last_failure = ""
        #: Why this product cannot take the rig (set up once, not tried per item).
        self._broken: str | None = None
        #: Lines saying what was undone of a killed run's leftovers (for the next line).
        self._recovered: list[str] = []
        #: The last item decided: (its stem, when it was decided).
        self._last_item: tuple[str, float] | None = None
        atexit.register(self.close)

    def _take_rig(self) -> None:
        """Hold the display and route for this product (the holder before it gives them
        back first: its app stopped, its route taken down); a new turn launches the app."""
        if self._broken is not None:
            raise ProductError(f"{self._broken} (not tried again for this product)")
        if _HOLDER and _HOLDER[0] is self:
            return
        if _HOLDER:
            _HOLDER[0].close()
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(self.backend.claim())
        except DictbenchError as exc:
            self._broken = str(exc)
            raise
        self._claim = stack
        _HOLDER[:] = [self]
        self._app = None
        self._relaunch = self.config.relaunch != "never"
        recovered = list(getattr(self.backend, "recovered", ()))
        if recovered:
            self._recovered = recovered
            with contextlib.suppress(Warning):  # -W error: the capture line still says it
                warnings.warn("dictbench desktop rig: " + "; ".join(recovered), UserWarning,
                              stacklevel=2)

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
        try:
            return self._item(request)
        finally:
            if self.config.isolate_items:  # whatever the outcome: a fresh app next
                self._relaunch = True

    def _item(self, request: CaptureRequest) -> Mapping[str, Any]:
        path = request.audio_path()
        onset, duration = audible_span(path)
        self._take_rig()
        try:
            self._ensure_app()
        except DictbenchError as exc:
            if not isinstance(exc, CaptureError):
                self._broken = str(exc)
            raise
        number = self._counts[request.case_id] = self._counts.get(request.case_id, 0) + 1
        stem = f"{request.case_id}{'.warmup' if request.warmup else ''}.{number}"
        attempts = 1 + self.config.replay_if_empty
        for attempt in range(1, attempts + 1):
            if attempt > 1 and self.config.hotkey_mode == "toggle":
                # nothing arrived: the app may have missed a press and be dictating now,
                # out of phase with the rig's toggles; a relaunch puts it back at rest
                self._relaunch = True
                self._ensure_app()
            try:
                verdict, facts = self._clean_attempt(path, onset, duration, f"{stem}.{attempt}")
            except _RouteChanged as exc:
                return {"status": "invalid", "error": f"{exc} during the item: not scored; "
                        "the next item sets the route again",
                        "desktop": {"platform": self.backend.platform, "route_changed": str(exc),
                                    "attempt": attempt, "replays": attempt - 1}}
            facts.update(attempt=attempt, replays=attempt - 1)
            if verdict.state != "empty":
                break
        if self._recovered:
            facts["recovered"], self._recovered = self._recovered, []
        created = getattr(getattr(self.backend, "route", None), "created", None)
        if isinstance(created, bool):
            facts["input_device_created"] = created
        answer, relaunch = item_answer(self.config, verdict, facts, attempts)
        self._relaunch = self._relaunch or relaunch
        return answer

    def _clean_attempt(self, audio: Path, onset: float, duration: float, stem: str
                       ) -> tuple[Verdict, dict[str, Any]]:
        """One attempt; when the item before's late text reaches its fresh document
        before the first audible sample, the app is relaunched (so the process that
        typed it is gone) and the attempt made once more in a fresh document."""
        redo = self.config.relaunch != "never" and self._last_item is not None
        try:
            return self._attempt(audio, onset, duration, stem, redo)
        except _EarlyText as early:
            self._relaunch = True
            self._ensure_app()
            verdict, facts = self._attempt(audio, onset, duration, f"{stem}.redo", False)
            facts["previous_late_text"] = early.facts
            return verdict, facts

    def _route_problem(self) -> str | None:
        check = getattr(self.backend, "route_problem", None)
        return check() if callable(check) else None

    def _attempt(self, audio: Path, onset: float, duration: float, stem: str,
                 redo: bool = False) -> tuple[Verdict, dict[str, Any]]:
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
            before = self._route_problem()
            if before is not None:  # set it again; the change was in the item before
                backend.restore_route()  # type: ignore[attr-defined]
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
            changed = self._route_problem()
            if changed is not None:
                raise _RouteChanged(changed)
            if heard is None:
                raise CaptureError("the virtual input heard nothing while the audio played: "
                                   "check the audio route (`dictbench desktop doctor`)")
            early = [shot for shot in document.snapshots() if shot.at < heard
                     and shot.text.strip()]
            if early and redo:
                raise _EarlyText(self._early_facts(early))
            audio_end = heard + (duration - onset)
            if cfg.hotkey_mode == "toggle":
                self._wait_until(audio_end)
                backend.key_down(cfg.hotkey)
                backend.key_up(cfg.hotkey)
            verdict = self._settle(document, start, audio_end, heard)
            changed = self._route_problem()
            if changed is not None:
                raise _RouteChanged(changed)
            late = self._guard(document, verdict) if verdict.state == "settled" else None
            shots = document.snapshots()
            owner = getattr(backend, "focus_owner", None)
            back = bool(shots) and shots[-1].focused  # a short loss: nobody to name
            taken_by = owner() if verdict.state == "focus_lost" and callable(owner) and \
                not back else None
        finally:
            if screen is not None:
                screen.stop()
            document.close()
        video = f"screen/{stem}.mp4" if screen is not None else None
        video_note = video_problem(self.outputs / video) if video and \
            backend.platform == "linux" else None
        facts: dict[str, Any] = {
            "platform": backend.platform, "settle": verdict.state,
            "stable_s": cfg.rule.stable_s, "max_wait_s": cfg.rule.max_wait_s,
            **timings(verdict, heard, audio_end),
            "audio_end_s": round(audio_end - heard, 3),
            "snapshots": len(shots), "changes": verdict.changes,
            "screen_recording": None if video_note else video,
        }
        if video_note:
            facts["screen_recording_problem"] = f"{video}: {video_note}"
        if verdict.state == "focus_lost" and verdict.focus_lost_at is not None:
            facts["focus_lost_s"] = round(verdict.focus_lost_at - heard, 3)
            if taken_by:
                facts["focus_taken_by"] = taken_by
            elif back:
                facts["focus_came_back"] = True
        early = [shot for shot in shots if shot.at < heard and shot.text.strip()]
        if early or (verdict.first_text_at is not None and verdict.first_text_at < heard):
            facts["stray_text"] = True  # typed before there was anything to hear
            first = early[0].at if early else verdict.first_text_at
            facts["first_text_s"] = round(first - heard, 3)  # type: ignore[operator]
            if self._last_item is not None:
                facts["stray_after"] = {"item": self._last_item[0],
                                        "after_its_decision_s":
                                        round(first - self._last_item[1], 3)}  # type: ignore[operator]
        if late is not None:
            facts.update(late_text=late.text, late_text_s=late.first_s,
                         late_text_last_s=late.last_s)
            if late.still_arriving:
                facts["late_text_still_arriving"] = True
        self._last_item = (stem, verdict.settled_at or self.clock())
        return verdict, facts

    def _early_facts(self, early: list[Any]) -> dict[str, Any]:
        """What an item records of the item before's late text found in its document."""
        facts: dict[str, Any] = {"text": early[-1].text}
        if self._last_item is not None:
            facts.update(item=self._last_item[0],
                         after_its_decision_s=round(early[0].at - self._last_item[1], 3))
        return facts

    def _guard(self, document: Any, verdict: Verdict) -> LateText | None:
        """The item goes on until its settled document has been quiet ``late_guard_s``
        (at most ``late_max_s``): its late text, if any (:mod:`.boundary`)."""
        cfg = self.config
        if cfg.late_guard_s <= 0 or verdict.settled_at is None:
            return None
        while True:
            late = watch_late(document.snapshots(), text=verdict.text,
                              final_at=verdict.final_text_at, decided=verdict.settled_at,
                              now=self.clock(), quiet_s=cfg.late_guard_s,
                              max_s=cfg.late_max_s)
            if late is not WAITING:
                return late  # type: ignore[return-value]
            time.sleep(cfg.poll_s)

    def _settle(self, document: Any, start: float, audio_end: float, heard: float
                ) -> Verdict:
        while True:
            code = self._app.exit_code() if self._app is not None else None
            verdict = settle(document.snapshots(), audio_end=audio_end, now=self.clock(),
                             rule=self.config.rule, start=start)
            if code is not None:
                self._relaunch = True
                after = round(self.clock() - heard, 3)
                crash = CaptureError(f"the app {exit_reason(code)} during the item (about "
                                     f"{after:.1f} s after the first audible sample); the "
                                     "next item relaunches it")
                crash.kept = {"desktop": {  # type: ignore[attr-defined]
                    "platform": self.backend.platform, "settle": "app_exited",
                    "app_exit_code": code, "app_exited_s": after,
                    **timings(verdict, heard, audio_end), "last_text": verdict.text}}
                raise crash
            if verdict.state != "waiting":
                return verdict
            time.sleep(self.config.poll_s)

    def _wait_until(self, moment: float) -> None:
        left = moment - self.clock()
        if left > 0:
            time.sleep(left)

    # -- the app ------------------------------------------------------------------------

    def _ensure_app(self) -> None:
        if self.config.relaunch == "never":
            if self._app is None:
                check_grab(self.backend, self.config, want_held=True, clock=self.clock)
                self._app = OperatorsApp()
            return
        if self._app is not None and self._app.exit_code() is None and not self._relaunch:
            return
        if self._failed_launches >= MAX_LAUNCH_FAILURES:
            raise CaptureError(f"not launched again: the app failed to get ready "
                               f"{self._failed_launches} times in a row ({self._last_failure})")
        if self._app is not None:
            self._app.stop()
            self._app = None
        check_grab(self.backend, self.config, want_held=False, clock=self.clock)
        log = self.config.app_log(self.outputs)
        watch = LogWatch.at_end(log)
        self._app = self.backend.launch(self.config.app, log)
        self._relaunch = False
        try:
            if self.config.ready:
                wait_ready(self._app, self.config.ready, watch, self.config.launch_wait_s,
                           self.backend.window_titles)
            else:
                time.sleep(self.config.launch_wait_s)  # no readiness setting: a fixed wait
                code = self._app.exit_code()
                if code is not None:
                    raise CaptureError(f"the app {self.config.app[0]!r} {exit_reason(code)} "
                                       f"right after its launch (its output: {log})")
        except CaptureError as exc:
            self._relaunch = True  # an app that never got ready is stopped next time
            self._failed_launches += 1
            self._last_failure = str(exc)
            raise
        self._failed_launches = 0

    def close(self) -> None:
        """Stop the app the rig launched, take the audio route down, free the display
        (the next product's turn, or the end of the run)."""
        with contextlib.suppress(Exception):  # at exit the display may be gone already
            if self._app is not None:
                self._app.stop()
                self._app = None
            self.backend.close()
        if self._claim is not None:
            with contextlib.suppress(Exception):
                self._claim.close()
            self._claim = None
        if _HOLDER and _HOLDER[0] is self:
            _HOLDER.clear()
