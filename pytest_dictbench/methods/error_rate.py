"""``error_rate``: WER, CER and strict edit distance against a reference text.

Per item, the output is compared with each reference (``reference`` or the list
``references``) and the reference giving the fewest word (or character) errors is kept.
Counts are those of a minimal edit alignment (rapidfuzz's Levenshtein edit operations,
the alignment jiwer reports; a test checks them against jiwer) after
:func:`~pytest_dictbench.text.normalize.normalize_for_wer`
(an apostrophe between letters, curly or typed as a backtick, keeps ``isn`t`` one word:
``isn't``). Words come from :func:`~pytest_dictbench.text.words.words`: spaces for
most languages; for Japanese (``ja``) sudachipy morphemes (core dictionary, mode B,
recorded in the report), since splitting on spaces would make the WER a sentence error
rate; other languages written without spaces (``zh``, ``th``, ...) have no WER (``None``)
and score by CER.
the strict edit distance is a character Levenshtein distance on the raw texts (only
line endings normalised). Corpus figures pool the counts over items:
``WER = sum(S + D + I) / sum(reference words)``.

Parameters (``[params]`` in ``suite.toml``):

- ``threshold`` (default 0.15): an item passes when its error rate is at or below it;
- ``unit``: ``"word"`` (WER, default) or ``"char"`` (CER, for languages written
  without spaces; the default for ``ja``, ``zh``, ``th`` locales; ``word`` is refused
  where no word segmenter is defined);
- ``normalization``: ``"default"`` (above), ``"rig-v1"``, the rig methodology's
  (:mod:`~pytest_dictbench.text.rig`: every apostrophe deleted, words from ICU's
  word segmenter with the suite's locale), or ``"whisper"`` for English suites, the
  Whisper English normaliser as the Open ASR Leaderboard applies it
  (:mod:`~pytest_dictbench.text.whisper`, extra ``normalizer``; its package version is
  recorded in the suite's tables).

Item score = 100 x (1 - rate), floored at 0. An empty reference has no errors when the
output is empty too, otherwise every output token is an insertion (rate 1 per token is
not defined, so the rate is reported as the insertion count, like jiwer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz.distance import Levenshtein

from ..errors import SuiteError
from ..model import Case, ItemResult, Output, RuleScore, ScoreContext, Suite
from ..text.normalize import normalize_for_wer, strict_text
from ..text.rig import word_tokens
from ..text.whisper import whisper_english, whisper_normalizer_info
from ..text.words import NO_SPACE_LANGUAGES, segmenter_name, words
from .base import ItemRecord

__all__ = ["EditCounts", "ErrorRate", "char_counts", "word_counts"]


@dataclass(frozen=True)
class EditCounts:
    """Substitutions, deletions and insertions against a reference of ``ref_len`` tokens."""

    ref_len: int
    sub: int
    dele: int
    ins: int

    @property
    def errors(self) -> int:
        return self.sub + self.dele + self.ins

    @property
    def rate(self) -> float:
        # An empty reference: no tokens to be wrong about, so the rate is the number
        # of inserted tokens (0.0 for an empty output), as jiwer reports it.
        return self.errors / self.ref_len if self.ref_len else float(self.ins)


def _counts(ref: str, hyp: str, chars: bool) -> EditCounts:
    """Edit counts of two normalised texts, over space-separated words or (spaces
    removed) characters."""
    if chars:
        ref, hyp = ref.replace(" ", ""), hyp.replace(" ", "")
    ref_len = len(ref) if chars else len(ref.split())
    if not ref_len:
        return EditCounts(0, 0, 0, len(hyp) if chars else len(hyp.split()))
    if not hyp:
        return EditCounts(ref_len, 0, ref_len, 0)
    ops = Levenshtein.editops(ref, hyp) if chars else \
        Levenshtein.editops(ref.split(), hyp.split())
    tags = [op[0] for op in ops.as_list()]
    return EditCounts(ref_len, tags.count("replace"), tags.count("delete"),
                      tags.count("insert"))


def _word_counts(ref: str, hyp: str, language: str) -> EditCounts | None:
    """Word edit counts of two normalised texts, or ``None`` without a segmenter."""
    ref_words, hyp_words = words(ref, language), words(hyp, language)
    if ref_words is None or hyp_words is None:
        return None
    return _counts(" ".join(ref_words), " ".join(hyp_words), chars=False)


def word_counts(reference: str, hypothesis: str, language: str = "en") -> EditCounts | None:
    """Word edit counts of two texts after WER normalisation (``None`` for a language
    without a word segmenter)."""
    return _word_counts(normalize_for_wer(reference), normalize_for_wer(hypothesis), language)


def char_counts(reference: str, hypothesis: str) -> EditCounts:
    """Character edit counts after WER normalisation with whitespace removed."""
    return _counts(normalize_for_wer(reference), normalize_for_wer(hypothesis), chars=True)


def _language(suite: Suite) -> str:
    return suite.locale.split("-")[0].lower()


def _unit(suite: Suite) -> str:
    default = "char" if _language(suite) in NO_SPACE_LANGUAGES else "word"
    return str(suite.params.get("unit", default))


#: Named normalisations a suite may choose with ``params.normalization``.
NORMALIZATIONS = ("default", "rig-v1", "whisper")
_DESCRIPTIONS = {
    "default": "NFKC, lower case, punctuation and symbols removed "
               "(apostrophes inside words kept), whitespace collapsed; CER without whitespace",
    "rig-v1": "rig-v1: NFKC, locale lower case, apostrophes deleted, "
              "punctuation and symbols removed, ICU words; CER without whitespace",
    "whisper": "whisper: the Whisper English normaliser (numbers written as digits, "
               "British spellings as American, contractions expanded, fillers and "
               "bracketed text dropped, punctuation removed); words split on spaces; CER "
               "without whitespace",
}


def _normalizer(suite: Suite) -> Callable[[str], str]:
    normalization = suite.params.get("normalization", "default")
    if normalization == "rig-v1":
        return lambda text: " ".join(word_tokens(text, suite.locale))
    if normalization == "whisper":
        return whisper_english
    return normalize_for_wer


def _references(case: Case) -> list[str]:
    refs = case.get("references")
    return list(refs) if refs else [case.get("reference", "")]


def _totals(records: Sequence[ItemRecord], prefix: str) -> dict[str, int] | None:
    """Reference length and substitutions, deletions, insertions summed over ``records``
    in one pass; ``None`` when an item has none (no word segmenter for its language)."""
    names = [(k, f"{prefix}_{k}") for k in ("ref", "sub", "del", "ins")]
    sums = dict.fromkeys(("ref", "sub", "del", "ins"), 0)
    for record in records:
        metrics = record["metrics"]
        if names[0][1] not in metrics:
            return None
        for key, name in names:
            sums[key] += metrics[name]
    return {k: int(v) for k, v in sums.items()}


def _pooled_rate(totals: dict[str, int] | None) -> float | None:
    if totals is None:
        return None
    err = totals["sub"] + totals["del"] + totals["ins"]
    return err / totals["ref"] if totals["ref"] else None


class ErrorRate:
    """The ``error_rate`` method (see the module docstring)."""

    name = "error_rate"
    case_schema = "case-error_rate.schema.json"
    #: WER or CER, whichever the suite's ``unit`` makes the verdict.
    headline = "error_rate"
    leaderboard_columns = ("error_rate", "wer", "cer", "strict_rate", "strict_distance")
    higher_is_better = False

    def check_params(self, suite: Suite) -> None:
        """Refuse bad ``[params]`` when the suite is loaded."""
        where = suite.root / "suite.toml"
        threshold = suite.params.get("threshold", 0.15)
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or threshold < 0:
            raise SuiteError(f"params.threshold must be a number >= 0, got {threshold!r}",
                             path=where)
        if suite.params.get("unit", "word") not in ("word", "char"):
            raise SuiteError(f"params.unit must be 'word' or 'char', got "
                             f"{suite.params['unit']!r}", path=where)
        normalization = suite.params.get("normalization", "default")
        if normalization not in NORMALIZATIONS:
            raise SuiteError(f"params.normalization must be one of "
                             f"{', '.join(NORMALIZATIONS)}, got "
                             f"{suite.params['normalization']!r}", path=where)
        if normalization == "whisper":
            if _language(suite) != "en":
                raise SuiteError(f"params.normalization 'whisper' is the English normaliser, "
                                 f"and the suite's locale is {suite.locale!r}", path=where)
            try:
                whisper_normalizer_info()
            except SuiteError as exc:
                raise SuiteError(str(exc), path=where) from None
        if normalization == "default" and _unit(suite) == "word" \
                and segmenter_name(_language(suite)) is None:
            raise SuiteError(f"params.unit 'word' needs a word segmenter, and none is defined "
                             f"for locale {suite.locale!r}: use 'char'", path=where)
        unknown = sorted(set(suite.params) - {"threshold", "unit", "normalization"})
        if unknown:
            raise SuiteError(f"unknown params: {', '.join(unknown)}", path=where)

    def score(self, case: Case, output: Output, ctx: ScoreContext) -> ItemResult:
        unit, language = _unit(ctx.suite), _language(ctx.suite)
        threshold = float(ctx.params.get("threshold", 0.15))
        norm = _normalizer(ctx.suite)
        segmented = ctx.suite.params.get("normalization", "default") != "default"
        hyp = norm(output.text)
        pairs = []
        for ref in _references(case):
            norm_ref = norm(ref)
            # rig-v1 has already split words with ICU; the default segments per language
            word = _counts(norm_ref, hyp, False) if segmented else \
                _word_counts(norm_ref, hyp, language)
            pairs.append((ref, word, _counts(norm_ref, hyp, True)))
        key = 1 if unit == "word" else 2
        ref, w, c = min(pairs, key=lambda p: (p[key].rate, p[0]))  # type: ignore[union-attr]
        strict_ref = strict_text(ref)
        strict = Levenshtein.distance(strict_ref, strict_text(output.text))
        counts = w if unit == "word" and w is not None else c
        rate = counts.rate
        label = "WER" if unit == "word" else "CER"
        passed = rate <= threshold
        # a reference the normaliser empties measures only insertions: said (CF13)
        hollow = not norm(ref).strip()
        normalization = ctx.suite.params.get("normalization", "default")
        warning = (f"the reference is empty after the {normalization} normaliser ({ref!r}), "
                   "so this item measures only insertions; ") if hollow else ""
        evidence = warning + (
            f"{label} {rate:.3f} {'<=' if passed else '>'} {threshold:g} "
            f"(S={counts.sub} D={counts.dele} I={counts.ins} over {counts.ref_len} "
            f"{unit}s); reference: {ref!r}; output: {output.text!r}"
        )
        metrics: Mapping[str, float] = {  # keys in a record line's order
            "char_del": c.dele, "char_ins": c.ins, "char_ref": c.ref_len, "char_sub": c.sub,
            "strict_distance": strict, "strict_ref": len(strict_ref),
            **({"word_del": w.dele, "word_ins": w.ins, "word_ref": w.ref_len,
                "word_sub": w.sub} if w is not None else {}),
        }
        return ItemResult(
            passed=passed,
            score=max(0.0, 100.0 * (1.0 - rate)),
            rules=(RuleScore(label, 2 if passed else 0, evidence),),
            metrics=metrics,
            message=("" if passed else f"{label} {rate:.3f} > {threshold:g}")
            + ("; reference empty after normalisation" if hollow else ""),
        )

    def aggregate(self, records: Sequence[ItemRecord], suite: Suite) -> dict[str, Any]:
        normalization = str(suite.params.get("normalization", "default"))
        strict_ref = sum(r["metrics"]["strict_ref"] for r in records)
        strict = sum(r["metrics"]["strict_distance"] for r in records)
        words, chars = _totals(records, "word"), _totals(records, "char")
        return {
            "summary": {
                "error_rate": _pooled_rate(words if _unit(suite) == "word" else chars),
                "wer": _pooled_rate(words),
                "cer": _pooled_rate(chars),
                "strict_distance": strict,
                "strict_rate": strict / strict_ref if strict_ref else None,
                "unit": _unit(suite),
                "threshold": float(suite.params.get("threshold", 0.15)),
            },
            "words": words,
            "chars": chars,
            "normalization": _DESCRIPTIONS[normalization],
            **({"normalizer": whisper_normalizer_info()} if normalization == "whisper"
               else {}),
            "word_segmenter": segmenter_name(_language(suite)),
        }
