"""The grading guide every judge receives as its system prompt.

The text is ours. Any change to it that could change a verdict must bump
:data:`GUIDE_VERSION`: the version is part of the verdict cache key, so cached verdicts
made under an older guide are not reused.
"""

from __future__ import annotations

__all__ = ["DECISION_POLICY", "GUIDE_TEXT", "GUIDE_VERSION"]

GUIDE_VERSION = "1.0.0"

#: Numbered tie-breakers for the cases graders most often split on. Humans deciding a
#: disagreement apply the same list (docs/judge.md repeats it).
DECISION_POLICY: tuple[str, ...] = (
    "Count each fix once. When a single change in the output could be described by "
    "several rules, lower only the rule that names it most precisely and give the "
    "others 2.",
    "A notational variant is not a meaning error. Another accepted spelling, script or "
    "number format with the same reading and sense belongs to the notation rules at most; "
    "a different word, name or value is a meaning error.",
    "When you cannot tell whether the speaker corrected themselves or contrasted two "
    "things, treat it as a contrast: keeping both parts is correct, dropping one is not.",
    "Invented content is an error even when it is plausible: a subject, reason, date or "
    "fact the speaker did not say counts against the rule on additions.",
    "Comma placement and a missing final full stop are not errors unless they change "
    "how the text reads. Whether a sentence is a question is a matter of meaning, not "
    "of the question mark alone.",
    "An item flagged short keeps the speaker's spoken attitude and sentence endings; do "
    "not ask it to be restructured into formal written style.",
    "Matters of personal style (amount of line breaks, heading symbols, how large "
    "numbers are grouped) are not penalised unless the case's expected outputs rule them "
    "out.",
    "If a rule does not apply to this item, or you find no problem, give 2.",
)

_SCALE = """\
Scores, for each rule separately:
  2 - no problem under this rule.
  1 - a minor problem: the text is still usable as sent and its meaning is intact.
  0 - a real problem: the meaning changed, something said is lost or invented, or the
      text could not be sent as it is.
Score the worst occurrence: one serious problem gives 0 even if the rest is fine."""

_INPUTS = """\
You receive, in the user message:
  - the case: what was spoken (the script), one or more acceptable expected outputs,
    the genre (where the text is going: chat, email, notes, instructions...), whether
    the item is flagged short, and any context the speaker had;
  - the output to judge, exactly as the product produced it, between <output> tags
    (line breaks and symbols matter);
  - the results of the automated checks already run on that output (facts such as
    "a forbidden word appears" - take them as true);
  - the rules you must score, each with its id and a one-line meaning."""

_TASK = """\
Compare the output with what was spoken and with the expected outputs. The expected
outputs show an acceptable range, not the only correct answer: an output that differs
from all of them can still deserve 2 on every rule. You do not know which product wrote
the output; do not guess.

Answer only by calling the record_verdicts tool, once, with an entry for every rule you
were given and no other rule. Each entry has the score and a reason of one short
sentence; when you lower a score, quote the words of the output that caused it."""


def _policy_text() -> str:
    lines = ["Decision policy (how to settle doubtful cases):"]
    lines.extend(f"  {n}. {rule}" for n, rule in enumerate(DECISION_POLICY, start=1))
    return "\n".join(lines)


GUIDE_TEXT = "\n\n".join(
    [
        "You grade the output of a dictation product: speech turned into text meant to be "
        "sent as it is. You judge one output at a time against a list of rules.",
        _INPUTS,
        _SCALE,
        _TASK,
        _policy_text(),
        f"(grading guide {GUIDE_VERSION})",
    ]
)
