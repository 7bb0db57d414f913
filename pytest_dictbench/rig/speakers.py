"""Speaker-turn attribution of a meeting transcript, computed from labelled turns.

Reference turns carry neutral speakers (``speaker_a``, ``speaker_b``, ...); the product's
transcript carries its own labels (``Speaker 1``, ``Alice``, none). The count follows
the rig methodology:

1. the words of both sides are aligned (Levenshtein over normalised words, jiwer);
2. a reference turn's *dominant label* is the product label held by most of its aligned
   words (a turn with no aligned word, or a tie between labels, has none; unlabelled
   words count as the label ``None``, which maps to nobody);
3. each product label is mapped to at most one reference speaker so that the number of
   turns whose dominant label maps to their own speaker is largest (an optimal
   assignment, scipy's ``linear_sum_assignment``);
4. a turn is correct when its dominant label maps to its speaker. Merged, missing and
   unlabelled turns are therefore incorrect.

Example: reference ``A: hi there / B: fine thanks / A: good`` and a product that writes
``S1: hi there fine thanks / S2: good`` (the first two turns merged) gives dominant
labels S1, S1, S2. Mapping S1 -> A makes one turn correct; S1 -> B and S2 -> A make two,
so the count is 2 of 3: the merged turn costs one.

cpWER (concatenated minimum-permutation WER, as meeteval defines it) is reported next to it.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import require
from ..stats import round_half_away
from ..text.normalize import normalize_for_wer
from ..text.rig import edit_distance, word_tokens

__all__ = [
    "Attribution",
    "Turn",
    "attribute_turns",
    "labelled_turns",
    "parse_turns",
    "plain_text",
    "speaker_metrics",
]

_TIMING = re.compile(r"^\s*(\d+:)?\d+:\d+[.,]\d+\s*-->")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?\s+([^>]+)>(.*?)(?:</v>|$)")
_TAG = re.compile(r"<[^>]+>")
#: One word of a label: a capitalised title or initial with its full stop (``Dr.``,
#: ``J.``), or a word without sentence punctuation.
_LABEL_WORD = r"(?:[A-Z][a-z]{0,2}\.|[^\s:.!?,;]+)"
#: ``Name: text``, the name at most six such words and 40 characters ("Thank you. Please
#: note: ..." is text: ``you.`` is no title).
_LABEL = re.compile(rf"^\s*(?=[^:\n]{{1,40}}:)({_LABEL_WORD}(?: +{_LABEL_WORD}){{0,5}})"
                    r"\s*:\s+(.*)$")


@dataclass(frozen=True)
class Turn:
    """One speaker turn; ``speaker`` is ``None`` when the product gave no label."""

    speaker: str | None
    text: str


@dataclass(frozen=True)
class Attribution:
    """Correct turns, the label mapping, each turn's verdict, and cpWER."""

    correct: int
    total: int
    #: Product label -> reference speaker, for every label the assignment used.
    mapping: dict[str, str]
    #: Per reference turn: speaker, dominant label (or None) and correctness.
    turns: tuple[dict[str, Any], ...]
    cpwer: float | None

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.total if self.total else None

    def to_json(self) -> dict[str, Any]:
        return {"correct": self.correct, "total": self.total,
                "accuracy": None if self.accuracy is None else round(self.accuracy, 6),
                "mapping": dict(sorted(self.mapping.items())), "turns": list(self.turns),
                "cpwer": None if self.cpwer is None else round(self.cpwer, 6)}


def parse_turns(text: str) -> list[Turn]:
    """Read labelled turns from JSON, WebVTT, SRT or ``Speaker: text`` lines.

    * JSON: a list of ``{"speaker": ..., "text": ...}`` objects;
    * WebVTT: cues with voice tags ``<v Alice>...</v>`` (or ``Alice: ...`` cue text);
    * SRT: numbered cues whose text is ``Alice: ...``;
    * plain text: one ``Alice: ...`` turn per line; a line without a label continues
      the previous turn, or is an unlabelled turn at the start.
    """
    stripped = text.lstrip("\ufeff").strip()
    if stripped.startswith("["):
        return _json_turns(stripped)
    lines = stripped.splitlines()
    if (lines and lines[0].startswith("WEBVTT")) or any(_TIMING.match(line) for line in lines):
        return _cue_turns(lines)
    return _label_turns(lines)


def labelled_turns(text: str, reference: Sequence[Mapping[str, Any]] = ()
                   ) -> list[Turn] | None:
    """The turns of ``text`` when it is a speaker-labelled transcript, else ``None``.

    Labelled means: JSON turns; WebVTT or SRT cues of which at least one names a speaker;
    or plain lines that behave like labels: the first line and at least half of all
    lines start ``Name: text``, and a name recurs at the start of another line or,
    given the ``reference`` turns, there is one labelled line per reference turn with
    at least two names and no more names than reference speakers. A single
    ``Summary:`` or ``Note:``, or two lines ``Great: ...`` / ``OK: ...`` without a
    meeting that has two such turns, is text, never labels.
    """
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        return None
    try:
        turns = parse_turns(stripped)
    except ValueError:
        return None
    if not any(turn.speaker for turn in turns):
        return None
    if stripped.startswith("[") or stripped.startswith("WEBVTT") or \
            any(_TIMING.match(line) for line in stripped.splitlines()):
        return turns
    lines = [line for line in stripped.splitlines() if line.strip()]
    labels = [found.group(1) if (found := _LABEL.match(line)) else None for line in lines]
    named = Counter(label for label in labels if label is not None)
    speakers = {turn.get("speaker") for turn in reference}
    fits = bool(reference) and sum(named.values()) == len(reference) and \
        len(named) <= len(speakers)
    behave = bool(named) and (max(named.values()) >= 2 or (fits and len(named) >= 2))
    return turns if labels[0] is not None and 2 * sum(named.values()) >= len(lines) \
        and behave else None


def plain_text(turns: Sequence[Turn]) -> str:
    """The words of the turns without labels, for WER and CER."""
    return " ".join(turn.text for turn in turns if turn.text)


def attribute_turns(reference: Sequence[Turn], hypothesis: Sequence[Turn],
                    words: Callable[[str], list[str]] | None = None) -> Attribution:
    """Count correctly attributed reference turns (see the module docstring)."""
    split = words or _default_words
    ref_words = [(i, w) for i, turn in enumerate(reference) for w in split(turn.text)]
    hyp_words = [(turn.speaker, w) for turn in hypothesis for w in split(turn.text)]
    aligned = _align([w for _, w in ref_words], [w for _, w in hyp_words])
    labels_of: dict[int, Counter[str | None]] = defaultdict(Counter)
    for ref_index, hyp_index in aligned:
        labels_of[ref_words[ref_index][0]][hyp_words[hyp_index][0]] += 1
    dominant = [_dominant(labels_of.get(i)) for i in range(len(reference))]
    mapping = _best_mapping(dominant, [turn.speaker for turn in reference])
    verdicts = []
    correct = 0
    for turn, label in zip(reference, dominant, strict=True):
        ok = label is not None and mapping.get(label) == turn.speaker
        correct += ok
        verdicts.append({"speaker": turn.speaker, "dominant_label": label, "correct": ok})
    return Attribution(correct, len(reference), mapping, tuple(verdicts),
                       _cpwer(reference, hypothesis, split))


def _default_words(text: str) -> list[str]:
    return normalize_for_wer(text).split()


def _align(ref: list[str], hyp: list[str]) -> list[tuple[int, int]]:
    """Pairs (reference index, hypothesis index) of matched or substituted words."""
    if not ref or not hyp:
        return []
    import jiwer

    result = jiwer.process_words(" ".join(ref), " ".join(hyp))
    pairs = []
    for chunk in result.alignments[0]:
        if chunk.type in ("equal", "substitute"):
            for offset in range(chunk.ref_end_idx - chunk.ref_start_idx):
                pairs.append((chunk.ref_start_idx + offset, chunk.hyp_start_idx + offset))
    return pairs


def _dominant(counts: Counter[str | None] | None) -> str | None:
    if not counts:
        return None
    ranked = counts.most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None  # a tie: no label dominates the turn
    return ranked[0][0]


def _best_mapping(dominant: Sequence[str | None], speakers: Sequence[str | None]
                  ) -> dict[str, str]:
    labels = sorted({label for label in dominant if label is not None})
    targets = sorted({s for s in speakers if s is not None})
    if not labels or not targets:
        return {}
    import numpy as np

    linear_sum_assignment = require("scipy.optimize", "rig", "speaker attribution (the "
                                    "label-to-speaker assignment)").linear_sum_assignment
    weight = np.zeros((len(labels), len(targets)))
    for label, speaker in zip(dominant, speakers, strict=True):
        if label is not None and speaker is not None:
            weight[labels.index(label), targets.index(speaker)] += 1
    rows, cols = linear_sum_assignment(weight, maximize=True)
    return {labels[r]: targets[c] for r, c in zip(rows, cols, strict=True) if weight[r, c] > 0}


def _cpwer(reference: Sequence[Turn], hypothesis: Sequence[Turn],
           split: Callable[[str], list[str]]) -> float | None:
    """Concatenated minimum-permutation WER: each speaker's words form one stream; the
    reference and product streams are paired one to one (the shorter side padded with
    empty streams) so that the summed word edit distance is least (scipy's
    ``linear_sum_assignment``); that sum over the reference's word count."""
    ref = [text.split() for text in _by_speaker(reference, split).values()]
    words = sum(len(stream) for stream in ref)
    if not words:
        return None
    hyp = [text.split() for text in _by_speaker(hypothesis, split).values()]
    size = max(len(ref), len(hyp))
    ref += [[]] * (size - len(ref))
    hyp += [[]] * (size - len(hyp))
    import numpy as np

    linear_sum_assignment = require("scipy.optimize", "rig", "speaker attribution "
                                    "(cpWER)").linear_sum_assignment
    cost = np.array([[edit_distance(r, h) for h in hyp] for r in ref], dtype=np.int64)
    rows, cols = linear_sum_assignment(cost)
    return int(cost[rows, cols].sum()) / words


def _by_speaker(turns: Sequence[Turn], split: Callable[[str], list[str]]) -> dict[str, str]:
    grouped: dict[str, list[str]] = defaultdict(list)
    for turn in turns:
        grouped[turn.speaker or "(unlabelled)"].extend(split(turn.text))
    return {speaker: " ".join(words) for speaker, words in sorted(grouped.items())}


def _json_turns(text: str) -> list[Turn]:
    data = json.loads(text)
    if not isinstance(data, list) or not all(isinstance(t, dict) for t in data):
        raise ValueError("speaker turns in JSON must be a list of {speaker, text} objects")
    turns = []
    for index, item in enumerate(data):
        speaker, words = item.get("speaker"), item.get("text")
        if not isinstance(words, str) or (speaker is not None and not isinstance(speaker, str)):
            raise ValueError(f"turn {index + 1}: 'text' must be a string and 'speaker' a "
                             "string or null")
        turns.append(Turn(speaker or None, words.strip()))
    return turns


def _cue_turns(lines: list[str]) -> list[Turn]:
    turns: list[Turn] = []
    cue: list[str] = []

    def flush() -> None:
        for line in cue:
            turns.extend(_cue_line(line))
        cue.clear()

    in_cue = False
    for line in lines:
        if _TIMING.match(line):
            flush()
            in_cue = True
        elif not line.strip():
            flush()
            in_cue = False
        elif in_cue:
            cue.append(line)
    flush()
    return _merge_adjacent(turns)


def _cue_line(line: str) -> list[Turn]:
    voiced = _VOICE.findall(line)
    if voiced:
        return [Turn(name.strip(), _TAG.sub("", words).strip()) for name, words in voiced]
    plain = _TAG.sub("", line).strip()
    labelled = _LABEL.match(plain)
    if labelled:
        return [Turn(labelled.group(1), labelled.group(2).strip())]
    return [Turn(None, plain)]


def _label_turns(lines: list[str]) -> list[Turn]:
    turns: list[Turn] = []
    for line in lines:
        if not line.strip():
            continue
        labelled = _LABEL.match(line)
        if labelled:
            turns.append(Turn(labelled.group(1), labelled.group(2).strip()))
        elif turns:
            last = turns[-1]
            turns[-1] = Turn(last.speaker, f"{last.text} {line.strip()}".strip())
        else:
            turns.append(Turn(None, line.strip()))
    return turns


def _merge_adjacent(turns: list[Turn]) -> list[Turn]:
    """Join consecutive cues of the same speaker into one turn (cues split long turns)."""
    merged: list[Turn] = []
    for turn in turns:
        if merged and turn.speaker is not None and merged[-1].speaker == turn.speaker:
            merged[-1] = Turn(turn.speaker, f"{merged[-1].text} {turn.text}".strip())
        else:
            merged.append(turn)
    return merged


def speaker_metrics(fixture: Mapping[str, Any], turns: list[Turn], correct: Any, total: Any,
                    notes: list[str] | None = None) -> dict[str, float]:
    """Speaker-turn attribution computed from the labelled transcript, cpWER, and whether
    the operator's CSV count disagrees. The computed accuracy is
    ``speaker_turn_accuracy_computed``; it becomes ``speaker_turn_accuracy`` only when
    the operator gave no count (the scorer publishes the operator's)."""
    locale = fixture["locale"]
    reference = [Turn(t.get("speaker"), t.get("text", "")) for t in fixture["turns"]]
    found = attribute_turns(reference, turns, words=lambda text: word_tokens(text, locale))
    metrics = {"speaker_turns_correct_computed": float(found.correct),
               "speaker_turns_total_computed": float(found.total)}
    if found.total:
        metrics["speaker_turn_accuracy_computed"] = round_half_away(
            found.correct / found.total, 6)
        if correct is None or not total:
            metrics["speaker_turn_accuracy"] = metrics["speaker_turn_accuracy_computed"]
    if found.cpwer is not None:
        metrics["cpwer"] = found.cpwer
    if notes is not None:
        mapping = ", ".join(f"{label} -> {speaker}" for label, speaker in
                            sorted(found.mapping.items())) or "no label maps to a speaker"
        notes.append(f"speaker turns computed: {found.correct} of {found.total} correct "
                     f"(mapping {mapping}; cpWER {found.cpwer:.3f})" if found.cpwer is not None
                     else f"speaker turns computed: {found.correct} of {found.total} correct "
                     f"(mapping {mapping})")
    if correct is not None or total is not None:
        metrics["speaker_turns_operator_disagrees"] = float(
            (correct, total) != (found.correct, found.total))
    return metrics
