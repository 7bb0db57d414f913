"""The verbatim normalizer: text -> tokens in the canonical verbatim convention.

Conservative and idempotent (``normalize(normalize(x)) == normalize(x)``). Steps:

1. Unicode NFKC, curly apostrophes -> ``'``, lower case.
2. Tags. Anything in square brackets is a tag: ``[UH]``, ``[um]`` -> filler tokens
   ``[uh]`` / ``[um]``; known sound words -> their canonical name (``[laughs]``,
   ``[chuckles]`` -> ``[laughter]``; ``[clears throat]`` -> ``[throat_clear]``); any other
   content stays a tag with its words joined by ``_`` (``[door slams]`` ->
   ``[door_slams]``). Round brackets, angle brackets and ``*stars*`` become a tag only
   when their content is a known sound or filler (``(laughs)``, ``<cough>``); otherwise
   their content is ordinary text.
3. Digits -> words (see :mod:`.numbers`), so ``50%`` becomes ``fifty percent``.
4. Cut-offs. A word ending in exactly one ``*``, ``-`` or U+2010 right after a letter is
   a fragment: ``th-``, ``th*`` -> ``th*``. Em/en dashes and ``--`` mark a broken
   sentence, not a broken word, and are dropped like other punctuation.
5. Every character other than a letter, digit, combining mark or apostrophe becomes a
   space (so ``_`` and hyphens split words); apostrophes are kept inside words and
   dropped at word edges (``'cause`` -> ``cause``).
6. Bare fillers become filler tokens: ``uh``, ``uhh``, ``er`` -> ``[uh]``; ``um``, ``umm``,
   ``uhm``, ``erm``, ``hmm``, ``mm`` -> ``[um]``. ``ah``, ``eh``, ``oh`` and ``err`` stay
   words outside brackets (they are also interjections or verbs).

German (``language="de"``, a suite whose locale is ``de-*``): the same convention and the
same canonical tokens, with German spellings. Bare ``äh``, ``öh`` -> ``[uh]``; ``ähm``,
``öhm``, ``hm``, ``hmm``, ``mm`` -> ``[um]``; ``er`` and ``um`` stay words (the pronoun
and the preposition), and so do ``eh`` and ``ah``. Inside brackets the English and German
filler spellings are both fillers. Sound words in German map to the same names
(``[lacht]``, ``(lachen)`` -> ``[laughter]``, ``[hustet]`` -> ``[cough]``, ``[räuspert
sich]`` -> ``[throat_clear]``, ...). Digits are read in German (:mod:`.numbers_de`:
``21`` -> ``einundzwanzig``).
"""

from __future__ import annotations

import re
from typing import Literal

from ...text.normalize import fold, is_word_char
from .numbers import spell_out_numbers
from .numbers_de import spell_out_numbers_de

__all__ = [
    "CUTOFF_MARK",
    "FILLERS",
    "LANGUAGES",
    "SOUND_ALIASES",
    "SOUND_ALIASES_DE",
    "TokenKind",
    "language_of",
    "normalize",
    "normalize_tokens",
    "token_kind",
]

#: How the canonical convention marks a cut-off fragment.
CUTOFF_MARK = "*"
#: The canonical filler tokens.
FILLERS = frozenset({"[uh]", "[um]"})

#: Canonical sound-event names and the spellings (in words) mapped onto them.
SOUND_ALIASES: dict[str, tuple[str, ...]] = {
    "laughter": ("laughter", "laugh", "laughs", "laughing", "chuckle", "chuckles",
                 "chuckling", "giggle", "giggles", "giggling"),
    "cough": ("cough", "coughs", "coughing"),
    "breath": ("breath", "breaths", "breathing", "breathes", "inhale", "inhales",
               "inhaling", "exhale", "exhales", "exhaling", "breathes in", "breathes out",
               "deep breath"),
    "sigh": ("sigh", "sighs", "sighing"),
    "sniff": ("sniff", "sniffs", "sniffing", "sniffle", "sniffles"),
    "throat_clear": ("throat clear", "throat clearing", "clears throat",
                     "clears her throat", "clears his throat", "clearing throat"),
}
#: German spellings of the same sound events (never English words, so always known).
SOUND_ALIASES_DE: dict[str, tuple[str, ...]] = {
    "laughter": ("lachen", "lacht", "lachend", "gelächter", "kichern", "kichert"),
    "cough": ("husten", "hustet", "hüsteln", "hüstelt"),
    "breath": ("atmen", "atmet", "atemzug", "einatmen", "atmet ein", "ausatmen",
               "atmet aus", "atmet tief ein"),
    "sigh": ("seufzen", "seufzt", "seufzer"),
    "sniff": ("schniefen", "schnieft"),
    "throat_clear": ("räuspern", "räuspert sich", "räuspert"),
}
_SOUND_LOOKUP = {alias: name for table in (SOUND_ALIASES, SOUND_ALIASES_DE)
                 for name, aliases in table.items() for alias in aliases}

_UH_IN_TAG = re.compile(r"u+h+|e+r+|a+h+|e+h+|ä+h+|ö+h+")
_UM_IN_TAG = re.compile(r"u+h*m+|e+r+m+|h+m+|m{2,}|ä+h*m+|ö+h*m+")
#: Bare (unbracketed) filler spellings by language: ``(uh, um)``.
_BARE = {"en": (re.compile(r"u+h+|er"), re.compile(r"u+h*m+|e+r+m+|h+m+|m{2,}")),
         "de": (re.compile(r"ä+h+|ö+h+"), re.compile(r"ä+h*m+|ö+h*m+|h+m+|m{2,}"))}
#: Digits read aloud by language.
_SPELL = {"en": spell_out_numbers, "de": spell_out_numbers_de}
#: Languages with their own spellings; any other is normalized as English.
LANGUAGES = frozenset(_BARE)

# Square brackets always; other wrappers only around known tag words (checked later).
_WRAPPED = re.compile(
    r"\[(?P<square>[^\[\]]*)\]"
    r"|\((?P<round>[^()]*)\)"
    r"|<(?P<angle>[^<>]*)>"
    r"|(?<![\w*])\*(?P<star>[^*\s][^*]*?)\*(?![\w*])"
)
_CUT_MARKS = frozenset("-*\u2010")

TokenKind = Literal["word", "cutoff", "filler", "sound"]


def _plain_words(text: str, language: str = "en") -> list[str]:
    """Words of untagged text: digits spelled out, punctuation gone, edge ``'`` trimmed."""
    spelled = _SPELL[language](text)
    spaced = "".join(c if c == "'" or is_word_char(c) else " " for c in spelled)
    return [w for w in (raw.strip("'") for raw in spaced.split()) if w]


def _filler(words: str, in_tag: bool, language: str = "en") -> str | None:
    bare_uh, bare_um = _BARE[language]
    if (_UH_IN_TAG if in_tag else bare_uh).fullmatch(words):
        return "[uh]"
    if (_UM_IN_TAG if in_tag else bare_um).fullmatch(words):
        return "[um]"
    return None


def _tag(content: str, *, known_only: bool, language: str = "en") -> str | None:
    """The canonical tag for bracket content, or ``None`` (unknown/empty, see callers)."""
    words = _plain_words(content.replace("_", " "), language)
    if not words:
        return None
    key = " ".join(words)
    filler = _filler(key, in_tag=True)
    if filler:
        return filler
    if key in _SOUND_LOOKUP:
        return f"[{_SOUND_LOOKUP[key]}]"
    return None if known_only else "[" + "_".join(words) + "]"


def _word_tokens(raw: str, language: str = "en") -> list[str]:
    """Tokens of one whitespace-separated piece of untagged text."""
    end = len(raw)
    while end and not (raw[end - 1] in _CUT_MARKS or is_word_char(raw[end - 1])):
        end -= 1
    core = raw[:end]
    cut = len(core) >= 2 and core[-1] in _CUT_MARKS and is_word_char(core[-2])
    words = _plain_words(core[:-1] if cut else core, language)
    tokens = [_filler(word, in_tag=False, language=language) or word for word in words]
    if cut and tokens:
        tokens[-1] = words[-1] + CUTOFF_MARK
    return tokens


def _plain_tokens(text: str, language: str = "en") -> list[str]:
    # Numbers first, so that "50%" keeps its sign; a digit fragment ("20-") is no cut-off.
    spelled = _SPELL[language](text)
    return [token for raw in spelled.split() for token in _word_tokens(raw, language)]


def language_of(locale: str) -> str:
    """The normalizer's language for a BCP 47 locale (``de-DE`` -> ``de``; English for
    any language without spellings of its own)."""
    language = locale.split("-", 1)[0].lower()
    return language if language in LANGUAGES else "en"


def normalize_tokens(text: str, language: str = "en") -> list[str]:
    """Normalize ``text`` into canonical verbatim tokens (see the module docstring);
    ``language`` is ``en`` or ``de`` (:func:`language_of`)."""
    if language not in LANGUAGES:
        raise ValueError(f"no verbatim spellings for language {language!r} "
                         f"(have: {', '.join(sorted(LANGUAGES))})")
    text = fold(text)
    tokens: list[str] = []
    start = 0
    for match in _WRAPPED.finditer(text):
        tokens += _plain_tokens(text[start:match.start()], language)
        start = match.end()
        square = match["square"]
        if square is not None:
            tag = _tag(square, known_only=False, language=language)
            if tag:
                tokens.append(tag)
            continue
        content = match["round"] or match["angle"] or match["star"] or ""
        tag = _tag(content, known_only=True, language=language)
        tokens += [tag] if tag else _plain_tokens(content, language)
    tokens += _plain_tokens(text[start:], language)
    return tokens


def normalize(text: str, language: str = "en") -> str:
    """Normalized text: :func:`normalize_tokens` joined by single spaces."""
    return " ".join(normalize_tokens(text, language))


def token_kind(token: str) -> TokenKind:
    """Surface kind of a normalized token: filler/sound tag, cut-off fragment or word."""
    if token.startswith("["):
        return "filler" if token in FILLERS else "sound"
    if token.endswith(CUTOFF_MARK):
        return "cutoff"
    return "word"
