"""``verbatim``: does the transcript keep what was said, disfluencies included?

Case fields: ``verbatim`` and ``intended`` (see ``docs/verbatim.md``). Parameters
(``[params]`` in ``suite.toml``): ``vwer_threshold`` (default 0.25).

Per item:

- gold labels come from aligning ``verbatim`` with ``intended`` (:mod:`.labels`);
- the output text is aligned tag-aware to the gold tokens and typed counts are taken
  (:mod:`.metrics`); vWER/vCER compare it with ``verbatim``; iWER/iCER compare
  ``meta["intended_text"]`` (when the output carries one) or else the output text with
  ``intended``;
- score = 100 x the item's Disfluency F1 (100 when there is no gold and no predicted
  disfluency);
- verdict: passed when no gold disfluency was missed, none was invented and
  vWER <= ``vwer_threshold``.

Corpus tables pool the counts; every figure is a fraction (0.25, not 25 %).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import SuiteError
from ...model import SCORED_STATUSES, Case, ItemResult, Output, RuleScore, ScoreContext, Suite
from ..base import ItemRecord
from .inventory import typed_inventory
from .labels import DISFLUENCY_TYPES, gold_labels, gold_problems
from .metrics import CUTOFF_VARIANTS, TypedCounts, prf, typed_counts
from .normalize import language_of, normalize_tokens
from .rates import EditCount, char_edits, pooled_rate, word_edits

__all__ = ["DEFAULT_VWER_THRESHOLD", "Verbatim", "case_problems"]

DEFAULT_VWER_THRESHOLD = 0.25
_RATES = ("vwer", "vcer", "iwer", "icer")
_RATE_UNITS = {"vwer": "words", "vcer": "chars", "iwer": "words", "icer": "chars"}


def case_problems(cases: Sequence[Case], language: str = "en") -> dict[str, list[str]]:
    """For a suite check: case id -> problems of its gold pair (only cases with some)."""
    found = {}
    for case in cases:
        problems = gold_problems(str(case.get("verbatim", "")), str(case.get("intended", "")),
                                 language)
        if problems:
            found[case.id] = problems
    return found


def _listing(entries: list[tuple[str, str, int]], where: str, limit: int = 8) -> str:
    shown = [f"{kind} {token!r} ({where} {pos})" for kind, token, pos in entries[:limit]]
    if len(entries) > limit:
        shown.append(f"... {len(entries) - limit} more")
    return "; ".join(shown)


def _count_rule(name: str, entries: list[tuple[str, str, int]], total: int,
                where: str) -> RuleScore:
    """2 with none, 1 when at most half of ``total`` went wrong, 0 otherwise."""
    if not entries:
        return RuleScore(name, 2, f"no {name} disfluencies")
    score = 1 if 2 * len(entries) <= total else 0
    return RuleScore(name, score, f"{len(entries)} {name}: {_listing(entries, where)}")


def _intended_prediction(output: Output) -> tuple[str, bool]:
    separate = output.meta.get("intended_text")
    if isinstance(separate, str):
        return separate, True
    return output.text, False


class Verbatim:
    """The ``verbatim`` method (see the module docstring)."""

    name = "verbatim"
    case_schema = "case-verbatim.schema.json"
    headline = "disfluency_f1"
    higher_is_better = True

    def score(self, case: Case, output: Output, ctx: ScoreContext) -> ItemResult:
        threshold = float(ctx.params.get("vwer_threshold", DEFAULT_VWER_THRESHOLD))
        language = language_of(ctx.suite.locale)
        gold = gold_labels(str(case.get("verbatim", "")), str(case.get("intended", "")),
                           language)
        pred = normalize_tokens(output.text, language)
        intended_text, separate = _intended_prediction(output)
        intended_pred = normalize_tokens(intended_text, language) if separate else pred
        counts = typed_counts(gold, pred)
        rates = {
            "vwer": word_edits(gold.tokens, pred), "vcer": char_edits(gold.tokens, pred),
            "iwer": word_edits(gold.intended, intended_pred),
            "icer": char_edits(gold.intended, intended_pred),
        }
        flat = counts.flat()
        item_prf = prf(flat["disfluency_tp"], flat["disfluency_fp"], flat["disfluency_fn"])
        vwer = rates["vwer"].rate
        passed = not counts.missed and not counts.invented and vwer <= threshold
        rules = self._rules(counts, flat, rates["vwer"], threshold, len(pred))
        metrics: dict[str, float] = dict(flat)
        for key, count in rates.items():
            metrics[f"{key}_edits"] = count.edits
            metrics[f"{key}_ref_{_RATE_UNITS[key]}"] = count.ref_len
        metrics["gold_tokens"] = len(gold.tokens)
        metrics["gold_problems"] = len(gold.problems)
        metrics["intended_text_given"] = int(separate)
        return ItemResult(
            passed=passed,
            score=100.0 * item_prf.f1,
            rules=rules,
            metrics=metrics,
            message="" if passed else " | ".join(r.evidence for r in rules if r.score != 2),
        )

    @staticmethod
    def _rules(counts: TypedCounts, flat: Mapping[str, int], vwer: EditCount,
               threshold: float, pred_len: int) -> tuple[RuleScore, ...]:
        gold_total = flat["disfluency_tp"] + flat["disfluency_fn"]
        pred_total = flat["disfluency_tp"] + flat["disfluency_fp"]
        ok = vwer.rate <= threshold
        return (
            _count_rule("missed", counts.missed, gold_total, "gold word"),
            _count_rule("invented", counts.invented, pred_total, "output word"),
            RuleScore("vwer", 2 if ok else 0,
                      f"vWER {vwer.rate:.3f} {'<=' if ok else '>'} {threshold:g} "
                      f"({vwer.edits} edits over {vwer.ref_len} verbatim words; "
                      f"output has {pred_len})"),
        )

    def check_params(self, suite: Suite) -> None:
        """Refuse a bad ``vwer_threshold``, and any parameter this method does not read
        (``normalization = "whisper"`` would otherwise look applied: CF9)."""
        _check_number(suite, "vwer_threshold")
        unknown = sorted(set(suite.params) - {"vwer_threshold"})
        if unknown:
            raise SuiteError(f"params.{unknown[0]} is not a verbatim setting (verbatim suites "
                             "read: vwer_threshold)", path=suite.root / "suite.toml")

    def check_case(self, case: Case) -> list[str]:
        """Problems of the case's gold pair (for ``--dictbench-verify``)."""
        return gold_problems(str(case.get("verbatim", "")), str(case.get("intended", "")))

    def check_case_in(self, case: Case, suite: Suite) -> list[str]:
        """:meth:`check_case` with the suite's language (its locale)."""
        return gold_problems(str(case.get("verbatim", "")), str(case.get("intended", "")),
                             language_of(suite.locale))

    def aggregate(self, records: Sequence[ItemRecord], suite: Suite) -> dict[str, Any]:
        scored = [r for r in records
                  if r.get("status", "passed") in SCORED_STATUSES and r.get("metrics")]
        totals: dict[str, float] = {}
        for record in scored:
            for key, value in record["metrics"].items():
                totals[key] = totals.get(key, 0) + value
        types: dict[str, dict[str, float]] = {}
        for name in (*DISFLUENCY_TYPES, *CUTOFF_VARIANTS, "disfluency"):
            tp, fp, fn = (totals.get(f"{name}_{k}", 0) for k in ("tp", "fp", "fn"))
            result = prf(tp, fp, fn)
            types[name] = {"precision": result.precision, "recall": result.recall,
                           "f1": result.f1, "tp": tp, "fp": fp, "fn": fn}
        summary: dict[str, Any] = {
            "disfluency_f1": types["disfluency"]["f1"],
            "disfluency_precision": types["disfluency"]["precision"],
            "disfluency_recall": types["disfluency"]["recall"],
        }
        for key in _RATES:
            summary[key] = pooled_rate(totals.get(f"{key}_edits", 0),
                                       totals.get(f"{key}_ref_{_RATE_UNITS[key]}", 0))
        for name in (*DISFLUENCY_TYPES, *CUTOFF_VARIANTS):
            summary[f"{name}_f1"] = types[name]["f1"]
        # recall asks only whether the gold cut-offs were acknowledged: with none in the
        # pool it is undefined (null), so a spurious fragment cannot move it (the seed's rule)
        gold_cutoffs = types["cutoff"]["tp"] + types["cutoff"]["fn"]
        summary["cutoff_recall"] = types["cutoff"]["recall"] if gold_cutoffs else None
        summary["items"] = len(scored)
        summary["gold_disfluencies"] = types["disfluency"]["tp"] + types["disfluency"]["fn"]
        summary["predicted_disfluencies"] = types["disfluency"]["tp"] + types["disfluency"]["fp"]
        summary["items_with_gold_problems"] = sum(
            1 for r in scored if r["metrics"].get("gold_problems", 0))
        summary["vwer_threshold"] = float(suite.params.get("vwer_threshold",
                                                           DEFAULT_VWER_THRESHOLD))
        return {"summary": summary, "types": types,
                "inventory": typed_inventory(_cases_of(scored, suite),
                                             language_of(suite.locale))}


def _cases_of(records: Sequence[ItemRecord], suite: Suite) -> list[Case]:
    """The suite's cases of ``records``, each once, in case id order (a private suite's
    keyed ids match none: its inventory is empty)."""
    ids = sorted({str(r.get("case_id")) for r in records})
    cases = {c.id: c for c in suite.cases}
    return [cases[i] for i in ids if i in cases]


def _check_number(suite: Suite, name: str) -> None:
    value = suite.params.get(name, 0.0)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise SuiteError(f"params.{name} must be a number >= 0, got {value!r}",
                         path=suite.root / "suite.toml")
