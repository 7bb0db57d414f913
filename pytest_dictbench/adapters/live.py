"""Live adapters: capture a product's output on a cache miss, then keep it in the cache.

A :class:`LiveAdapter` wraps a :class:`Transcriber` (a command, an HTTP service,
faster-whisper, a Python callable). For each item it

1. returns the cached output of the case and repetition when there is a usable one
   (``complete``, ``not_tested`` or ``unsupported``; error lines are retried),
   and ``None`` (not tested) for a case without ``audio`` (a rig correction fixture,
   which has a ``seed`` instead, is captured without audio),
2. otherwise checks the case's audio (exists, decodes, matches the suite's sha256),
3. gives the transcriber one unscored warm-up per adapter instance,
4. times the capture, writes the output line with its capture metadata to the cache
   (atomically, see :mod:`.capture_cache`) and returns it.

Audio problems and configuration problems raise (the item errors, nothing is cached);
a failing product gives an ``error`` output, which is cached and retried next run (a
:class:`CaptureError` with a ``kept`` mapping adds its record fields that are kept on
every line, such as a desktop rig's ``desktop`` facts).

A transcriber returns the text, or a *transcript record* (a mapping), read by
:func:`.transcript.transcript_record`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..audio.io import AudioError, read_audio, sha256_file
from ..audio.length import audio_seconds
from ..environment import detect_environment
from ..errors import CaptureError, DictbenchError
from ..model import Case, Output, Product, Suite
from ..products import output_from_line, outputs_file
from ..redact import register_settings_secrets, scrub
from ..suites import MANIFEST, inside, unpaired_surrogate
from .base import AdapterOptions
from .capture_cache import CaptureCache
from .settings import public_settings
from .transcript import KEPT_FIELDS, transcript_record

__all__ = ["CaptureRequest", "LiveAdapter", "Transcriber", "offline_audit", "transcript_record",
           "warmup_audio"]

#: Settings that do not change what a product outputs, so cached lines stay valid
#: when they change.
UNCOMPARED_SETTINGS = frozenset({"outputs", "timeout_s", "capture_group", "concurrency"})


@dataclass(frozen=True)
class CaptureRequest:
    """What a transcriber is asked to transcribe."""

    #: Case id (for a warm-up: the id of the case whose audio is borrowed, or "warmup").
    case_id: str
    #: Absolute path of the audio file (``None`` for a correction, which has a seed).
    audio: Path | None
    #: The suite's BCP 47 locale, e.g. ``en-US``.
    locale: str
    #: True for the unscored warm-up capture.
    warmup: bool = False
    #: The case's ``context`` (names, vocabulary, situation), "" when it has none.
    context: str = ""
    #: A rig correction: the seeded text file to correct, and the exact target's file.
    seed: Path | None = None
    target: Path | None = None

    def audio_path(self) -> Path:
        """The audio file; a transcriber that needs audio asks here (a correction has
        none, which is a capture error for it)."""
        if self.audio is None:
            raise CaptureError(f"case {self.case_id!r} has no audio (a correction is made on "
                               "its seed text); this adapter kind only transcribes audio")
        return self.audio

    def fill(self, template: str) -> str:
        """``template`` with ``{context}`` replaced by the case's context (one pass)."""
        return template.replace("{context}", self.context)

    @property
    def language(self) -> str:
        """The locale's language subtag in lower case (``en-US`` -> ``en``)."""
        return self.locale.split("-", 1)[0].lower()


@runtime_checkable
class Transcriber(Protocol):
    """Turns one audio file into text; one per live adapter instance."""

    #: Whether :meth:`transcribe` decodes the audio itself (so a corrupt file fails
    #: there). When false, the live adapter decodes it once before sending it.
    decodes_audio: bool

    def describe(self) -> Mapping[str, Any]:
        """Capture metadata: ``engine``, ``engine_version``, ``model`` and any extras."""
        ...

    def transcribe(self, request: CaptureRequest) -> str | Mapping[str, Any]:
        """The product's text or transcript record (see module doc); raise
        :class:`CaptureError` when the product fails."""
        ...


@dataclass(frozen=True)
class _Audio:
    path: Path
    sha256: str
    duration_s: float


class LiveAdapter:
    """Cache lookup, capture on a miss, warm-up and capture metadata (see module doc)."""

    def __init__(self, product: Product, suite: Suite, options: AdapterOptions,
                 make_transcriber: Callable[[], Transcriber]) -> None:
        self.product, self.suite, self.options = product, suite, options
        self.cache = CaptureCache(outputs_file(product, suite), suite,
                                  max_text_chars=options.max_text_chars)
        self._cached = self.cache.read()
        self._captured: dict[tuple[str, int], Output] = {}
        self._make_transcriber = make_transcriber
        self._transcriber: Transcriber | None = None
        self._engine: dict[str, Any] = {}
        self._setup_error: DictbenchError | None = None
        self._warmup_state = "pending" if options.warmup else "disabled"
        self._block: int | None = None
        self._settings = public_settings(product.settings)
        self._listed_sha = {_norm(f.path): f.sha256 for f in suite.files if f.sha256}
        self._digests: dict[Path, str] = {}
        #: Number of measured captures and warm-ups made by this instance.
        self.captures = 0
        self.warmups = 0

    def get(self, case: Case, repetition: int) -> Output | None:
        key = (case.id, repetition)
        if key in self._captured:
            return self._captured[key]
        cached = None if self.options.recapture else self._cached.get(key)
        if cached is not None and not cached.is_error:
            self._check_fresh(cached, case)
            if not self.options.offline_audit or "offline_audit" in cached.meta:
                return cached
            if cached.status != "complete":
                cached = None  # captured before the audit was asked for: capture again
        else:
            cached = None
        locale = str(case.data.get("locale") or self.suite.locale)
        if isinstance(case.data.get("seed_path"), str):  # a rig correction: no audio
            request = CaptureRequest(
                case.id, None, locale, seed=self._inside(case.data["seed_path"]),
                target=self._inside(case.data["reference_path"]))
            output = self._audit_cached(self._ready(), request, cached) if cached else \
                self._capture(self._ready(), repetition, request, None)
        elif isinstance(case.data.get("audio"), str):
            audio = self._audio(case)
            transcriber = self._ready()
            if not transcriber.decodes_audio:
                read_audio(audio.path)
            request = CaptureRequest(case.id, audio.path, locale,
                                     context=str(case.data.get("context", "")))
            output = self._audit_cached(transcriber, request, cached) if cached else \
                self._capture(transcriber, repetition, request, audio)
        else:
            return None  # nothing to play to the product: not tested
        self._captured[key] = output
        return output

    # -- capture ------------------------------------------------------------------------

    def _capture(self, transcriber: Transcriber, repetition: int, request: CaptureRequest,
                 audio: _Audio | None) -> Output:
        """Capture one item (``audio`` is None for a correction) and cache its line."""
        started = _utc_now()
        start = time.perf_counter()
        answer: Any = None
        error: str | None = None
        kept: Any = None
        try:
            answer = transcriber.transcribe(request)
        except CaptureError as exc:
            error = str(exc)
            kept = getattr(exc, "kept", None)  # what the transcriber saw before it failed
        except (AudioError, DictbenchError):
            raise
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - start
        self.captures += 1
        register_settings_secrets(self.product.settings)
        status, text, fields = "error", None, {}
        if isinstance(kept, Mapping):
            fields = {k: v for k, v in kept.items() if k in KEPT_FIELDS and
                      isinstance(v, Mapping)}
        if error is None:
            try:
                status, text, error, fields = transcript_record(answer)
            except ValueError as exc:
                error = str(exc)
        seconds = fields.pop("latency_s", seconds)  # measured by the transcriber itself
        scrubbed = scrub(text) if isinstance(text, str) else text
        redacted = scrubbed != text  # the score is of a changed text: flagged on the item
        text = scrubbed
        error = scrub(error) if error is not None else None
        if "stderr" in fields:
            fields["stderr"] = scrub(fields["stderr"])
        if status == "complete" and isinstance(text, str) and unpaired_surrogate(text):
            error = f"transcript {unpaired_surrogate(text)}"
            text = text.encode("utf-8", "replace").decode("utf-8")
        elif status == "complete" and text is not None \
                and len(text) > self.options.max_text_chars:
            error = (f"transcript has {len(text):,} characters, more than the limit of "
                     f"{self.options.max_text_chars:,} (--dictbench-max-text-chars)")
        if status == "complete" and error is not None:
            status = "error"
        ok = status == "complete"
        duration = audio.duration_s if audio else None
        line: dict[str, Any] = {
            **self._engine,  # first, so that it cannot override the fields below
            "case_id": request.case_id,
            "repetition": repetition,
            "status": status,
            "text": text if ok else None,
            "error": error,
            "latency_ms": round(seconds * 1000, 3) if ok else None,
            "rtf": round(seconds / duration, 6) if ok and duration else None,
            "started_utc": started,
            "product_version": self.product.version,
            "settings": self._settings,
            "audio_sha256": audio.sha256 if audio else None,
            "audio_duration_s": round(duration, 6) if duration is not None else None,
            "warmup": self._warmup_state,
            "environment": detect_environment(),
            **(fields if ok else {k: v for k, v in fields.items() if k in KEPT_FIELDS}),
            **({"redacted": True} if redacted and ok else {}),
        }
        if self.options.offline_audit and ok:
            self.cache.put(line)  # kept before the audit starts: a kill during it loses
            line["offline_audit"] = offline_audit(transcriber, request, text)  # nothing
        self.cache.put(line)
        return output_from_line(line, f"{self.cache.path} (captured now)")

    def _audit_cached(self, transcriber: Transcriber, request: CaptureRequest,
                      cached: Output) -> Output:
        """The offline audit of a complete capture cached without one (a run stopped
        during its audit, or one made without ``--dictbench-offline-audit``): the
        capture is kept as it is, only the audit is made and added to its line."""
        line: dict[str, Any] = {**cached.meta, "case_id": cached.case_id,
                                "repetition": cached.repetition, "status": cached.status,
                                "text": cached.text, "error": cached.error,
                                "latency_ms": cached.latency_ms}
        line["offline_audit"] = offline_audit(transcriber, request, cached.text)
        self.cache.put(line)
        return output_from_line(line, f"{cached.origin} (audited now)")

    def _inside(self, relative: str) -> Path:
        """A file the suite lists, as an absolute path inside the suite folder."""
        return inside(self.suite.root, relative, what="fixture file",
                      where=self.suite.root / MANIFEST).resolve()

    def start_block(self, block: int) -> None:
        """Items of rig block ``block`` follow: when it is a new one, the next capture
        is preceded by a warm-up again (the methodology warms up at every block)."""
        if block != self._block and self._block is not None and self.options.warmup:
            self._warmup_state = "pending"
        self._block = block

    def _ready(self) -> Transcriber:
        """The transcriber, created on first use and warmed up once."""
        if self._setup_error is not None:
            raise self._setup_error
        if self._transcriber is None:
            try:
                transcriber = self._make_transcriber()
                self._engine = {"engine": None, "engine_version": None, "model": None,
                                **transcriber.describe()}
            except DictbenchError as exc:
                self._setup_error = exc
                raise
            self._transcriber = transcriber
        if self._warmup_state == "pending":
            self._warmup_state = self._warm_up(self._transcriber)
        return self._transcriber

    def _warm_up(self, transcriber: Transcriber) -> str:
        """One unscored capture; its result is discarded. Returns the warm-up state."""
        try:
            found = warmup_audio(self.suite)
            if found is None:
                return "skipped: no audio"
            case_id, path = found
            if not transcriber.decodes_audio:
                read_audio(path)
            self.warmups += 1
            transcriber.transcribe(CaptureRequest(case_id, path.resolve(), self.suite.locale,
                                                  warmup=True))
        except Exception as exc:
            return f"failed: {exc}"
        return "done"

    # -- audio and cache freshness ------------------------------------------------------

    def _audio(self, case: Case) -> _Audio:
        relative = case.data["audio"]
        path = (self.suite.root / relative).resolve()
        # the length present, as the limits and bills count it, not the header's (PV26)
        seconds = audio_seconds(path)
        digest = self._digest(path)
        listed = self._listed_sha.get(_norm(relative))
        if listed is not None and listed != digest:
            raise CaptureError(f"audio sha256 is {digest}, but the suite lists {listed}",
                               path=path)
        return _Audio(path, digest, seconds)

    def _digest(self, path: Path) -> str:
        """The file's SHA-256, once per file and adapter (repetitions share audio)."""
        if path not in self._digests:
            self._digests[path] = sha256_file(path)
        return self._digests[path]

    def _check_fresh(self, cached: Output, case: Case) -> None:
        """Refuse a cached output captured under another version, settings or audio."""
        meta = cached.meta
        problems = []
        if "product_version" in meta and meta["product_version"] != self.product.version:
            problems.append(f"product version {meta['product_version']!r} "
                            f"(now {self.product.version!r})")
        if "settings" in meta and _compared(meta["settings"]) != _compared(self._settings):
            problems.append("other settings")
        relative = case.data.get("audio")
        if "audio_sha256" in meta and isinstance(relative, str):
            path = (self.suite.root / relative).resolve()
            if path.is_file() and self._digest(path) != meta["audio_sha256"]:
                problems.append("different audio")
        if problems:
            raise CaptureError(
                f"cached output ({cached.origin}) was captured with {' and '.join(problems)}; "
                "run with --recapture to replace it")


def offline_audit(transcriber: Transcriber, request: CaptureRequest, text: str | None
                  ) -> dict[str, Any]:
    """Capture again with no network; whether it completed and gave the same text."""
    again = getattr(transcriber, "transcribe_offline", None)
    if again is None:
        return {"completed": False, "text_matched": False,
                "reason": "this adapter kind cannot be audited offline"}
    try:
        offline = again(request)
    except CaptureError as exc:
        return {"completed": False, "text_matched": False, "reason": str(exc)}
    try:
        status, offline_text, error, _ = transcript_record(offline)
    except ValueError as exc:
        return {"completed": False, "text_matched": False, "reason": str(exc)}
    if status != "complete" or error:  # the product itself said it did not finish
        return {"completed": False, "text_matched": False,
                "reason": f"{status}: {error}" if error else status}
    return {"completed": True, "text_matched": offline_text == text, "reason": None}


def warmup_audio(suite: Suite) -> tuple[str, Path] | None:
    """The audio for the warm-up capture, with the case id to pass along.

    The manifest's ``warmup_audio`` (a path inside the suite folder) when declared,
    otherwise the first case that has audio.
    """
    declared = suite.manifest.get("warmup_audio")
    if isinstance(declared, str):
        where = suite.root / MANIFEST
        return "warmup", inside(suite.root, declared, what="warmup_audio", where=where)
    for case in suite.cases:
        if isinstance(case.data.get("audio"), str):
            return case.id, suite.root / case.data["audio"]
    return None


def _compared(settings: Any) -> Any:
    if not isinstance(settings, Mapping):
        return settings
    return {k: v for k, v in settings.items() if k not in UNCOMPARED_SETTINGS}


def _norm(relative: str) -> str:
    return Path(relative).as_posix().removeprefix("./")


def _utc_now() -> str:
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
