"""``dictbench publish REPORT_DIR OUT_DIR``: an aggregate-only summary of a run.

Reads ``dictbench.json`` and nothing else (never ``items.jsonl`` or the pages that show
items), keeps only aggregate fields - counts, scores with their intervals, ranks,
leaderboards, comparisons, latency, judge agreement and cost, where each competitor wins
and the vendors' claims apart - and drops every field that can name or quote a case
(failing-item tables, canary leak lists, the case list in a not-ranked reason). Writes
``summary.json`` and ``summary.md`` with the shared writers. When the run wrote a
``history.json`` (its results store holds its history), the summary says which run is
official per suite and product, and whether this run is it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import DictbenchError
from ..files import NOT_REGULAR, atomic_write
from ..jsonl import read_json
from ..report.cohorts import cohort_labels, cohort_legend
from ..report.files import dumps
from ..report.markdown import md
from ..report.sections import fmt, fmt_interval, fmt_p
from ..report.wins import win_sentences, wins_basis

__all__ = ["official_runs", "publish", "summarize_report"]

SUMMARY_VERSION = 1
_SUITE_FIELDS = ("id", "title", "version", "method", "locale", "headline", "repetitions")
_PRODUCT_FIELDS = ("product", "version", "adapter", "environment", "cohort", "items", "cases",
                   "cases_scored", "passed", "failed", "errors", "not_tested", "empty",
                   "score", "score_ci", "rank", "latency", "speed", "pending_adjudications")
_JUDGING_FIELDS = ("agreement", "human_agreement", "cost_usd", "spend", "pending")
#: A parenthesis at the end of a reason lists cases: "(en-014: error, ...)".
_CASE_LIST = re.compile(r"\s*\([^()]*:[^()]*\)\s*$")


def _scalars(value: Any) -> Any:
    """Numbers, booleans, None and mappings of them; lists of text (case ids) dropped."""
    if isinstance(value, Mapping):
        kept = {k: _scalars(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v is not _DROP}
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    if isinstance(value, str):
        return value
    return _DROP


_DROP = object()


def _product(entry: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: _scalars(entry[k]) for k in _PRODUCT_FIELDS if k in entry}
    if entry.get("reason"):
        out["reason"] = _CASE_LIST.sub("", str(entry["reason"]))
    summary = (entry.get("tables") or {}).get("summary")
    if isinstance(summary, Mapping):
        out["summary"] = _scalars(summary)
    judging = entry.get("judging")
    if isinstance(judging, Mapping):
        out["judging"] = {k: _scalars(judging[k]) for k in _JUDGING_FIELDS if k in judging}
    return out


def _comparison(c: Mapping[str, Any]) -> dict[str, Any]:
    """A comparison's figures, with its components and relative cost and latency (lists
    of figures, no case in them)."""
    out = _scalars(c)
    for key in ("components", "relative"):
        if c.get(key):
            out[key] = [_scalars(row) for row in c[key]]
    return out


def official_runs(report_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Per suite id, the official run of each product as the run's ``history.json``
    names it (run id, when declared, whether this run is it); ``{}`` without one. The
    declaration's reason and passed-over runs stay out (free text)."""
    path = report_dir / "history.json"
    if not path.exists():
        return {}
    history = read_json(path, DictbenchError)
    found: dict[str, list[dict[str, Any]]] = {}
    try:
        for suite in history["suites"]:
            for entry in suite["products"]:
                official = entry["official"]
                if official:
                    found.setdefault(str(suite["id"]), []).append(
                        {"product": str(entry["product"]), "run_id": str(official["run_id"]),
                         "declared_utc": str(official["declared_utc"]),
                         "this_run": official["this_run"] is True})
    except (KeyError, TypeError) as exc:
        raise DictbenchError(f"not a dictbench history file (no {exc})", path=path) from None
    return found


def summarize_report(report: Mapping[str, Any],
                     officials: Mapping[str, list[dict[str, Any]]] | None = None
                     ) -> dict[str, Any]:
    """The publishable part of a ``dictbench.json`` (and of ``official_runs``)."""
    suites = []
    for suite in report.get("suites", ()):
        entry = {k: suite[k] for k in _SUITE_FIELDS if k in suite}
        entry["products"] = [_product(p) for p in suite.get("products", ())]
        entry["leaderboard"] = [_scalars(row) for row in suite.get("leaderboard", ())]
        entry["comparisons"] = [_comparison(c) for c in suite.get("comparisons", ())]
        common = suite.get("common_set")
        if common:  # counts only: the cases left out are named in the full report
            entry["common_set"] = {k: _scalars(common[k]) for k in ("cases", "of", "lost")}
        wins = win_sentences(suite)  # product and figure names only, never a case
        if wins:
            entry["where_others_win"] = list(wins)
            entry["wins_basis"] = wins_basis(suite)
        claims = {p["product"]: p["claims"] for p in suite.get("products", ())
                  if p.get("claims")}
        if claims:  # documented, not measured: kept apart and never ranked
            entry["vendor_claims"] = claims
        if (officials or {}).get(suite.get("id")):
            entry["official"] = list((officials or {})[suite["id"]])
        suites.append(entry)
    return {"summary_version": SUMMARY_VERSION,
            "statistics": _scalars(report.get("statistics", {})), "suites": suites}


def _in_rank_order(suite: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The suite's products in its leaderboard's order, then any the leaderboard lacks."""
    order = {row.get("product"): i for i, row in enumerate(suite.get("leaderboard", ()))}
    return sorted(suite["products"], key=lambda p: order.get(p["product"], len(order)))


def render_summary(summary: Mapping[str, Any]) -> str:
    """The summary as Markdown: one table of products per suite, in rank order with the
    ranked metric beside the rank, then comparisons. Every text cell is escaped (a ``|``
    or a line break in a value cannot shift a row: CF14)."""
    lines = ["# dictbench results (aggregates only)", ""]
    for suite in summary["suites"]:
        metric = suite.get("headline")
        values = {row.get("product"): row.get(metric) for row in suite.get("leaderboard", ())}
        lines += [f"## {md(suite.get('title', suite['id']))} (`{suite['id']}` "
                  f"{md(suite.get('version', ''))}, {md(suite.get('method', ''))})", "",
                  f"| product | version | items | passed | failed | errors | score | 95% CI "
                  f"| {md(metric or 'ranked by')} | rank | cohort |",
                  "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|"]
        labels = cohort_labels(suite["products"])
        for p in _in_rank_order(suite):
            interval = fmt_interval(p.get("score_ci"))
            rank = p.get("rank") if p.get("rank") is not None else \
                f"not ranked: {p.get('reason', '')}"
            value = values.get(p["product"])
            lines.append(f"| {md(p['product'])} | {md(p.get('version', ''))} "
                         f"| {p.get('items', '')} | {p.get('passed', '')} "
                         f"| {p.get('failed', '')} | {p.get('errors', '')} "
                         f"| {fmt(p.get('score'))} | {interval} "
                         f"| {fmt(value) if isinstance(value, int | float) else '-'} "
                         f"| {md(rank)} | {md(labels.get(p['product'], '-'))} |")
        legend = cohort_legend(suite["products"])
        if legend:
            lines += ["", "Ranks count within an environment cohort: "
                      + "; ".join(f"{label} = {text}" for label, text, _ in legend) + "."]
        if suite["comparisons"]:
            lines += ["", "| A | B | items | B - A | 95% CI | McNemar p | p (Holm) |",
                      "|---|---|---:|---:|---|---:|---:|"]
            for c in suite["comparisons"]:
                lines.append(f"| {md(c.get('a'))} | {md(c.get('b'))} | {c.get('n')} "
                             f"| {fmt(c.get('mean_difference'))} "
                             f"| {fmt_interval(c.get('interval'), signed=True)} "
                             f"| {fmt_p(c.get('mcnemar_p'))} | {fmt_p(c.get('p_holm'))} |")
        lines += [""] * bool(suite.get("official")) + [
            f"- Official run of {md(o['product'])}: `{o['run_id']}` (declared "
            f"{md(o['declared_utc'])}); {'this run' if o['this_run'] else 'not this run'}."
            for o in suite.get("official", ())]
        common = suite.get("common_set")
        if common:
            lost = "; ".join(f"{md(p)} {n}" for p, n in common.get("lost", {}).items()) or "none"
            lines += ["", f"Compared and ranked on the {common['cases']} of {common['of']} "
                      f"cases every product could take (cases each could not take: {lost})."]
        if suite.get("where_others_win"):
            lines += ["", f"Where each competitor wins ({md(suite.get('wins_basis', ''))}):", "",
                      *(f"- {md(text)}" for text in suite["where_others_win"])]
        if suite.get("vendor_claims"):
            lines += ["", "Vendor claims (documented, not measured; never ranked):", "",
                      "| product | claim | source | read on |", "|---|---|---|---|"]
            lines += [f"| {md(product)} | {md(c['claim'])} | {md(c['source_url'])} "
                      f"| {md(c['checked'])} |"
                      for product, claims in suite["vendor_claims"].items() for c in claims]
        lines.append("")
    return "\n".join(lines)


#: What a publish folder may already hold: an earlier publish's files.
PUBLISHED = ("summary.json", "summary.md")


def _check_out(report_dir: Path, out_dir: Path, force: bool) -> None:
    """Refuse an output folder that is a file, the report folder, or one holding
    anything but an earlier summary (it would be published with it) unless ``force``."""
    if out_dir.exists() and not out_dir.is_dir():
        raise DictbenchError("exists and is not a folder", path=out_dir)
    if out_dir.resolve() == report_dir.resolve():
        raise DictbenchError("this is the report folder itself, which holds every output "
                             "text: publish into a folder of its own", path=out_dir)
    if not out_dir.is_dir() or force:
        return
    others = sorted(p.name for p in out_dir.iterdir() if p.name not in PUBLISHED)
    if others:
        raise DictbenchError(f"the folder already holds {', '.join(others[:5])}"
                             f"{' …' if len(others) > 5 else ''}, which would be published "
                             "beside the summary; use an empty folder (or --force)",
                             path=out_dir)


def publish(report_dir: Path, out_dir: Path, *, force: bool = False) -> list[Path]:
    """Write ``summary.json`` and ``summary.md`` for the run in ``report_dir`` into
    ``out_dir`` (see :func:`_check_out` for the folders refused)."""
    source = report_dir / "dictbench.json"
    if source.exists() and not source.is_file():
        raise DictbenchError(NOT_REGULAR, path=source)
    if not source.is_file():
        raise DictbenchError("no dictbench.json here: give the report folder of a run",
                             path=source)
    report = read_json(source, DictbenchError)  # strict: a duplicated key is refused (CF2)
    if not isinstance(report, dict):
        raise DictbenchError("not a dictbench report: the top level is not an object",
                             path=source)
    _check_out(report_dir, out_dir, force)
    summary = summarize_report(report, official_runs(report_dir))
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / "summary.json", out_dir / "summary.md"]
    atomic_write(written[0], dumps(summary) + "\n")
    atomic_write(written[1], render_summary(summary))
    return written
