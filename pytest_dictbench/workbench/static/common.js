"use strict";
// Shared by the review and adjudication pages: the session token every write carries,
// an element lookup, the message line, and a JSON POST that throws the server's error.
const TOKEN = document.querySelector('meta[name="dictbench-token"]').content;
const $ = (id) => document.getElementById(id);

function say(text, isError) {
  $("message").textContent = text;
  $("message").className = isError ? "error" : "";
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Dictbench-Token": TOKEN },
    body: JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}
