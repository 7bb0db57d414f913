"""The viewer's detail pages: one item, and two runs side by side. Pure: records in,
HTML out; every value escaped, no script."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..report.html_parts import diff_html
from ..store.interface import StoredRun
from ..text.diff import diff_against_closest
from .pages import item_link, official_note, page, run_link

__all__ = ["case_rows", "compare_page", "item_page"]


def _score(value: Any) -> str:
    return "–" if value is None else f"{value:.1f}"


def item_page(run: StoredRun, record: Mapping[str, Any], *, expected: Sequence[str],
              unit: str, audio_url: str | None, private: bool, suite_found: bool) -> str:
    """One item: its verdict, output against the expected text, rule scores with their
    evidence and source, and the case's audio."""
    title = (f"{record.get('suite')} / {record.get('case_id')} / {record.get('product')} "
             f"(repetition {record.get('repetition', 1)})")
    facts = [("status", record.get("status")), ("verdict", record.get("verdict")),
             ("score", _score(record.get("score"))), ("message", record.get("message")),
             ("latency (ms)", record.get("latency_ms")), ("output status",
                                                          record.get("output_status"))]
    body = [f"<h1>{escape(title)}</h1>", "<table id=facts><tbody>"]
    body += [f"<tr><th>{escape(k)}</th><td>{escape(str(v))}</td></tr>" for k, v in facts
             if v not in (None, "")]
    body.append("</tbody></table>")
    if private:
        body.append("<p class=muted>This suite is private: its texts and audio are not "
                    "shown.</p>")
    else:
        text = record.get("text")
        body.append(f"<h2>Output</h2>\n<p id=output class=text>{escape(str(text or ''))}</p>")
        if expected:
            body.append("<h2>Expected</h2>\n" + "".join(
                f"<p class='text expected'>{escape(e)}</p>" for e in expected))
            body.append("<h2>Difference</h2>\n<p id=diff class=text>"
                        + diff_html(diff_against_closest(str(text or ""), expected, unit))
                        + "</p>")
        elif not suite_found:
            body.append("<p class=muted>The suite is not in this checkout, so its expected "
                        "text and audio cannot be shown.</p>")
        if audio_url:
            body.append(f'<h2>Audio</h2>\n<audio id=audio controls preload="none" '
                        f'src="{escape(audio_url)}"></audio>')
    rules = record.get("rules") or {}
    if rules:
        body.append("<h2>Rule scores</h2>\n<table id=rules><thead><tr><th>rule</th>"
                    "<th>score</th><th>by</th><th>evidence</th></tr></thead><tbody>")
        body += [f"<tr><td>{escape(name)}</td><td class=num>{escape(str(r.get('score')))}</td>"
                 f"<td>{escape(str(r.get('source', '')))}</td>"
                 f"<td class=text>{escape(str(r.get('evidence', '')))}</td></tr>"
                 for name, r in sorted(rules.items())]
        body.append("</tbody></table>")
    where = f"{run_link(run.run_id)} · item"
    return page(title, where, "\n".join(body) + "\n")


def _order(row: Mapping[str, Any]) -> tuple[int, str]:
    """Changed cases first: a flip, then a score that moved, then the rest."""
    return (0 if row["flip"] else 1 if row["moved"] else 2, row["case"])


def compare_page(a: StoredRun, b: StoredRun, entries: Sequence[Mapping[str, Any]]) -> str:
    """Two runs side by side per shared suite and product: the paired comparison,
    identical outputs, and every case, changed ones first."""
    body = [f"<h1>{escape(b.run_id)} against {escape(a.run_id)}</h1>"]
    if not entries:
        body.append("<p>The two runs share no suite and product.</p>")
    for entry in entries:
        same, c = entry["identical"], entry["comparison"]
        head = (f"{same['identical']} of {same['items']} outputs identical"
                + (f"; mean difference {c['mean_difference']:+.2f} points on {c['n']} cases, "
                   f"95% interval [{c['interval']['low']:+.2f}, {c['interval']['high']:+.2f}]"
                   f" ({'resolved' if c['resolved'] else 'not resolved'})" if c else ""))
        body.append(f"<h2>{escape(entry['suite'])} / {escape(entry['product'])}</h2>\n"
                    f"<p>{escape(head)}</p>")
        if "official" in entry:
            official = entry["official"]
            side = ("" if official is None else " (the run before)" if official == a.run_id
                    else " (the run after)" if official == b.run_id else " (neither run)")
            note = official_note(entry["suite"], entry["product"], official)
            body.append(f"<p class=official>{note[0].upper()}{note[1:]}{side}.</p>")
        body.append("<table class=pair><thead><tr><th>case</th><th>before</th><th>after</th>"
                    "<th>score before</th><th>score after</th><th>change</th></tr></thead>"
                    "<tbody>")
        for row in sorted(entry["rows"], key=_order):
            change = row["flip"] or ("score moved" if row["moved"] else "")
            body.append(
                f"<tr class='{'changed' if change else 'same'}'>"
                f"<td>{item_link(b.run_id, row['record'], row['case'])}</td>"
                f"<td>{escape(row['status_a'])}</td><td>{escape(row['status_b'])}</td>"
                f"<td class=num>{_score(row['score_a'])}</td>"
                f"<td class=num>{_score(row['score_b'])}</td><td>{escape(change)}</td></tr>")
        body.append("</tbody></table>")
    return page(f"{b.run_id} against {a.run_id}", "two runs", "\n".join(body) + "\n")


def case_rows(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]
              ) -> list[dict[str, Any]]:
    """Per case both runs hold (first repetition): statuses, scores and what changed."""
    left = {r["case_id"]: r for r in a if r.get("repetition", 1) == 1}
    rows = []
    for record in b:
        case = record["case_id"]
        if record.get("repetition", 1) != 1 or case not in left:
            continue
        before, after = left[case]["status"], record["status"]
        flip = f"{before} → {after}" if {before, after} == {"passed", "failed"} else ""
        rows.append({"case": case, "record": record, "status_a": before, "status_b": after,
                     "score_a": left[case].get("score"), "score_b": record.get("score"),
                     "flip": flip, "moved": left[case].get("score") != record.get("score")})
    return rows
