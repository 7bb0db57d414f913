"""What every cloud provider kind shares: its settings, limits, key, request facts.

A provider module defines a :class:`Provider` (its name, documented API root, auth
header, known settings and options, limits per model) and a ``run`` function that
sends one capture through a :class:`~.client.Session` and returns a :class:`Result`.
:func:`provider_adapter` turns that into an adapter factory on the one live adapter
engine (:class:`~pytest_dictbench.adapters.live.LiveAdapter`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ...audio.length import audio_seconds
from ...errors import CaptureError, ProductError
from ...model import Product, Suite
from ...private import is_private
from ..base import AdapterOptions
from ..live import CaptureRequest
from ..settings import Settings
from .client import ProviderClient, Session, check_base_url, import_httpx
from .concurrent import DEFAULT_CONCURRENCY, Ahead, ProviderAdapter, timed
from .jobs import JobJournal, job_key
from .keys import read_key, refuse_inline_key
from .languages import language_problem, locale_problem
from .prices import Price, price_for

__all__ = ["AUDIO_TYPES", "OPTION_TYPES", "Audio", "Limits", "Provider", "Result",
           "provider_adapter"]

#: Content types of the audio formats suites use.
AUDIO_TYPES = {".wav": "audio/wav", ".flac": "audio/flac", ".mp3": "audio/mpeg",
               ".ogg": "audio/ogg", ".m4a": "audio/mp4", ".webm": "audio/webm",
               ".opus": "audio/ogg"}
#: Settings every provider kind accepts.
PROVIDER_SETTINGS = frozenset({"base_url", "api_key_env", "language", "options", "timeout_s",
                               "concurrency"})
#: Seconds a capture may take, polling included (``timeout_s``).
DEFAULT_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class Limits:
    """A model's documented input limits; ``None``: none known."""

    max_seconds: float | None = None
    max_bytes: int | None = None
    #: File suffixes accepted (lower case, with the dot); empty: any.
    formats: frozenset[str] = frozenset()
    #: How the limits are named in the reason ("the 25 MB upload limit").
    max_seconds_text: str = ""
    max_bytes_text: str = ""


@dataclass(frozen=True)
class Audio:
    """The audio of one capture as a provider sends it."""

    path: Path
    content: bytes
    content_type: str

    @cached_property
    def duration_s(self) -> float:
        """Length in seconds, counted from the bytes present where the format allows
        (:mod:`pytest_dictbench.audio.length`), when a provider bills by it."""
        return audio_seconds(self.path)


@dataclass
class Result:
    """What a provider answered: the text (``None``: the answer had none, an error) and
    the facts kept in the capture record (request id, model version, billed seconds,
    token usage)."""

    text: str | None
    facts: dict[str, Any] = field(default_factory=dict)
    #: Audio seconds billed (for the price), when the provider says.
    billed_seconds: float | None = None
    #: Token usage by kind (``input_audio``, ``input_text``, ``output``), when billed so.
    tokens: dict[str, int] = field(default_factory=dict)
    #: What the answer lacks when ``text`` is ``None`` (named in the error).
    missing: str = ""


Run = Callable[["ProviderTranscriber", Session, CaptureRequest, Audio], Result]


@dataclass(frozen=True)
class Provider:
    """One provider kind (see module doc)."""

    kind: str
    title: str
    default_base_url: str
    #: Header carrying the key, and its value with ``{key}``.
    auth: tuple[str, str]
    run: Run
    #: Provider options accepted in ``[settings.options]``, each with the type of value
    #: it takes (see :data:`OPTION_TYPES`), checked at load.
    options: Mapping[str, str] = field(default_factory=dict)
    #: Kind-specific settings beside :data:`PROVIDER_SETTINGS`.
    settings: frozenset[str] = frozenset()
    default_model: str | None = None
    #: Limits by model; ``"*"`` applies to models not listed.
    limits: Mapping[str, Limits] = field(default_factory=dict)
    #: Suite locale (``ja-JP``) -> the provider's language code.
    language: Callable[[str], str] = lambda locale: locale.split("-", 1)[0].lower()
    #: Kind-specific checks of the settings at load (raise the settings' error).
    check: Callable[[ProviderTranscriber], None] | None = None


#: Option value types: the check and how the message names it.
OPTION_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
    "number": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number"),
    "string": (lambda v: isinstance(v, str), "a string"),
    "strings": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
                "a list of strings"),
    "string or strings": (lambda v: isinstance(v, str) or (isinstance(v, list) and all(
        isinstance(x, str) for x in v)), "a string or a list of strings"),
    "object": (lambda v: isinstance(v, dict), "a table"),
    "objects": (lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v),
                "a list of tables"),
    "ints": (lambda v: isinstance(v, list) and all(
        isinstance(x, int) and not isinstance(x, bool) for x in v), "a list of whole numbers"),
}


class ProviderTranscriber:
    """A :class:`~pytest_dictbench.adapters.live.Transcriber` for one provider product."""

    decodes_audio = False

    def __init__(self, provider: Provider, settings: Settings, key: str | None) -> None:
        self.provider, self.settings = provider, settings
        self.model: str | None = settings.get("model", str, provider.default_model)
        if self.model is None:
            raise settings.error(f"[settings] model is required for adapter {provider.kind!r}")
        self.language: str | None = settings.get("language", str, None)
        problem = language_problem(provider.kind, provider.title, self.language) \
            if self.language is not None else None
        if problem:  # PV28
            raise settings.error(f"[settings] language {self.language!r}: {problem}")
        self.options: dict[str, Any] = dict(settings.get("options", dict, {}))
        unknown = sorted(set(self.options) - set(provider.options))
        if unknown:
            raise settings.error(
                f"[settings.options] has unknown option(s) {', '.join(unknown)} for "
                f"{provider.title} (known: {', '.join(sorted(provider.options)) or 'none'})")
        for name, value in sorted(self.options.items()):
            accepts, wanted = OPTION_TYPES[provider.options[name]]
            if not accepts(value):
                raise settings.error(f"[settings.options] {name} must be {wanted} for "
                                     f"{provider.title}, got {value!r}")
        base_url: str = settings.get("base_url", str, None) or _default_root(provider, settings)
        problem = check_base_url(base_url, key is not None or "api_key_env" in settings.values)
        if problem:
            raise settings.error(f"[settings] {problem}")
        self.limits = provider.limits.get(self.model) or provider.limits.get("*") or Limits()
        self.price: Price | None = price_for(provider.kind, self.model, settings.product.pricing)
        concurrency: int = settings.get("concurrency", int, DEFAULT_CONCURRENCY)
        if concurrency < 1:
            raise settings.error(f"[settings] concurrency must be at least 1, got {concurrency}")
        self.ahead = Ahead(concurrency)
        #: Jobs created and not yet seen finished (a killed run's, PV6).
        self.journal = JobJournal(settings.product.outputs_dir / "jobs.jsonl")
        #: Job ids this product's captures were given, with each one's case (PV8).
        self._jobs: dict[str, str] = {}
        self._jobs_lock = threading.Lock()
        self.client = ProviderClient(provider.title, base_url, key, provider.auth,
                                     settings.positive("timeout_s", DEFAULT_TIMEOUT_S))
        if provider.check is not None:
            try:
                provider.check(self)
            except BaseException:
                self.client.close()
                raise

    def claim_job(self, job_id: str, case_id: str) -> None:
        """Note that ``case_id``'s capture got ``job_id``. A job id the provider already
        gave another case of this run is an error naming both: its transcript would be
        that case's (a caching proxy or a provider fault, PV8)."""
        with self._jobs_lock:
            owner = self._jobs.setdefault(job_id, case_id)
        if owner != case_id:
            raise CaptureError(f"{self.provider.title} answered job id {job_id} for case "
                               f"{case_id!r}, the id it gave case {owner!r}: the transcript "
                               "would be that case's")

    def job_key(self, request: CaptureRequest, audio: Audio) -> str:
        """The journal key of this capture's job (see :mod:`.jobs`)."""
        return job_key(self.provider.kind, self.client.base_url, self.model, self.options,
                       self.language_code(request), audio.content)

    def describe(self) -> Mapping[str, Any]:
        return {"engine": self.provider.kind, "engine_version": None, "model": self.model}

    def language_code(self, request: CaptureRequest) -> str:
        """The setting ``language`` as given, else the suite locale in the provider's form."""
        return self.language or self.provider.language(request.locale)

    def transcribe(self, request: CaptureRequest) -> Mapping[str, Any]:
        """The capture started ahead for this request (see :mod:`.concurrent`), else one
        made now."""
        started = None if request.warmup else self.ahead.take(request)
        return started.result() if started is not None else timed(self.capture, request)

    def capture(self, request: CaptureRequest) -> Mapping[str, Any]:
        """One capture: limits checked, the provider's requests, its facts and price."""
        if request.warmup:  # a remote service needs no warming, and a warm-up would be billed
            return {"status": "not_tested", "error": "warm-up not sent to a cloud provider"}
        path = request.audio_path()
        refused = None if self.language else locale_problem(request.locale) \
            or self._code_problem(request)
        refused = refused or self._over_limit(path)
        if refused:
            return {"status": "unsupported", "error": refused}
        try:
            content = path.read_bytes()
        except OSError as exc:
            raise CaptureError(f"cannot read audio: {exc.strerror}", path=path) from None
        audio = Audio(path, content, AUDIO_TYPES.get(path.suffix.lower(),
                                                     "application/octet-stream"))
        session = self.client.session(f"{self.provider.kind}:{request.case_id}")
        result = self.provider.run(self, session, request, audio)
        facts = dict(result.facts)
        if session.waits:
            facts["retry_waits_s"] = list(session.waits)
        if session.holds:
            facts["rate_limit_holds_s"] = list(session.holds)
        facts["requests"] = session.requests
        if result.billed_seconds is not None:
            facts["billed_seconds"] = result.billed_seconds
        if result.tokens:
            facts["tokens"] = dict(result.tokens)
        facts.update(self._charge(result, audio))
        if result.text is None:
            raise CaptureError(f"{self.provider.title} answered without a transcript"
                               + (f" ({result.missing})" if result.missing else ""))
        return {"text": result.text.strip(), "provider": facts}

    def _charge(self, result: Result, audio: Audio) -> dict[str, Any]:
        """The capture's cost facts: ``cost_usd`` (``None``: unknown, ``cost_unknown``
        says why), the ``cost_basis``, the seconds the price billed when they differ
        from the answer's (a minimum, an increment), and the ``price`` used."""
        if self.price is None:
            return {"cost_usd": None,
                    "cost_unknown": f"no price for {self.provider.kind}.{self.model} "
                                    "(bundled table or [pricing])"}
        seconds = audio.duration_s if result.tokens and result.billed_seconds is None \
            and self.price.usd_per_audio_minute is not None else None
        charge = self.price.charge(result.billed_seconds, result.tokens, self.options, seconds)
        facts: dict[str, Any] = {"cost_usd": None, "cost_unknown": charge.basis} \
            if charge.cost is None else {"cost_usd": str(charge.cost), "cost_basis": charge.basis}
        facts["price"] = self.price.reference()
        if charge.seconds is not None and (result.billed_seconds is None or charge.seconds
                                           != Decimal(str(result.billed_seconds))):
            facts["priced_seconds"] = float(charge.seconds)
        return facts

    def _code_problem(self, request: CaptureRequest) -> str | None:
        """Why the code made from the suite locale is not in the provider's documented
        form (PV28), so that nothing is uploaded."""
        code = self.provider.language(request.locale)
        problem = language_problem(self.provider.kind, self.provider.title, code)
        return f"language {code!r} (from the suite locale {request.locale!r}): {problem}" \
            if problem else None

    def _over_limit(self, path: Path) -> str | None:
        """Why the audio is over the model's documented limits, with the figures
        (nothing is sent then)."""
        limits, model = self.limits, self.model
        if limits.formats and path.suffix.lower() not in limits.formats:
            return (f"{path.suffix or 'no suffix'} audio is not a format {model} accepts "
                    f"({', '.join(sorted(limits.formats))})")
        size = path.stat().st_size
        if limits.max_bytes is not None and size > limits.max_bytes:
            text = limits.max_bytes_text or f"{limits.max_bytes:,}-byte"
            return (f"{size:,} bytes, over {model}'s {text} limit ({limits.max_bytes:,} "
                    "bytes)")
        if limits.max_seconds is not None:
            seconds = audio_seconds(path)  # a header can understate it (PV26)
            if seconds > limits.max_seconds:
                text = limits.max_seconds_text or f"{limits.max_seconds:g}-second"
                return (f"{seconds:.1f} s, over {model}'s {text} limit "
                        f"({limits.max_seconds:g} s)")
        return None


def _default_root(provider: Provider, settings: Settings) -> str:
    """The documented API root; a regional one (``{region}``) needs ``region``."""
    root = provider.default_base_url
    if "{region}" not in root:
        return root
    region = settings.get("region", str, None)
    if region is None:
        raise settings.error(f"[settings] adapter {provider.kind!r} needs region (such as "
                             "'japaneast') or base_url (the resource's endpoint)")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,62}", region):
        raise settings.error(f"[settings] region must be a region name such as 'japaneast', "
                             f"got {region!r}")
    return root.format(region=region)


#: The ``suite.toml`` setting of a private suite listing the cloud kinds its audio may
#: be sent to (docs/providers.md, "Private suites").
CLOUD_OPT_IN = "cloud_providers"


def _check_private(provider: Provider, product: Product, suite: Suite, base_url: str) -> None:
    """A private suite's audio goes to a cloud provider only when the suite lists the
    kind in :data:`CLOUD_OPT_IN`; otherwise the product is refused at load."""
    if not is_private(suite) or provider.kind in suite.manifest.get(CLOUD_OPT_IN, ()):
        return
    parts = urlsplit(base_url)
    raise ProductError(
        f"suite {suite.id!r} is private: its audio would be sent to {provider.title} at "
        f"{parts.scheme}://{parts.netloc}; to allow it, add {CLOUD_OPT_IN} = "
        f"[\"{provider.kind}\"] to {suite.root / 'suite.toml'}", path=product.path)


def provider_adapter(provider: Provider) -> Callable[[Product, Suite, AdapterOptions],
                                                     ProviderAdapter]:
    """The adapter factory of ``provider``: settings checked at collection, the key read
    from the environment variable named by ``api_key_env`` when the first item runs."""
    known: Iterable[str] = PROVIDER_SETTINGS | provider.settings

    def factory(product: Product, suite: Suite, options: AdapterOptions) -> ProviderAdapter:
        refuse_inline_key(product)
        settings = Settings(product, known)
        key_env: str | None = settings.get("api_key_env", str, None)
        concurrency = settings.get("concurrency", int, DEFAULT_CONCURRENCY)
        try:
            import_httpx()
        except ProductError as missing:  # this product's items fail, the others run (PV15)
            why = str(missing)

            def unavailable() -> ProviderTranscriber:
                raise CaptureError(why)

            return ProviderAdapter(product, suite, options, unavailable,
                                   concurrency=concurrency)
        checked = ProviderTranscriber(provider, settings, None)  # check settings now
        checked.client.close()
        _check_private(provider, product, suite, checked.client.base_url)

        def make() -> ProviderTranscriber:
            return ProviderTranscriber(provider, settings, read_key(product, key_env))

        return ProviderAdapter(product, suite, options, make, concurrency=concurrency)

    factory.__doc__ = f"Adapter factory for ``adapter = {provider.kind!r}`` ({provider.title})."
    return factory
