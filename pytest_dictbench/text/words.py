"""Splitting normalised text into words for WER, per language.

* Languages written with spaces: the words are the space-separated tokens.
* Japanese (``ja``): sudachipy morphemes, core dictionary, split mode B (the tokenizer
  of :mod:`.japanese`), spaces and symbols dropped. Spaces between two non-ASCII
  characters are removed first (``明 日 の`` is ``明日の``): Japanese puts none between
  words, so a space there is no word break; between Latin words they are kept. A WER
  is only comparable with WERs from the same tokenizer, mode and dictionary, so
  :func:`segmenter_name` says which.
* Other languages written without spaces (``zh``, ``th``, ``lo``, ``km``, ``my``): no
  segmenter is defined here, so there is no WER (``None``); use CER.

Example::

    >>> words("明日の会議は10時からです", "ja")
    ['明日', 'の', '会議', 'は', '10', '時', 'から', 'です']
"""

from __future__ import annotations

import re
from importlib import metadata

from .japanese import tokenize

__all__ = ["NO_SPACE_LANGUAGES", "segmenter_name", "words"]

#: Whitespace between two non-ASCII characters (removed before Japanese segmentation).
_CJK_SPACES = re.compile(r"(?<=[^\x00-\x7f])\s+(?=[^\x00-\x7f])")

#: Languages written without spaces between words.
NO_SPACE_LANGUAGES = frozenset({"ja", "zh", "th", "lo", "km", "my"})


def words(normalized: str, language: str) -> list[str] | None:
    """The words of already normalised text, or ``None`` when ``language`` has no
    segmenter (see the module docstring)."""
    if language == "ja":
        joined = _CJK_SPACES.sub("", normalized)
        return [t.surface for t in tokenize(joined) if not t.is_space and not t.is_symbol]
    if language in NO_SPACE_LANGUAGES:
        return None
    return normalized.split()


def segmenter_name(language: str) -> str | None:
    """What splits words for ``language``, with versions where they matter."""
    if language == "ja":
        return (f"sudachipy {_version('sudachipy')}, mode B, dictionary sudachidict_core "
                f"{_version('sudachidict_core')}")
    if language in NO_SPACE_LANGUAGES:
        return None
    return "whitespace"


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"
