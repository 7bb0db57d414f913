"""The 46 rules of the rubric: layer, a one-line meaning, and how each is decided.

Layers: A meaning, B disfluencies and self-corrections, C structure, D notation and style.
Every rule is scored 0, 1 or 2 on an item. *Common* rules are scored on every item; a
case adds its own with its ``rules`` field. *Automated* rules have a check in this
package; the others need a judge (an LLM or a person) and stay unjudged without one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "AUTOMATED_RULES",
    "COMMON_RULES",
    "LAYERS",
    "LAYER_NAMES",
    "RULES",
    "Rule",
    "layer_of",
    "rule_sort_key",
    "sorted_rules",
]

#: Layer letters in report order.
LAYERS = ("A", "B", "C", "D")

LAYER_NAMES = {
    "A": "meaning",
    "B": "disfluencies and self-corrections",
    "C": "structure",
    "D": "notation and style",
}


@dataclass(frozen=True)
class Rule:
    """One rubric rule."""

    id: str
    meaning: str
    #: Scored on every item, whatever the case lists.
    common: bool = False
    #: Decided by an automated check in :mod:`.checks` (a judge or a person may overturn it).
    automated: bool = False

    @property
    def layer(self) -> str:
        return self.id[0]


_RULES = (
    # Layer A: meaning. Any A rule below 2 is a meaning error (the gate).
    Rule(
        "A1",
        "Spoken content words and terms survive, neither swapped for a look-alike "
        "or sound-alike word nor dropped.",
        common=True,
        automated=True,
    ),
    Rule(
        "A2",
        "Names of people, organisations, products and places are kept and recognisable.",
        common=True,
        automated=True,
    ),
    Rule(
        "A3",
        "Every number, date, amount and quantity keeps its value.",
        common=True,
        automated=True,
    ),
    Rule("A4", "Affirmative stays affirmative and negative stays negative.", common=True),
    Rule("A5", "Voice (active, passive, causative) and tense are as spoken.", common=True),
    Rule("A6", "Hedged statements stay hedged and firm ones stay firm.", common=True),
    Rule(
        "A7",
        "The kind of utterance (statement, request, proposal, question) is unchanged.",
        common=True,
    ),
    Rule(
        "A8",
        "Connectives keep their logical relation (cause, condition, concession, sequence).",
        common=True,
    ),
    Rule("A9", "A contrast the speaker drew keeps both of its sides.", common=True),
    Rule(
        "A10",
        "A spoken question is still worded as a question, whatever the punctuation.",
        common=True,
    ),
    Rule(
        "A11",
        "Nothing is added that was not said (subjects, facts, courtesy phrases, requests).",
        common=True,
    ),
    Rule("A12", "No spoken clause, preface or reply word is left out.", common=True),
    # Layer B: what exists only in speech.
    Rule(
        "B1",
        "Fillers are removed, including fillers that recognition turned into other characters.",
        common=True,
        automated=True,
    ),
    Rule("B2", "After a self-correction only the corrected version remains.", automated=True),
    Rule("B3", "Phrases that announce a correction are removed.", automated=True),
    Rule(
        "B4",
        "Accidental repetitions of a word or phrase are collapsed to one.",
        common=True,
        automated=True,
    ),
    Rule("B5", "Clauses the speaker started and then abandoned are removed."),
    Rule("B6", "Remarks the speaker addressed to themselves are left out."),
    Rule("B7", "Non-word sounds (laughter, coughs, breaths) do not turn into text."),
    Rule("B8", "Plain mis-hearings that no reader would accept are not left in."),
    # Layer C: structure.
    Rule(
        "C1",
        "An enumeration of three or more items, or one the speaker counted out, is "
        "laid out as a list.",
        common=True,
        automated=True,
    ),
    Rule("C2", "Line breaks fall between units of content, never inside a sentence."),
    Rule("C3", "Longer output is divided into paragraphs by topic."),
    Rule(
        "C4",
        "A list is set apart from the line before it by a blank line.",
        common=True,
        automated=True,
    ),
    Rule("C5", "Markers and numbering are consistent within one list."),
    Rule("C6", "Items and sentences keep the order in which they were spoken."),
    Rule(
        "C7",
        "Enumerations are told apart from running text: no list made of an "
        "ordinary sentence, no list buried in prose.",
    ),
    Rule(
        "C8",
        "Short utterances are not over-formatted (no heading, no one-item list).",
        common=True,
        automated=True,
    ),
    Rule("C9", "List nesting mirrors the real hierarchy of what was said."),
    Rule(
        "C10", "Markup suits where the text goes (no raw markdown where it would show as symbols)."
    ),
    Rule(
        "C11",
        "Long output with several units of meaning marks each unit with a heading "
        "or clear separation.",
    ),
    # Layer D: notation and style.
    Rule("D1", "Homophones get the kanji the context calls for.", automated=True),
    Rule(
        "D2",
        "Terms from English use the required script: Latin only for exact terms, "
        "Latin or katakana for flexible ones.",
        automated=True,
    ),
    Rule(
        "D3",
        "Numbers follow the standard: Arabic numerals, 万/億/兆 in kanji, か月 and か所 in kana.",
        common=True,
        automated=True,
    ),
    Rule(
        "D4", "Units, currencies and symbols use an accepted notation.", common=True, automated=True
    ),
    Rule("D5", "The level of politeness fits what was spoken and the genre."),
    Rule(
        "D6",
        "No request or formal sentence ending is added that the speaker did not use.",
        common=True,
    ),
    Rule("D7", "Sentence-final particles that carry the speaker's tone are handled sensibly."),
    Rule("D8", "Spoken contractions are kept or expanded in line with the style."),
    Rule("D9", "Hedge words are not exchanged for different hedge words."),
    Rule("D10", "Kanji versus kana follows common written practice."),
    Rule("D11", "Punctuation neither changes the reading nor makes the text hard to follow."),
    Rule("D12", "Long vowels in loanwords follow common practice for the long-vowel mark."),
    Rule("D13", "One style holds throughout the output.", common=True),
    Rule(
        "D14",
        "Spacing around Latin letters and digits does not hurt readability.",
        common=True,
    ),
    Rule("D15", "Abbreviations appear only where spoken or standard."),
)

#: Every rule by id, in rubric order.
RULES: dict[str, Rule] = {rule.id: rule for rule in _RULES}
#: Rules scored on every item.
COMMON_RULES = frozenset(r.id for r in _RULES if r.common)
#: Rules an automated check decides.
AUTOMATED_RULES = frozenset(r.id for r in _RULES if r.automated)


def layer_of(rule_id: str) -> str:
    """The layer letter of ``rule_id`` (``"A"`` for ``"A10"``)."""
    if rule_id not in RULES:
        raise KeyError(f"unknown rubric rule {rule_id!r}; rules are A1-A12, B1-B8, C1-C11, D1-D15")
    return rule_id[0]


def rule_sort_key(rule_id: str) -> tuple[int, int]:
    """Sort key putting rules in rubric order (A2 before A10)."""
    return LAYERS.index(rule_id[0]), int(rule_id[1:])


def sorted_rules(rule_ids: Iterable[str]) -> tuple[str, ...]:
    """``rule_ids`` without duplicates, in rubric order."""
    return tuple(sorted(set(rule_ids), key=rule_sort_key))
