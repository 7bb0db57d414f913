"use strict";
// TOKEN, $, say and post come from common.js, loaded first.
// The adjudication view: a person decides each pending rule. A drafted decision is
// shown as a draft only; nothing is recorded until the person submits a reason.
let state = { entries: [], index: 0 };

function markedOutput(text, spans) {
  const out = $("output");
  out.replaceChildren();
  if (text === null) { out.textContent = "(the judged output is not in the last run's report)"; return; }
  let at = 0;
  for (const [start, end] of spans) {
    if (start < at) continue;
    out.appendChild(document.createTextNode(text.slice(at, start)));
    const mark = document.createElement("mark");
    mark.textContent = text.slice(start, end);
    out.appendChild(mark);
    at = end;
  }
  out.appendChild(document.createTextNode(text.slice(at)));
}

function showDraft(draft, decided) {
  const box = $("draft");
  box.replaceChildren();
  const title = document.createElement("h3");
  const body = document.createElement("p");
  if (decided) {
    title.textContent = "Decided";
    body.textContent = `score ${decided.score} by ${decided.decided_by}: ${decided.reason}`;
  } else if (draft) {
    title.textContent = `DRAFT proposed by ${draft.model} (not a decision)`;
    body.textContent = `score ${draft.score}: ${draft.reason}`;
  } else {
    title.textContent = "No drafted decision";
    body.textContent = "Decide from the judges' reasons.";
  }
  box.append(title, body);
}

function showProgress() {
  const done = state.entries.filter((e) => e.decided).length;
  $("progress").textContent = `${done} of ${state.entries.length} decided`;
}

function show() {
  const e = state.entries[state.index];
  showProgress();
  if (!e) {  // nothing pending: say so, with no form to fill in (CF36)
    $("where").textContent = "Nothing to adjudicate: no judge disagreement is pending " +
      "for this suite.";
    for (const el of document.querySelectorAll("main > *")) el.hidden = el.id !== "where";
    return;
  }
  const p = e.pending;
  $("where").textContent = `Disagreement ${state.index + 1} of ${state.entries.length}: ` +
    `case ${p.case}, product ${p.product}`;
  $("case").textContent = JSON.stringify(e.case, null, 1);
  markedOutput(e.output, e.spans);
  $("rule").textContent = p.rule;
  $("meaning").textContent = e.meaning;
  const body = $("judges").querySelector("tbody");
  body.replaceChildren(...p.judges.map((j) => {
    const tr = document.createElement("tr");
    for (const value of [j.name, j.score, j.reason]) {
      const td = document.createElement("td");
      td.textContent = String(value);
      tr.appendChild(td);
    }
    return tr;
  }));
  showDraft(e.draft, e.decided);
  // the drafted score is never pre-selected: the person chooses one
  $("score").value = e.decided ? String(e.decided.score) : "";
  $("reason").value = e.decided ? e.decided.reason : "";
  $("decide").disabled = Boolean(e.decided);
  if (!e.draft && !e.decided && e.output !== null) requestDraft(state.index);
}

async function requestDraft(index) {
  try {
    const draft = await post("/api/draft", { target: target(state.entries[index]) });
    state.entries[index].draft = draft;
    if (state.index === index) showDraft(draft, null);
  } catch (error) {
    if (state.index === index) say(`No draft: ${error.message}`, true);
  }
}

async function decide(event) {
  if (event) event.preventDefault();
  const e = state.entries[state.index];
  if (!e || e.decided) return;
  if ($("score").value === "") { say("Choose a score.", true); return; }
  try {
    const line = await post("/api/decide", {
      target: target(e), score: Number($("score").value), reason: $("reason").value,
      decided_by: $("decided-by").value,
    });
    e.decided = { score: line.score, reason: line.reason, decided_by: line.decided_by };
    say(`Recorded: ${p_rule(e)} = ${line.score}.`, false);
    document.body.dataset.decided = String(Number(document.body.dataset.decided || 0) + 1);
    show();
  } catch (error) {
    say(`Not recorded: ${error.message}`, true);
  }
}

// a decision names the entry it was shown for, never its position in the pending file
function target(e) {
  const p = e.pending;
  return { suite: p.suite, case: p.case, product: p.product, rule: p.rule,
    output_hash: p.output_hash };
}

function p_rule(e) { return `${e.pending.case} ${e.pending.rule}`; }

function go(step) {
  const next = state.index + step;
  if (next < 0 || next >= state.entries.length) return;
  state.index = next;
  say("", false);
  show();
}

document.addEventListener("keydown", (event) => {
  const mod = event.ctrlKey || event.metaKey;
  if (mod && event.key === "Enter") { decide(event); return; }
  if (event.altKey && event.key === "ArrowRight") { event.preventDefault(); go(1); }
  if (event.altKey && event.key === "ArrowLeft") { event.preventDefault(); go(-1); }
});
$("decision").addEventListener("submit", decide);
$("prev").addEventListener("click", () => go(-1));
$("next").addEventListener("click", () => go(1));

(async function load() {
  const response = await fetch("/api/pending");
  const data = await response.json();
  if (!response.ok) { say(data.error, true); return; }
  state.entries = data.entries;
  $("decided-by").value = document.querySelector('meta[name="dictbench-reviewer"]').content;
  const open = state.entries.findIndex((e) => !e.decided);
  state.index = open >= 0 ? open : 0;
  show();
  document.body.dataset.ready = "1";
})();
