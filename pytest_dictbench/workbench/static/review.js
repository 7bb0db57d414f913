"use strict";
// TOKEN, $, say and post come from common.js, loaded first.
// The review page: one case at a time, keyboard first. Every write carries the
// session token and the fingerprint of the cases file the page last loaded.
// Approving (Ctrl+Enter or the Approve button, by click or Enter) ignores key repeat,
// IME composition and the second click of a double click, does nothing while a save is
// in flight, and works only on a case that has been on screen for SETTLE_MS: holding,
// double-pressing or double-clicking approves at most the case on screen.
const SETTLE_MS = 1000;
let state = { cases: [], fingerprint: "", index: 0, dirty: false, saving: false,
  shownAt: 0, problems: {}, path: "" };

function showProgress(approved, total) {
  $("progress").textContent = `${approved} of ${total} approved`;
}

function pointRow(point) {
  const tr = document.createElement("tr");
  tr.dataset.id = point.id || "";
  // a text box, not a one-line input (which drops a point's line breaks)
  const text = document.createElement("textarea");
  text.className = "point";
  text.rows = Math.max(1, (point.text || "").split(/\r\n|\r|\n/).length);
  text.value = point.text || "";
  text.setAttribute("aria-label", "key point");
  const severity = document.createElement("select");
  for (const s of ["critical", "minor"]) {
    const option = document.createElement("option");
    option.textContent = s;
    severity.appendChild(option);
  }
  severity.value = point.severity || "minor";
  const remove = document.createElement("button");
  remove.type = "button";
  remove.textContent = "Remove";
  remove.addEventListener("click", () => { tr.remove(); state.dirty = true; });
  for (const element of [text, severity]) {
    element.addEventListener("input", () => { state.dirty = true; });
  }
  for (const element of [text, severity, remove]) {
    const td = document.createElement("td");
    td.appendChild(element);
    tr.appendChild(td);
  }
  return tr;
}

function showWarnings(warnings) {
  $("warnings").replaceChildren(...(warnings || []).map((w) => {
    const li = document.createElement("li");
    li.textContent = w;
    return li;
  }));
}

async function audioProblem() {
  // the player gives no reason: ask the server, which answers a JSON error
  const c = state.cases[state.index];
  if (!c || !c.audio) return;
  try {
    const response = await fetch(`/audio/${encodeURIComponent(c.id)}`, { method: "GET" });
    if (!response.ok) {
      const data = await response.json();
      $("audio-note").textContent = `Audio unavailable: ${data.error}`;
    }
  } catch (error) {
    $("audio-note").textContent = `Audio unavailable: ${error.message}`;
  }
}

function show() {
  const c = state.cases[state.index];
  if (!c) { $("where").textContent = "This suite has no cases."; return; }
  $("where").textContent = `Case ${state.index + 1} of ${state.cases.length}: ${c.id}`;
  $("status").textContent = c.status || "approved";
  $("problem").textContent = state.problems[c.id] || "";
  $("audio-note").textContent = c.audio ? "" : "This case has no audio.";
  const player = $("player");
  const src = `/audio/${encodeURIComponent(c.id)}`;
  if (c.audio) { if (player.getAttribute("src") !== src) player.src = src; }
  else player.removeAttribute("src");
  $("transcript").value = c.reference || "";
  const body = $("points").querySelector("tbody");
  body.replaceChildren(...(c.key_points || []).map(pointRow));
  state.dirty = false;
  state.shownAt = performance.now();
  document.body.dataset.shown = c.id;
  delete document.body.dataset.settled;
  clearTimeout(state.settleTimer);
  // marks when the shortcut starts to work on this case (tests wait for it)
  state.settleTimer = setTimeout(() => { document.body.dataset.settled = c.id; }, SETTLE_MS);
}

function edited() {
  // only the fields this case has (or a keypoints case should have) are sent
  const c = state.cases[state.index];
  const edit = { id: c.id };
  if ("reference" in c || state.method === "keypoints") edit.reference = $("transcript").value;
  if ("key_points" in c || state.method === "keypoints") {
    edit.key_points = [...$("points").querySelectorAll("tbody tr")].map((tr) => ({
      id: tr.dataset.id,
      text: tr.querySelector(".point").value,
      severity: tr.querySelector("select").value,
    }));
  }
  return edit;
}

async function save(extra) {
  if (state.saving) return false;  // one write at a time: the next needs its fingerprint
  state.saving = true;
  const edit = Object.assign(edited(), extra || {});
  try {
    const result = await post("/api/case", { fingerprint: state.fingerprint, case: edit });
    state.fingerprint = result.fingerprint;
    state.cases[state.index] = result.case;
    delete state.problems[result.case.id];
    $("problem").textContent = "";
    state.dirty = false;
    showProgress(result.approved, result.total);
    showWarnings(result.warnings);
    state.approved = result.approved;
    document.body.dataset.saved = String(Number(document.body.dataset.saved || 0) + 1);
    return true;
  } catch (error) {
    say(`Not saved: ${error.message}`, true);
    return false;
  } finally {
    state.saving = false;
  }
}

async function go(step) {
  if (state.dirty && !(await save())) return;
  const next = state.index + step;
  if (next < 0 || next >= state.cases.length) return;
  state.index = next;
  show();
}

function finished() {
  const total = state.cases.length;
  say(`All ${total} cases approved; nothing left to review. Next: run the benchmark, ` +
    `pytest ${state.path} --product=NAME`, false);
  document.body.dataset.done = "1";
}

async function approve() {
  if (state.saving) return;
  if (await save({ status: "approved" })) {
    const id = state.cases[state.index].id;
    if (state.cases.every((c) => c.status !== "draft")) { show(); finished(); return; }
    say(`Approved ${id}.`, false);
    // on to the next case waiting for review (after this one, else from the start)
    const order = [...state.cases.keys()].slice(state.index + 1)
      .concat([...state.cases.keys()].slice(0, state.index));
    const next = order.find((i) => state.cases[i].status === "draft");
    state.index = next === undefined ? state.index : next;
    show();
  }
}

function approveRequest(event) {
  // The one gate of every approval, the Ctrl+Enter shortcut and the Approve button
  // alike: a held key repeats (and a held Enter on the focused button clicks it once
  // per repeat), Enter during IME composition confirms the composition, the second
  // click of a double click is not a second decision, one approval at a time, and only
  // on a case that has been on screen for SETTLE_MS.
  event.preventDefault();
  if (event.repeat || event.isComposing || event.keyCode === 229) return;
  if (event.type === "click" && event.detail > 1) return;
  if (state.saving) return;
  if (performance.now() - state.shownAt < SETTLE_MS) {
    say("This case has just appeared: look at it, then approve it again.", true);
    return;
  }
  approve();
}

function togglePlay() {
  const player = $("player");
  if (player.paused) player.play(); else player.pause();
}

function inField(target) {
  return target && ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

document.addEventListener("keydown", (event) => {
  const mod = event.ctrlKey || event.metaKey;
  if (mod && event.key === "Enter") { approveRequest(event); return; }
  if (mod && event.key.toLowerCase() === "s") {
    event.preventDefault();
    if (!event.repeat) save();
    return;
  }
  if (event.altKey && event.key === "ArrowRight") { event.preventDefault(); go(1); return; }
  if (event.altKey && event.key === "ArrowLeft") { event.preventDefault(); go(-1); return; }
  if (event.altKey && event.code === "KeyK") { event.preventDefault(); togglePlay(); return; }
  if (inField(event.target) || mod || event.altKey) return;
  if (event.key === "j") go(1);
  else if (event.key === "k") go(-1);
  else if (event.key === " ") { event.preventDefault(); togglePlay(); }
});

$("transcript").addEventListener("input", () => { state.dirty = true; });
$("player").addEventListener("error", audioProblem);
window.addEventListener("beforeunload", (event) => {
  if (!state.dirty) return;
  event.preventDefault();  // the browser asks whether to leave with unsaved edits
  event.returnValue = "";
});
$("add").addEventListener("click", () => {
  const row = pointRow({ text: "", severity: "minor" });
  $("points").querySelector("tbody").appendChild(row);
  row.querySelector(".point").focus();
  state.dirty = true;
});
$("prev").addEventListener("click", () => go(-1));
$("next").addEventListener("click", () => go(1));
$("save").addEventListener("click", () => save());
$("approve").addEventListener("keydown", (event) => {
  // a repeated (or composing) Enter on the focused button must not click it
  if (event.key === "Enter" && (event.repeat || event.isComposing || event.keyCode === 229)) {
    event.preventDefault();
  }
});
$("approve").addEventListener("click", approveRequest);

(async function load() {
  const response = await fetch("/api/suite");
  const data = await response.json();
  if (!response.ok) { say(data.error, true); return; }
  state.cases = data.cases;
  state.fingerprint = data.fingerprint;
  state.method = data.suite.method;
  state.problems = data.problems || {};
  state.path = data.path || "SUITE";
  showWarnings(data.warnings);
  $("title").textContent = `Review: ${data.suite.title || data.suite.id}`;
  showProgress(data.approved, data.total);
  const firstDraft = data.cases.findIndex((c) => c.status === "draft");
  state.index = firstDraft >= 0 ? firstDraft : 0;
  show();
  if (data.total > 0 && data.approved === data.total) finished();
  document.body.dataset.ready = "1";
})();
