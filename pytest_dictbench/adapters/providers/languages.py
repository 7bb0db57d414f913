"""Each provider kind's documented form of a language code (finding PV28).

A code outside the form is refused before anything is sent: a ``[settings] language``
at load (a product error naming the file), a code made from the suite locale as an
``unsupported`` item. Where a provider publishes the form of its code, that form is
checked (OpenAI: ISO 639-1; AssemblyAI: ISO 639-1 and ``en_us``-style variants;
Speechmatics: ISO codes and bilingual packs; Azure: full locales; Deepgram: BCP 47 tags
or ``multi``; ElevenLabs: ISO 639-1 or 639-3); Gemini, whose code goes into the
instruction text, is checked for the shape of a BCP 47 tag only.
Per-language lists are not kept: they change more often than this table would
(docs/providers.md, "Language codes", names the sources and the date read).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["LANGUAGE_FORMS", "language_problem", "locale_problem"]

#: A BCP 47 language tag: a 2-3 letter language, an optional script and region.
_BCP47 = r"[a-z]{2,3}(-[a-z]{4})?(-([a-z]{2}|[0-9]{3}))?"


@dataclass(frozen=True)
class LanguageForm:
    """The codes a kind takes (matched whole, case ignored) and how its docs say it."""

    pattern: str
    text: str

    def fits(self, code: str) -> bool:
        return re.fullmatch(self.pattern, code, re.IGNORECASE) is not None


_SHAPE_ONLY = LanguageForm(_BCP47, "a BCP 47 tag such as 'ja' or 'ja-JP' (no list published "
                                   "for this kind's code is checked)")

#: The form by provider kind (sources in docs/providers.md, "Language codes").
LANGUAGE_FORMS: dict[str, LanguageForm] = {
    "openai": LanguageForm(r"[a-z]{2}", "an ISO 639-1 code such as 'en'"),
    "assemblyai": LanguageForm(r"[a-z]{2,3}(_[a-z]{2})?",
                               "an ISO 639-1 code such as 'es', or 'en_us', 'en_au', 'en_uk'"),
    "speechmatics": LanguageForm(r"auto|[a-z]{2,3}(_[a-z]{2,3})?",
                                 "an ISO language code such as 'en' or 'cmn', a bilingual "
                                 "pack such as 'cmn_en', or 'auto'"),
    "azure": LanguageForm(r"[a-z]{2,3}(-[a-z]{4})?-([a-z]{2}|[0-9]{3})",
                          "a full locale such as 'ja-JP'"),
    "deepgram": LanguageForm(f"multi|{_BCP47}", "a BCP 47 tag such as 'en' or 'en-US', or "
                                               "'multi'"),
    "elevenlabs": LanguageForm(r"[a-z]{2,3}", "an ISO 639-1 or 639-3 code such as 'ja' or "
                                              "'jpn'"),
    "gemini": _SHAPE_ONLY,
}


def language_problem(kind: str, title: str, code: str) -> str | None:
    """Why ``kind`` does not take ``code`` (its documented form), else None."""
    form = LANGUAGE_FORMS.get(kind, _SHAPE_ONLY)
    if form.fits(code):
        return None
    return f"{title} does not take it: its documented form is {form.text}"


def locale_problem(locale: str) -> str | None:
    """Why no provider takes the suite locale (a private-use or malformed tag), so that
    the item is unsupported before any upload (PV28); set ``language`` to send a code
    as given."""
    if _SHAPE_ONLY.fits(locale):
        return None
    return (f"locale {locale!r} is not a language a provider takes (language, optional "
            "script and region, such as ja-JP); set [settings] language to send a code as "
            "given")
