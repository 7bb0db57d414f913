"""The adjudication view's data: pending disagreements of one suite, their outputs, the
drafted decisions, and the person's decisions appended to ``adjudications.jsonl``.

A decision is written only from what the person submitted (score, reason, name); the
drafted decision is shown beside it and kept in the line as ``draft`` for the record.
The page names the entry it decides by suite, case, product, rule and output hash (its
``target``), never by position: when the pending file was regenerated and no entry
matches any more, the decision is refused (:class:`StaleEntry`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import DictbenchError
from ..files import atomic_write, file_lock
from ..jsonl import canonical_line, read_jsonl, read_text
from ..judge.adjudications import DECISIONS_FILE, PENDING_FILE, load_decisions
from ..judge.cache import VerdictCache
from ..judge.records import output_hash
from .drafter import Drafter

__all__ = ["DRAFTS_FILE", "TARGET", "Adjudication", "DecisionError", "StaleEntry",
           "disputed_spans"]

#: Drafted decisions, cached by content hash like verdicts (in the judge folder).
DRAFTS_FILE = "adjudication-drafts.jsonl"
_QUOTED = re.compile(r"\"([^\"]{2,200})\"|“([^”]{2,200})”|「([^」]{1,200})」|'([^']{3,200})'")


class DecisionError(DictbenchError):
    """A decision the page sent cannot be recorded."""


class StaleEntry(DecisionError):
    """The entry the page shows is no longer pending (the pending file changed)."""


#: The fields that name a pending entry.
TARGET = ("suite", "case", "product", "rule", "output_hash")


def disputed_spans(output: str, reasons: list[str]) -> list[list[int]]:
    """``[start, end]`` of every fragment quoted in a reason that occurs in ``output``."""
    spans: set[tuple[int, int]] = set()
    for reason in reasons:
        for match in _QUOTED.finditer(reason):
            fragment = next(g for g in match.groups() if g)
            start = output.find(fragment)
            if start >= 0:
                spans.add((start, start + len(fragment)))
    return [list(s) for s in sorted(spans)]


class Adjudication:
    """Pending rules of one suite (from a report folder) and the judge folder's files."""

    def __init__(self, suite_id: str, cases: Mapping[str, Mapping[str, Any]],
                 report_dir: Path, judge_dir: Path, drafter: Drafter | None = None,
                 meanings: Mapping[str, str] | None = None, *,
                 aliases: Mapping[str, str] | None = None,
                 products_dir: Path | None = None) -> None:
        self.suite_id, self.cases = suite_id, cases
        self.report_dir, self.judge_dir = report_dir, judge_dir
        self.drafter = drafter
        self.meanings = meanings or {}
        #: A private suite's keyed case ids (as reports show them) -> its real ids.
        self.aliases = aliases or {}
        #: Where product outputs live, for outputs the report does not hold (private).
        self.products_dir = products_dir

    @property
    def decisions_path(self) -> Path:
        return self.judge_dir / DECISIONS_FILE

    def pending(self) -> list[dict[str, Any]]:
        path = self.report_dir / PENDING_FILE
        if not path.is_file():
            return []
        entries = []
        for number, obj in read_jsonl(path, DictbenchError):
            missing = [k for k in TARGET if not isinstance(obj.get(k), str)]
            if missing:
                raise DictbenchError(f"a pending entry needs text fields {', '.join(missing)}",
                                     path=path, line=number)
            if not isinstance(obj.get("judges", []), list):
                raise DictbenchError("judges must be a list", path=path, line=number)
            if obj["suite"] == self.suite_id:
                entries.append(obj)
        return entries

    def _outputs(self) -> dict[tuple[str, str, str], str]:
        """Output texts of the last run by (case, product, text sha256): from the report,
        else (a private suite's report holds none) from the products' output files."""
        path = self.report_dir / "items.jsonl"
        found: dict[tuple[str, str, str], str] = {}
        if path.is_file():
            for _, record in read_jsonl(path, DictbenchError):
                if record.get("suite") == self.suite_id and isinstance(record.get("text"), str):
                    found[(record["case_id"], record["product"], record["text_sha256"])] = \
                        record["text"]
        if self.products_dir is not None and self.aliases:
            public = {real: shown for shown, real in self.aliases.items()}
            for outputs in self.products_dir.glob(f"*/{self.suite_id}.jsonl"):
                for _, line in read_jsonl(outputs, DictbenchError, tolerate_torn_tail=True):
                    case, text = line.get("case_id") or line.get("id"), line.get("text")
                    if isinstance(text, str) and case in public:
                        found[(public[case], outputs.parent.name, output_hash(text))] = text
        return found

    def _decided(self) -> dict[tuple[str, ...], dict[str, Any]]:
        decided = {}
        for d in load_decisions(self.decisions_path):
            decided[d.target] = {"score": d.score, "reason": d.reason,
                                 "decided_by": d.decided_by}
        return decided

    def view(self) -> list[dict[str, Any]]:
        """One entry per pending rule: the case, the output with spans, the judges, the
        cached draft (if any) and the decision already taken (if any)."""
        outputs = self._outputs()
        decided = self._decided()
        drafts = VerdictCache(self.judge_dir / DRAFTS_FILE)
        entries = []
        for index, p in enumerate(self.pending()):
            case = dict(self.cases.get(self.aliases.get(p["case"], p["case"]), {}))
            output = outputs.get((p["case"], p["product"], p["output_hash"]))
            draft = None
            if self.drafter is not None and output is not None:
                verdict = drafts.get(self.drafter.decision_key(p, case, output))
                if verdict is not None:
                    draft = _draft_json(verdict, p["rule"])
            reasons = [j.get("reason", "") for j in p.get("judges", [])]
            if draft:
                reasons.append(draft["reason"])
            target = (p["suite"], self.aliases.get(p["case"], p["case"]), p["product"],
                      p["output_hash"], p["rule"])
            entries.append({
                "index": index, "pending": p, "case": case, "output": output,
                "spans": disputed_spans(output, reasons) if output else [],
                "meaning": self.meanings.get(p["rule"], ""), "draft": draft,
                "decided": decided.get(target),
            })
        return entries

    def draft(self, target: Any) -> dict[str, Any]:
        """Draft a decision for the pending entry ``target`` names (from the cache when
        there)."""
        if self.drafter is None:
            raise DecisionError("no drafting model is configured (the suite has no [judge] "
                                "table and no --judge-config was given)")
        entry = self._entry(target)
        if entry["output"] is None:
            raise DecisionError("the judged output is not in the last run's items.jsonl")
        p, case, output = entry["pending"], entry["case"], entry["output"]
        with VerdictCache(self.judge_dir / DRAFTS_FILE) as cache:
            key = self.drafter.decision_key(p, case, output)
            verdict = cache.get(key)
            if verdict is None:
                verdict = self.drafter.decision(p, case, output, entry["meaning"])
                cache.put(verdict)
        return _draft_json(verdict, p["rule"])

    def _entry(self, target: Any) -> dict[str, Any]:
        if not isinstance(target, Mapping) or \
                any(not isinstance(target.get(k), str) for k in TARGET):
            raise DecisionError("target must be an object naming the entry's "
                                + ", ".join(TARGET))
        for entry in self.view():
            if all(entry["pending"][k] == target[k] for k in TARGET):
                return entry
        raise StaleEntry(f"case {target['case']!r}, product {target['product']!r}, rule "
                         f"{target['rule']!r} with this output is no longer pending (the "
                         "pending file changed since the page loaded it); reload the page")

    def decide(self, target: Any, score: Any, reason: Any, decided_by: Any,
               today: dt.date | None = None) -> dict[str, Any]:
        """Append the person's decision for the pending entry ``target`` names."""
        if type(score) is not int or score not in (0, 1, 2):
            raise DecisionError("the score must be the integer 0, 1 or 2")
        if not isinstance(reason, str) or not reason.strip():
            raise DecisionError("write a short reason for the decision")
        if not isinstance(decided_by, str) or not decided_by.strip():
            raise DecisionError("say who decides (decided_by)")
        entry = self._entry(target)
        if entry["decided"] is not None:
            raise DecisionError("this rule is already decided in "
                                f"{self.decisions_path}; edit that file to change it")
        p = entry["pending"]
        line = {k: p[k] for k in ("suite", "case", "product", "output_hash", "rule")}
        line["case"] = self.aliases.get(p["case"], p["case"])  # decisions name real ids
        line |= {"score": score, "reason": reason.strip(), "decided_by": decided_by.strip(),
                 "date": (today or dt.date.today()).isoformat(),
                 "judges": p.get("judges", [])}
        if entry["draft"] is not None:
            line["draft"] = entry["draft"]
        path = self.decisions_path
        with file_lock(path.with_name(f".{path.name}.lock")):
            old = read_text(path, DecisionError) if path.exists() else ""
            if old and not old.endswith("\n"):
                old += "\n"
            text = old + canonical_line(line) + "\n"
            _check_decisions(path, text)  # checked before the file is replaced
            atomic_write(path, text)
        return line


def _check_decisions(path: Path, text: str) -> None:
    """Raise unless ``text`` reads as a decisions file (checked in a scratch copy)."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=".decide-") as scratch:
        trial = Path(scratch) / path.name
        trial.write_text(text, encoding="utf-8")
        load_decisions(trial)


def _draft_json(verdict: Any, rule: str) -> dict[str, Any]:
    rv = verdict.rules[rule]
    return {"score": rv.score, "reason": rv.reason, "model": verdict.model, "draft": True}
