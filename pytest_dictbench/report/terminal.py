"""What dictbench prints at the end of a run: summary, leaderboards, comparisons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..text.visible import visible
from .cohorts import cohort_labels, cohort_legend
from .pipelines import scope_note
from .rig import example_lines, table_title
from .sections import fmt, fmt_p, fmt_score, score_note
from .streaming import streaming_note
from .validity import validity_rows

__all__ = ["baseline_line", "capture_spend_lines", "gate_lines", "idle_product_lines",
           "shared_cases", "summary_lines"]

_COLUMNS = ("items", "passed", "failed", "errors", "not_tested", "empty")
#: Leaderboard columns that are settings or counts rather than results.
#: Metric columns a terminal leaderboard shows besides product, rank, score, headline.
_TERMINAL_METRICS = 8
#: Paired comparisons printed per suite (the rest are in dictbench.md).
TERMINAL_COMPARISONS = 50
_NOT_METRICS = frozenset({"product", "rank", "score", "items", "threshold", "vwer_threshold"})


def table(rows: Sequence[Sequence[str]]) -> list[str]:
    """Left-aligned columns, two spaces apart."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in rows]


def _overview(report: Mapping[str, Any]) -> list[str]:
    rows: list[tuple[str, ...]] = [("suite", "product", *_COLUMNS, "score", "95% CI", "rank",
                                    "cohort")]
    for suite in report["suites"]:
        labels = cohort_labels(suite["products"])
        for entry in suite["products"]:
            ci = entry.get("score_ci")
            rows.append((
                suite["id"], entry["product"], *(fmt(entry[c]) for c in _COLUMNS),
                fmt_score(entry), f"{ci['low']:.1f}..{ci['high']:.1f}" if ci else "-",
                fmt(entry.get("rank")), labels.get(entry["product"], "-"),
            ))
    return table(rows)


def _cohorts(suite: Mapping[str, Any]) -> list[str]:
    """One line naming each cohort label of a suite; ranks count within a cohort."""
    legend = cohort_legend(suite["products"])
    if not legend:
        return []
    return [f"{suite['id']}: ranked within environment cohorts (same "
            f"{', '.join(suite.get('ranking', {}).get('same_environment', ()))}): "
            + "; ".join(f"{label} = {text} ({', '.join(names)})"
                        for label, text, names in legend)]


#: Metrics a reader looks for first, ahead of the rest in name order (CF23: the verbatim
#: rates were behind "N more columns").
_FIRST = ("error_rate", "wer", "cer", "vwer", "iwer", "vcer", "icer")


def _leaderboard(suite: Mapping[str, Any]) -> list[str]:
    rows = suite.get("leaderboard", [])
    if not rows:
        return []
    headline = suite.get("headline") or "score"
    metrics = sorted({k for row in rows for k in row} - _NOT_METRICS - {headline},
                     key=lambda k: (_FIRST.index(k) if k in _FIRST else len(_FIRST), k))
    shown = metrics[:_TERMINAL_METRICS]
    columns = ["product", "rank", "cohort", "score",
               *([headline] if headline != "score" else []), *shown]
    more = f" ({len(metrics) - len(shown)} more columns in dictbench.json and .html)" \
        if len(shown) < len(metrics) else ""
    lines = [f"{suite['id']}: leaderboard sorted by {headline}{more}"]
    entries = {e["product"]: e for e in suite.get("products", [])}
    labels = cohort_labels(suite.get("products", []))

    def cell(row: Mapping[str, Any], column: str) -> str:
        if column == "score":
            return fmt_score(entries.get(row["product"], row))
        if column == "cohort":
            return labels.get(row["product"], "-")
        return fmt(row.get(column), column)

    lines += table([columns, *[[cell(row, c) for c in columns] for row in rows]])
    note = score_note(suite)
    return lines + ([f"{suite['id']}: {note}"] if note else [])


def _notes(suite: Mapping[str, Any]) -> list[str]:
    notes = []
    if suite["canary"]["status"] != "ok":
        missing = suite["canary"]["missing_in"]
        audio = any(m.lower().endswith((".wav", ".flac")) for m in missing)
        notes.append(f"{suite['id']}: canary missing in {', '.join(missing)}"
                     + (" (for WAV and FLAC audio, `dictbench canary SUITE` adds it as a tag)"
                        if audio else ""))
    sharing: dict[str, list[str]] = {}  # a reason -> the products it applies to
    for entry in suite["products"]:
        if entry.get("reason"):
            sharing.setdefault(entry["reason"], []).append(entry["product"])
    raw = [str(e["product"]) for e in suite["products"]
           if isinstance(e.get("pipeline"), Mapping) and e["pipeline"].get("scored") == ["raw"]]
    if raw:  # which text a refine pipeline's score is of, where the choice matters (CF19)
        notes.append(f"{suite['id']}: refine pipelines {', '.join(raw)}: the raw recogniser "
                     "text was scored (the suite's score_text), not the refined text; set "
                     'score_text = "refined" at the top of suite.toml to score it')
    for entry in suite["products"]:
        where = f"{suite['id']}/{entry['product']}"
        if entry["canary_leaks"]:
            notes.append(f"{where}: output contains the canary "
                         f"({', '.join(entry['canary_leaks'])})")
        if len(entry.get("model_versions") or {}) > 1:  # a comparison assumes one model
            notes.append(f"{where}: ran on {len(entry['model_versions'])} model versions ("
                         + ", ".join(f"{v}: {n}" for v, n in entry["model_versions"].items())
                         + ")")
        if entry.get("redacted"):
            notes.append(f"{where}: output had a secret redacted before scoring "
                         f"({', '.join(entry['redacted'])})")
        reason = entry.get("reason")
        if reason and sharing[reason] == [entry["product"]]:
            notes.append(f"{where}: not ranked: {reason}")
        elif reason and sharing[reason][0] == entry["product"]:  # one line for all (CF37)
            notes.append(f"{suite['id']}: {len(sharing[reason])} products not ranked "
                         f"({', '.join(sharing[reason])}): {reason}")
        streaming = streaming_note(entry)
        if streaming:
            notes.append(f"{where}: {streaming}")
        overturned = overturned_note(entry.get("tables") or {})
        if overturned:
            notes.append(f"{where}: {overturned}")
    scope = scope_note(suite)
    if scope:
        notes.append(f"{suite['id']}: {scope}")
    for c in suite.get("comparisons", [])[:TERMINAL_COMPARISONS]:
        interval = c["interval"]
        verdict = resolved_text(c)
        notes.append(
            f"{suite['id']}: {c['b']} - {c['a']}: {c['mean_difference']:+.2f} "
            f"[{interval['low']:+.2f}, {interval['high']:+.2f}] ({verdict}); cases failed "
            f"only by {c['a']}: {c['only_a_failed']}{named_cases(c, 'a')}, only by {c['b']}: "
            f"{c['only_b_failed']}{named_cases(c, 'b')}; McNemar p={fmt_p(c['mcnemar_p'])} "
            f"(Holm {fmt_p(c.get('p_holm', c['mcnemar_p']))}); {shared_cases(c, c['a'], c['b'])}")
    hidden = len(suite.get("comparisons", [])) - TERMINAL_COMPARISONS
    if hidden > 0:
        notes.append(f"{suite['id']}: {hidden} more comparisons in dictbench.md")
    return notes


def unused_decision_lines(report: Mapping[str, Any]) -> list[str]:
    """One line per human decision that decided nothing in the run, with its file:line
    and why (``decisions_unused`` in dictbench.json)."""
    return [f"decision not applied: {d['origin']}: {d['suite']}/{d['product']} rule "
            f"{d['rule']}: {d['reason']}" for d in report.get("decisions_unused", ())]


def overturned_note(tables: Mapping[str, Any]) -> str:
    """``judges or a person overturned automated scores: A1 7 of 22, B1 1 of 3`` (of
    the automated scores they decided), so that a lenient judge shows in a CI log;
    empty when none was overturned."""
    overturned = tables.get("overturned") or {}
    judged = tables.get("judged_over_auto") or {}
    parts = [f"{rule} {n} of {judged.get(rule, n)}" for rule, n in overturned.items() if n]
    if not parts:
        return ""
    return "judges or a person overturned automated scores: " + ", ".join(parts)


def _rig(suite: Mapping[str, Any]) -> list[str]:
    """A rig suite's per-metric ranks, one line a table, and its validity findings."""
    rig = suite.get("rig")
    if not rig:
        return []
    lines = [f"{suite['id']}: one ranking per metric table, no overall ranking "
             "(not-ranked reasons in dictbench.md)"]
    lines += [f"{suite['id']}: {line}" for line in example_lines(rig)]
    for t in rig["tables"]:
        ranked = [f"{e['rank']}. {e['app_id']} {e['value']:.6f}"
                  for cohort in t["cohorts"] for e in cohort["entries"]]
        lines.append(f"  {table_title(t)}: {', '.join(ranked) or 'no ranks'}; "
                     f"{len(t['not_ranked'])} not ranked")
    lines += [f"{suite['id']}/{product}: {check}: {finding}"
              for product, check, finding in validity_rows(suite)]
    return lines


def summary_lines(report: Mapping[str, Any]) -> list[str]:
    """The overview table, then per suite its leaderboard (or rig tables) and notes."""
    lines = _overview(report)
    for suite in report.get("suites", []):
        board = _leaderboard(suite) or _rig(suite)
        lines += (["", *board] if board else []) + _cohorts(suite) + _notes(suite)
    lines += unused_decision_lines(report) + idle_product_lines(report)
    return [visible(line) for line in lines]


def idle_product_lines(report: Mapping[str, Any]) -> list[str]:
    """Products named with ``--product`` of which no item was selected (``-k``, a suite
    path they have no outputs for), so that a report never drops them silently."""
    return [f"dictbench: {p['product']}: named with --product, but no item of it was "
            f"selected ({p['reason']}), so it is in no table"
            for p in report.get("products_without_items", ())]


def capture_spend_lines(report: Mapping[str, Any]) -> list[str]:
    """Per product that captured in this run: the captures made, what
    ``--capture-estimate`` would have said of them and what they were billed (PV17);
    none when nothing was captured, so the report is then as before."""
    return [str(line) for line in report.get("capture_spend", ())]


def shared_cases(c: Mapping[str, Any], a: str, b: str) -> str:
    """``on 5 shared cases (scored: a 24, b 5)``: how much of each side was compared
    (and how many provisional cases were left out, when any were)."""
    counts = ""
    if "cases_a" in c:
        left_out = ""
        if c.get("provisional_a") or c.get("provisional_b"):
            left_out = (f"; provisional, left out: {a} {c.get('provisional_a', 0)}, "
                        f"{b} {c.get('provisional_b', 0)}")
        counts = f" (scored: {a} {c['cases_a']}, {b} {c['cases_b']}{left_out})"
    return f"on {c['n']} shared case{'s' if c['n'] != 1 else ''}{counts}"


#: How many case ids a terminal line names before it points to dictbench.json.
NAMED_CASES = 5


def named_cases(c: Mapping[str, Any], side: str, limit: int | None = NAMED_CASES) -> str:
    """`` (k00, k01, +2 more in dictbench.json)``: the discordant cases of one side of a
    comparison (``side`` ``a`` or ``b``), empty for none or a report without them."""
    cases = c.get(f"cases_only_{side}_failed") or []
    if not cases:
        return ""
    shown = cases if limit is None else cases[:limit]
    more = len(cases) - len(shown)
    return f" ({', '.join(shown)}{f', +{more} more in dictbench.json' if more else ''})"


def resolved_text(c: Mapping[str, Any]) -> str:
    """``resolved: the interval excludes 0`` or ``not resolved``, as the reports say it."""
    return "resolved: the interval excludes 0" if c["resolved"] else "not resolved"


def baseline_line(c: Mapping[str, Any], max_drop: float | None = None) -> str:
    """One line comparing a product with itself in the baseline run; with the gate's
    ``max_drop``, a larger drop the gate let through (not resolved) is said to be so."""
    interval = c["interval"]
    line = (f"baseline {c['suite']}/{c['product']}: {c['mean_difference']:+.2f} points "
            f"[{interval['low']:+.2f}, {interval['high']:+.2f}] "
            f"({resolved_text(c)}); cases failed only in the baseline: "
            f"{c['only_a_failed']}{named_cases(c, 'a')}, only now: "
            f"{c['only_b_failed']}{named_cases(c, 'b')}; "
            f"McNemar p={fmt_p(c['mcnemar_p'])}; {shared_cases(c, 'baseline', 'now')}")
    drop = -c["mean_difference"]
    if max_drop is not None and drop > max_drop and not interval["high"] < 0:
        line += (f"; the drop of {drop:.2f} points is above the allowed {max_drop:g} but "
                 f"not statistically resolved (the interval reaches {interval['high']:+.2f}), "
                 "so the gate let it through"
                 + (": too few cases changed for the bootstrap to tell"
                    if interval["high"] == 0 else ""))
    return line


def gate_lines(report: Mapping[str, Any]) -> list[str]:
    """The CI gate's verdict, its failures and the baseline comparisons (empty when the
    run used no gate option)."""
    gate = report.get("gate")
    if gate is None:
        return []
    settings = gate.get("settings")
    if settings is None:  # reports written before the settings were spelled out
        settings = f"max drop {gate['max_drop']:g} points"
        if gate.get("min_score") is not None:
            settings += f", min score {gate['min_score']:g}"
    verdict = f"CI gate: {'passed' if gate['passed'] else 'FAILED'} ({settings})"
    lines = [verdict + "".join(f"; accepted: {note}" for note in gate.get("accepted", ()))]
    lines += [f"FAILED: {failure}" for failure in gate["failures"]]
    for c in report.get("baseline", {}).get("comparisons", []):
        lines.append(baseline_line(c, gate.get("max_drop")))
        for side, what in (("b", "failed only now"), ("a", "failed only in the baseline")):
            if c.get(f"cases_only_{side}_failed"):
                lines.append(f"{c['suite']}/{c['product']}: {what}: "
                             + ", ".join(c[f"cases_only_{side}_failed"]))
    return [visible(line) for line in lines]
