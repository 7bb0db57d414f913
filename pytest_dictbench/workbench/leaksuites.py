"""The private suites leak-check looks for: their text as n-grams, their audio by digest
and length, their canary."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..audio.io import sha256_file
from ..errors import DictbenchError
from ..suites import MANIFEST, load_suite, read_toml
from .leakpatterns import MIN_POINT, NGRAM, tokens
from .leakwalk import SKIP_DIRS

__all__ = ["PrivateSuite", "audio_duration", "find_private_suites"]


@dataclass
class PrivateSuite:
    """What leak-check looks for from one private suite."""

    id: str
    root: Path
    canary: bytes
    grams: dict[tuple[str, ...], str] = field(default_factory=dict)
    audio: dict[str, str] = field(default_factory=dict)  # sha256 -> public case id
    sizes: set[int] = field(default_factory=set)
    durations: dict[float, str] = field(default_factory=dict)  # seconds -> public id

    @classmethod
    def load(cls, path: Path) -> PrivateSuite:
        suite = load_suite(path)
        found = cls(suite.id, suite.root.resolve(), suite.canary.encode("utf-8"))
        # drafts too (``dictbench draft --private`` makes nothing else); a case is named
        # by its line in the cases file: its id is private, and its keyed public id
        # would need the suite's secret, which leak-check neither needs nor creates
        for case in (*suite.cases, *suite.drafts):
            shown = f"at line {case.line}"
            texts = [str(case.data.get(k, "")) for k in ("reference", "transcript", "script",
                                                          "verbatim")]
            texts += [str(p.get("text", "")) for p in case.data.get("key_points", ())
                      if isinstance(p, dict)]
            texts += [str(e) for e in case.data.get("expected", ()) if isinstance(e, str)]
            for text in texts:
                found.add_text(text, shown)
            audio = case.data.get("audio")
            if isinstance(audio, str) and (suite.root / audio).is_file():
                path = suite.root / audio
                found.audio[sha256_file(path)] = shown
                found.sizes.add(path.stat().st_size)
                seconds = audio_duration(path)
                if seconds:
                    found.durations[seconds] = shown
        return found

    def add_text(self, text: str, shown: str) -> None:
        words = tokens(text)
        if len(words) >= NGRAM:
            for i in range(len(words) - NGRAM + 1):
                self.grams.setdefault(tuple(words[i:i + NGRAM]), shown)
        elif len(words) >= MIN_POINT:
            self.grams.setdefault(tuple(words), shown)

    def owns(self, path: Path) -> bool:
        return path.resolve().is_relative_to(self.root)


def find_private_suites(paths: Iterable[Path]) -> list[Path]:
    """Suite folders under ``paths`` whose manifest says ``private = true``."""
    found = set()
    for base in paths:
        if not base.is_dir():
            continue
        for manifest in base.rglob(MANIFEST):
            if SKIP_DIRS & set(manifest.parts):
                continue
            try:
                if read_toml(manifest).get("private") is True:
                    found.add(manifest.parent.resolve())
            except DictbenchError:
                continue
    return sorted(found)


def audio_duration(path: Path) -> float | None:
    """Seconds of audio in ``path`` (rounded to 0.01), or ``None`` when not audio."""
    import soundfile as sf

    try:
        info = sf.info(str(path))
    except (RuntimeError, OSError, ValueError):
        return None
    return round(info.frames / info.samplerate, 2) if info.samplerate else None
