"""``dictbench.md``: the report as GitHub-flavoured Markdown, for pull-request comments.

Pure: :func:`render_markdown` turns the ``dictbench.json`` body and the item records
into a string; the same inputs give the same bytes. Tables only, no HTML; every text
from the data is escaped (diffs go in code spans). Failing items are cut to
:data:`FAILING_LIMIT` per suite, with a pointer to ``dictbench.html`` for the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..judge.report import RULE_HEAD, rule_rows
from ..methods.base import ItemRecord
from ..text.visible import visible
from .by_suite import SuiteRecords, records_by_suite
from .cohorts import cohort_labels, cohort_legend
from .comparison_text import (
    common_set_table,
    component_table,
    corrected_table,
    pair_sentences,
    resolved_head,
)
from .method_tables import PlainTable, method_tables
from .observations import observation_tables
from .pipelines import pipeline_tables, scope_note, split_tables
from .rig import rig_notes, rig_tables_text
from .sections import (
    GroupTable,
    error_items,
    failing_items,
    fmt,
    fmt_interval,
    fmt_p,
    fmt_score,
    metric_groups,
    not_tested_cell,
    rule_count_tables,
    score_note,
    shared_cell,
)
from .streaming import streaming_tables
from .terminal import capture_spend_lines, gate_lines, idle_product_lines, unused_decision_lines
from .validity import validity_rows
from .wins import claims_table, win_sentences, wins_basis

__all__ = ["FAILING_LIMIT", "code", "md", "render_markdown"]

#: Failing items listed per suite; the rest are counted and left to the HTML report.
FAILING_LIMIT = 10
#: Longest evidence text kept per rule.
EVIDENCE_LIMIT = 160

_SPECIAL = set("\\`*_[]<>|&#~")

#: Expected outputs per suite id and case id (see ``sections.expected_texts``).
Expected = Mapping[str, Mapping[str, Sequence[str]]]


def md(value: Any) -> str:
    """Text safe in a Markdown table cell: punctuation that means something is
    backslash-escaped and line breaks become spaces."""
    text = " ".join(str(value).split())
    return "".join("\\" + c if c in _SPECIAL else c for c in text)


def code(value: str) -> str:
    """``value`` as a code span that survives any backticks and pipes in it."""
    text = value.replace("\r\n", "↵").replace("\n", "↵").replace("\r", "↵")
    text = text.replace("\t", " ").replace("|", "\\|")
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _table(head: Sequence[str], rows: Iterable[Sequence[str]],
           numeric: Iterable[int] = ()) -> list[str]:
    num = set(numeric)
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---:" if i in num else "---" for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


def _intro(report: Mapping[str, Any]) -> list[str]:
    suites = report.get("suites", [])
    products = sorted({e["product"] for s in suites for e in s["products"]})
    stats = report.get("statistics", {})
    lines = ["# Dictation benchmark report", "",
             f"{len(suites)} suite(s) · {len(products)} product(s): "
             f"{md(', '.join(products))}", "",
             "> **Ranks are per suite.** Each suite is ranked on its own metric; there is "
             "no overall winner across suites.",
             f"> Score: mean over cases of the median over repetitions (0-100). Intervals: "
             f"{md(stats.get('interval', '-'))}, {md(stats.get('resamples', '-'))} resamples, "
             f"seed {md(stats.get('seed', '-'))}. Comparisons: McNemar exact test on "
             f"discordant items; p adjusted by {md(stats.get('p_adjustment', '-'))}.", ""]
    rows = []
    for s in suites:
        r = s.get("ranking", {})
        ranked = sum(1 for e in s["products"] if e.get("rank") is not None)
        direction = "higher" if r.get("higher_is_better", True) else "lower"
        canary = "ok" if s["canary"]["status"] == "ok" else "**missing**"
        rows.append([md(s["title"]), code(s["id"]), md(s["method"]), md(s["locale"]),
                     f"{ranked} of {len(s['products'])}",
                     f"{md(r.get('metric', s.get('headline')))} ({direction} is better)",
                     canary])
    return lines + _table(["Suite", "Id", "Method", "Locale", "Ranked", "Ranked by",
                           "Canary"], rows)


def _leaderboard(suite: Mapping[str, Any]) -> list[str]:
    entries = {e["product"]: e for e in suite["products"]}
    headline = suite.get("headline") or "score"
    extra = [md(headline)] if headline != "score" else []
    speed = any(e.get("speed") for e in entries.values())
    labels = cohort_labels(suite["products"])
    head = ["Rank", "Cohort", "Product", *extra, "Score", "95% interval", "Passed", "Failed",
            "Errors", "Not tested", "Latency median / p95 (ms)", *(["RTFx"] if speed else []),
            "Note"]
    rows = []
    for row in suite.get("leaderboard", []):
        e = entries[row["product"]]
        lat = e.get("latency") or {}
        rtfx = (e.get("speed") or {}).get("rtfx")
        rows.append([str(row["rank"]) if row.get("rank") is not None else "*not ranked*",
                     labels.get(row["product"], "-"), f"**{md(row['product'])}**",
                     *([fmt(row.get(headline), headline)] if extra else []),
                     fmt_score(e), fmt_interval(e.get("score_ci")), str(e["passed"]),
                     str(e["failed"]), str(e["errors"]), not_tested_cell(e),
                     f"{fmt(lat.get('median'))} / {fmt(lat.get('p95'))}",
                     *([f"{rtfx:.1f}" if rtfx is not None else "-"] if speed else []),
                     md(e.get("reason") or "")])
    legend = [f"cohort {label}: {md(text)}" for label, text, _ in cohort_legend(suite["products"])]
    note = score_note(suite)
    return _table(head, rows, numeric=range(3, len(head) - 1)) + (
        [f"Ranks count within an environment cohort ({'; '.join(legend)}).", ""]
        if legend else []) + ([md(note[0].upper() + note[1:]) + ".", ""] if note else [])


def _validity(suite: Mapping[str, Any]) -> list[str]:
    rows = [[md(p), md(check), md(finding)] for p, check, finding in validity_rows(suite)]
    if not rows:
        return []
    return ["**Validity checks**", "", *_table(["Product", "Check", "Finding"], rows, ())]


def _metric_groups(suite: Mapping[str, Any]) -> list[str]:
    groups = metric_groups(suite)
    if not groups:
        return []
    products = sorted(groups.values)
    rows = [[md(cat), *(fmt(groups.values[p][i], groups.unit_name) for p in products)]
            for i, cat in enumerate(groups.categories)]
    return [f"**{md(groups.title)}**: {md(groups.axis)}", "",
            *_table(["", *(md(p) for p in products)], rows, range(1, len(products) + 1))]


def _group(group: GroupTable) -> list[str]:
    rows = []
    for name in group.groups:
        row = [md(name)]
        for product in group.products:
            score, n = group.cells.get(product, {}).get(name, (None, 0))
            cell = f"{fmt(score)} (n={n})" if n else "-"
            errors = group.extra.get(product, {}).get(name)
            if group.extra_title and errors:
                cell += f", {group.extra_title}: {errors}"
            row.append(cell)
        rows.append(row)
    return [f"**Scores {md(group.title)}**", "",
            *_table([md(group.title.removeprefix("by ")), *(md(p) for p in group.products)],
                    rows, range(1, len(group.products) + 1))]


def _rule_failures(suite: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    for title, rules, counts in rule_count_tables(suite, ("rule_failures", "overturned")):
        rows = [[md(p), *(str(c.get(r, 0)) for r in rules)] for p, c in counts.items()]
        lines += [f"**{title}**", "", *_table(["Product", *(md(r) for r in rules)], rows,
                                                range(1, len(rules) + 1))]
    return lines


def _rule_sources(suite: Mapping[str, Any]) -> list[str]:
    """Rubric: per product and layer, rule scores from automated checks / judges /
    none (unjudged). Automated-only layer scores are not comparable with judged ones."""
    rows = []
    for entry in suite["products"]:
        summary = entry.get("tables", {}).get("summary", {})
        if "auto_A" not in summary:
            continue
        rows.append([md(entry["product"]), *(
            f"{summary.get(f'auto_{layer}', 0):g} / {summary.get(f'judge_{layer}', 0):g} / "
            f"{summary.get(f'unjudged_{layer}', 0):g}" for layer in "ABCD")])
    if not rows:
        return []
    return ["**Rule scores by source** (automated / judged / unjudged)", "",
            *_table(["Product", "A", "B", "C", "D"], rows, range(1, 5))]


def _comparisons(suite: Mapping[str, Any]) -> list[str]:
    comparisons = suite.get("comparisons", [])
    if not comparisons:
        return ["**Paired comparisons:** none (no pair of products scored the same items).", ""]
    scope = scope_note(suite)
    rows = [[f"{md(c['b'])} − {md(c['a'])}", shared_cell(c),
             f"{c['only_a_failed']} / {c['only_b_failed']} / {c['both_failed']}",
             md(fmt_p(c.get("mcnemar_p"))), md(fmt_p(c.get("p_holm"))),
             md(fmt_p(c.get("p_bonferroni"))), f"{c['mean_difference']:+.1f}",
             fmt_interval(c.get("interval"), signed=True),
             "**yes**" if c.get("resolved") else "no"] for c in comparisons]
    lines = ["**Paired comparisons** (difference of mean item score, b − a)", "",
             *([md(scope), ""] if scope else []),
             *_table(["b − a", "shared cases", "only a / only b / both failed", "McNemar p",
                      "Holm p", "Bonferroni p", "difference", "95% interval",
                      resolved_head(suite)], rows, range(1, 8))]
    corrected = corrected_table(suite)
    if corrected:
        lines += _plain(corrected)
    parts = component_table(suite)
    if parts:
        lines += _plain(parts) + [md(text) for text in pair_sentences(suite) for text in
                                  (text, "")][:-1] + [""]
    return lines


def _judging(suite: Mapping[str, Any]) -> list[str]:
    rows = []
    for e in suite["products"]:
        j = e.get("judging")
        if not j:
            continue
        kappa = (j.get("agreement") or {}).get("overall", {}).get("kappa")
        rows.append([md(e["product"]), md(", ".join(j.get("judges", []))),
                     str(j.get("items_judged", 0)), str(e.get("pending_adjudications", 0)),
                     f"{float(j.get('cost_usd') or 0.0):.4f}", fmt(kappa, "kappa")])
    if not rows:
        return []
    lines = ["**Judging**", "", *_table(["Product", "Judges", "Items judged", "Pending",
                                         "Cost (USD)", "Judge agreement κ"], rows,
                                        range(2, 6))]
    per_rule = [[md(c) for c in row] for row in rule_rows(suite["products"])]
    if per_rule:
        lines += ["**Judging per rule**", "", *_table(list(RULE_HEAD), per_rule, range(2, 5))]
    return lines


def _failing(suite: Mapping[str, Any], records: Sequence[ItemRecord],
             expected: Mapping[str, Sequence[str]]) -> list[str]:
    items = failing_items(suite, records, expected)
    if not items:
        return ["**Failing items:** none.", ""]
    shown = items[:FAILING_LIMIT]
    rows = []
    for item in shown:
        rules = "; ".join(f"{md(rule)}={score}: {md(_clip(evidence, EVIDENCE_LIMIT))}"
                          for rule, score, evidence in item.rules) or md(item.message)
        case = item.case_id + (f" #{item.repetition}" if item.repetition > 1 else "")
        rows.append([md(item.product), code(case), rules,
                     code(item.diff) if item.diff else "-"])
    lines = [f"**Failing items** ({len(items)})", "",
             *_table(["Product", "Case", "Failed rules (score: evidence)",
                      "Diff against the closest expected output"], rows)]
    if len(items) > len(shown):
        lines += [f"... {len(items) - len(shown)} more in dictbench.html", ""]
    return lines


def _notes(suite: Mapping[str, Any], records: Sequence[ItemRecord]) -> list[str]:
    notes = []
    if suite["canary"]["status"] != "ok":
        notes.append(f"- Canary **missing** in {md(', '.join(suite['canary']['missing_in']))}")
    for e in suite["products"]:
        for d in e.get("environment_disagreements", ()):
            notes.append(f"- **{md(e['product'])}** declares {md(d['field'])} "
                         f"{md(d['declared'])} but its captures recorded {md(d['recorded'])}; "
                         "cohorts use the recorded value")
        if e.get("canary_leaks"):
            notes.append(f"- **{md(e['product'])}** output contains the canary: "
                         f"{md(', '.join(e['canary_leaks']))}")
        if len(e.get("model_versions") or {}) > 1:  # a comparison assumes one model
            notes.append(f"- **{md(e['product'])}** ran on {len(e['model_versions'])} model "
                         "versions: " + md(", ".join(f"{v} ({n})" for v, n
                                                      in e["model_versions"].items())))
        if e.get("redacted"):
            notes.append(f"- **{md(e['product'])}** output had a secret redacted before "
                         f"scoring (scored on the changed text): {md(', '.join(e['redacted']))}")
    for product, case, rep, message in error_items(records):
        where = case + (f" #{rep}" if rep > 1 else "")
        notes.append(f"- Error: {md(product)} {code(where)}: {md(_clip(message, 200))}")
    return [*notes, ""] if notes else []


def _rig(rig: Mapping[str, Any]) -> list[str]:
    lines = [*(f"- {md(note)}" for note in rig_notes(rig)), ""]
    for table in rig_tables_text(rig):
        lines += [f"**{md(table.title)}**", "",
                  *_table(table.head, ([md(c) for c in row] for row in table.rows),
                          numeric=table.numeric)]
    return lines


def _plain(extra: PlainTable) -> list[str]:
    return [f"**{md(extra.title)}**" + (f": {md(extra.note)}" if extra.note else ""), "",
            *_table([md(h) for h in extra.head], [[md(c) for c in row] for row in extra.rows],
                    extra.numeric)]


def _suite(suite: Mapping[str, Any], own: SuiteRecords,
           expected: Mapping[str, Sequence[str]]) -> list[str]:
    records = own.records
    r = suite.get("ranking", {})
    direction = "higher" if r.get("higher_is_better", True) else "lower"
    canary = "ok" if suite["canary"]["status"] == "ok" else "**missing**"
    lines = [f"## {md(suite['title'])} ({code(suite['id'])} {md(suite['version'])})", "",
             f"Method **{md(suite['method'])}**, locale {md(suite['locale'])}, "
             f"{suite.get('repetitions', 1)} repetition(s); "
             + ("ranked per metric table, never overall" if "rig" in suite else
                f"ranked by **{md(r.get('metric'))}** ({direction} is better)")
             + f". Canary: {canary}.", ""]
    gate = r.get("execution_gate", {})
    if gate and not gate.get("ready", True):
        lines += [f"Execution gate closed: {md(', '.join(gate.get('blocking_items', [])))}", ""]
    common = common_set_table(suite)
    lines += _plain(common) if common else []
    lines += ([] if "rig" in suite else _leaderboard(suite)) + _metric_groups(suite)
    for extra in (*method_tables(suite), *pipeline_tables(suite), *streaming_tables(suite)):
        lines += _plain(extra)
    for group in own.group_tables(suite):
        lines += _group(group)
    lines += _validity(suite)
    if "rig" in suite:
        lines += _rig(suite["rig"])
    lines += _rule_failures(suite) + _rule_sources(suite)
    for extra in observation_tables(suite):
        lines += _plain(extra)
    lines += _comparisons(suite)
    wins = win_sentences(suite)
    if wins:
        lines += [f"**Where each competitor wins** ({wins_basis(suite)})", "",
                  *(f"- {md(text)}" for text in wins), ""]
    claims = claims_table(suite)
    lines += _plain(claims) if claims else []
    lines += _judging(suite)
    lines += _failing(suite, records, expected) + _notes(suite, records)
    return lines


def render_markdown(report: Mapping[str, Any], records: Sequence[ItemRecord],
                    expected: Expected | None = None, *,
                    by_suite: Mapping[str, SuiteRecords] | None = None) -> str:
    """The whole ``dictbench.md``.

    :param report: the ``dictbench.json`` body (``aggregate.summarize``).
    :param records: the run's item records (``items.jsonl``).
    :param expected: expected outputs per suite and case, for diffs of failing items
        whose method does not make its own (``sections.expected_texts(suites)``).
    :param by_suite: ``sections.records_by_suite(report, records)``, when the caller
        has it already (the HTML page reads the same).
    """
    by_suite = by_suite if by_suite is not None else records_by_suite(report, records)
    lines = _intro(report)
    idle = idle_product_lines(report)
    if idle:
        lines += [*(f"> {md(line)}" for line in idle), ""]
    gate = gate_lines(report)
    if gate:
        lines += ["## CI gate", "", *(f"- {md(line)}" for line in gate), ""]
    spend = capture_spend_lines(report)
    if spend:
        lines += ["## Captures: estimated and billed", "", *(f"- {md(line)}" for line in spend),
                  ""]
    for extra in split_tables(report):
        lines += _plain(extra)
    for suite in report.get("suites", []):
        lines += _suite(suite, by_suite[suite["id"]], (expected or {}).get(suite["id"], {}))
    unused = unused_decision_lines(report)
    if unused:
        lines += ["## Decisions not applied", "", *(f"- {md(line)}" for line in unused), ""]
    return visible("\n".join(lines).rstrip("\n") + "\n")
