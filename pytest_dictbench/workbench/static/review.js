"use strict";
// TOKEN, $, say and post come from common.js, loaded first.
// The review page: one case at a time, keyboard first. Every write carries the
// session token and the fingerprint of the cases file the page last loaded.
let state = { cases: [], fingerprint: "", index: 0, dirty: false };

function showProgress(approved, total) {
  $("progress").textContent = `${approved} of ${total} approved`;
}

function pointRow(point) {
  const tr = document.createElement("tr");
  tr.dataset.id = point.id || "";
  const text = document.createElement("input");
  text.className = "point";
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

function show() {
  const c = state.cases[state.index];
  if (!c) { $("where").textContent = "This suite has no cases."; return; }
  $("where").textContent = `Case ${state.index + 1} of ${state.cases.length}: ${c.id}`;
  $("status").textContent = c.status || "approved";
  const player = $("player");
  const src = `/audio/${encodeURIComponent(c.id)}`;
  if (c.audio) { if (player.getAttribute("src") !== src) player.src = src; }
  else player.removeAttribute("src");
  $("transcript").value = c.reference || "";
  const body = $("points").querySelector("tbody");
  body.replaceChildren(...(c.key_points || []).map(pointRow));
  state.dirty = false;
}

function edited() {
  // only the fields this case has (or a keypoints case should have) are sent
  const c = state.cases[state.index];
  const edit = { id: c.id };
  if ("reference" in c || state.method === "keypoints") edit.reference = $("transcript").value;
  if ("key_points" in c || state.method === "keypoints") {
    edit.key_points = [...$("points").querySelectorAll("tbody tr")].map((tr) => ({
      id: tr.dataset.id,
      text: tr.querySelector("input").value,
      severity: tr.querySelector("select").value,
    }));
  }
  return edit;
}

async function save(extra) {
  const edit = Object.assign(edited(), extra || {});
  try {
    const result = await post("/api/case", { fingerprint: state.fingerprint, case: edit });
    state.fingerprint = result.fingerprint;
    state.cases[state.index] = result.case;
    state.dirty = false;
    showProgress(result.approved, result.total);
    document.body.dataset.saved = String(Number(document.body.dataset.saved || 0) + 1);
    return true;
  } catch (error) {
    say(`Not saved: ${error.message}`, true);
    return false;
  }
}

async function go(step) {
  if (state.dirty && !(await save())) return;
  const next = state.index + step;
  if (next < 0 || next >= state.cases.length) return;
  state.index = next;
  show();
}

async function approve() {
  if (await save({ status: "approved" })) {
    say(`Approved ${state.cases[state.index].id}.`, false);
    if (state.index + 1 < state.cases.length) { state.index += 1; show(); }
    else show();
  }
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
  if (mod && event.key === "Enter") { event.preventDefault(); approve(); return; }
  if (mod && event.key.toLowerCase() === "s") { event.preventDefault(); save(); return; }
  if (event.altKey && event.key === "ArrowRight") { event.preventDefault(); go(1); return; }
  if (event.altKey && event.key === "ArrowLeft") { event.preventDefault(); go(-1); return; }
  if (event.altKey && event.code === "KeyK") { event.preventDefault(); togglePlay(); return; }
  if (inField(event.target) || mod || event.altKey) return;
  if (event.key === "j") go(1);
  else if (event.key === "k") go(-1);
  else if (event.key === " ") { event.preventDefault(); togglePlay(); }
});

$("transcript").addEventListener("input", () => { state.dirty = true; });
$("add").addEventListener("click", () => {
  const row = pointRow({ text: "", severity: "minor" });
  $("points").querySelector("tbody").appendChild(row);
  row.querySelector("input").focus();
  state.dirty = true;
});
$("prev").addEventListener("click", () => go(-1));
$("next").addEventListener("click", () => go(1));
$("save").addEventListener("click", () => save());
$("approve").addEventListener("click", approve);

(async function load() {
  const response = await fetch("/api/suite");
  const data = await response.json();
  if (!response.ok) { say(data.error, true); return; }
  state.cases = data.cases;
  state.fingerprint = data.fingerprint;
  state.method = data.suite.method;
  $("title").textContent = `Review: ${data.suite.title || data.suite.id}`;
  showProgress(data.approved, data.total);
  const firstDraft = data.cases.findIndex((c) => c.status === "draft");
  state.index = firstDraft >= 0 ? firstDraft : 0;
  show();
  document.body.dataset.ready = "1";
})();
