"""What the keypoints judges receive: our guide, the user message, the tool and parsing.

A judge sees the verified transcript, the key points and the transcript to judge, never
the product name. It answers through the ``record_verdicts`` tool: a verdict
(present / missing / contradicted) and a reason per key point, plus the list of
insertions. The answer travels through the judge machinery as rule scores: each key
point is a rule scored 2 (present), 1 (missing) or 0 (contradicted), and the rule
``insertions`` carries the number of insertions (the reason lists them): blank ones are
dropped and identical ones (after stripping) counted once.

Any change that could change a verdict bumps :data:`GUIDE_VERSION` (it is part of the
verdict cache key).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["GUIDE_VERSION", "INSERTIONS_RULE", "KEYPOINTS_PROTOCOL", "KeypointsProtocol"]

GUIDE_VERSION = "keypoints-1.0.0"
#: The pseudo-rule whose score is the number of insertions.
INSERTIONS_RULE = "insertions"
_SCORES = {"present": 2, "missing": 1, "contradicted": 0}
REASON_MAX_CHARS = 400
MAX_INSERTIONS = 50

SYSTEM_TEXT = "\n\n".join([
    "You check a machine transcript of a spoken Japanese journal entry against the "
    "verified transcript of the same recording. You decide, claim by claim, whether a "
    "reader of the machine transcript would learn what the speaker said.",
    "The user message holds the verified transcript, its key points (each with an id and "
    "a severity) and the machine transcript between <hypothesis> tags. You do not know "
    "which product wrote it; do not guess.",
    "For every key point give exactly one verdict:\n"
    "  present      - the hypothesis conveys the claim; wording, script (kanji, kana, "
    "Latin), punctuation and number notation may differ;\n"
    "  missing      - the hypothesis does not convey the claim, or garbles it so that it "
    "cannot be read out of it;\n"
    "  contradicted - the hypothesis states something incompatible with the claim: "
    "another person, place, day, time, amount or outcome, or the opposite polarity.",
    "Then list the insertions: claims the hypothesis asserts that the verified "
    "transcript does not support (invented facts, wrong names standing in for right "
    "ones are contradictions, not insertions). Do not list fillers, repetitions or "
    "harmless rephrasing. Count each invented claim once.",
    "Doubtful cases: a name or number written differently but read the same is present; "
    "a different name or number is contradicted; a claim half kept is missing unless "
    "what remains says something false, then contradicted.",
    "Answer only by calling record_verdicts once, with every key point id you were given "
    "and no other, a one-sentence reason each (quote the hypothesis when the verdict is "
    "not present), and the list of insertions (empty when there are none).",
    f"(key point guide {GUIDE_VERSION})",
])


def _pretty(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True)


class KeypointsProtocol:
    """The judge protocol of the keypoints method (duck-typed by ``judge.request``)."""

    version = GUIDE_VERSION
    system = SYSTEM_TEXT
    #: The insertions pseudo-rule holds a count, not a 0-2 verdict.
    count_rules = (INSERTIONS_RULE,)
    tool_description = ("Record a verdict (present, missing or contradicted) and a reason "
                        "for every key point, and the claims inserted by the hypothesis. "
                        "Call exactly once.")

    @staticmethod
    def key_point_ids(rule_ids: Sequence[str]) -> list[str]:
        return [r for r in rule_ids if r != INSERTIONS_RULE]

    def tool_schema(self, rule_ids: Sequence[str]) -> dict[str, Any]:
        entry = {
            "type": "object",
            "properties": {"verdict": {"enum": list(_SCORES)},
                           "reason": {"type": "string", "maxLength": REASON_MAX_CHARS}},
            "required": ["verdict", "reason"],
            "additionalProperties": False,
        }
        points = self.key_point_ids(rule_ids)
        return {
            "type": "object",
            "properties": {
                "key_points": {"type": "object",
                               "properties": {p: entry for p in points},
                               "required": points, "additionalProperties": False},
                "insertions": {"type": "array", "maxItems": MAX_INSERTIONS,
                               "items": {"type": "string", "minLength": 1,
                                         "maxLength": REASON_MAX_CHARS}},
            },
            "required": ["key_points", "insertions"],
            "additionalProperties": False,
        }

    def user_message(self, case: Mapping[str, Any], output_text: str,
                     rule_ids: Sequence[str]) -> str:
        points = [{"id": p["id"], "text": p["text"], "severity": p.get("severity", "minor")}
                  for p in case.get("key_points", ())
                  if p["id"] in set(rule_ids)]
        return "\n\n".join([
            "Verified transcript:\n<reference>\n" + str(case.get("reference", ""))
            + "\n</reference>",
            "Key points:\n<key_points>\n" + _pretty(points) + "\n</key_points>",
            "Machine transcript to judge (exactly as produced):\n<hypothesis>\n"
            + output_text + "\n</hypothesis>",
            f"Call record_verdicts once with a verdict for each of these {len(points)} key "
            "points and the list of insertions.",
        ])

    def parse(self, tool_input: Any, rule_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """A validated tool input as rule scores (see the module docstring)."""
        scores = {p: (_SCORES[v["verdict"]], v["reason"])
                  for p, v in tool_input["key_points"].items()}
        inserted = list(dict.fromkeys(i.strip() for i in tool_input["insertions"] if i.strip()))
        scores[INSERTIONS_RULE] = (len(inserted), " | ".join(inserted))
        return scores


#: The one instance the method hands to the judges.
KEYPOINTS_PROTOCOL = KeypointsProtocol()
