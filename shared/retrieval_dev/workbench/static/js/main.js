// Wires the views together: tabs (arrow keys move between them), the theme, and the token.

import { why, graphPath } from "./api.js";
import { currentAsk, entityNames, probeKeys, setUpAsk } from "./ask.js";
import { setUpCompare } from "./compare.js";
import { $, announce, showError } from "./dom.js";
import { setUpDocuments } from "./documents.js";
import { addRow, forgetKeys } from "./filters.js";
import { clearGraph, drawLineage, drawPaths, restyle } from "./graph.js";
import { showPacket, showSession } from "./packet.js";

const tabs = [...document.querySelectorAll('[role="tab"]')];

function select(tab) {
  for (const other of tabs) {
    const chosen = other === tab;
    other.setAttribute("aria-selected", String(chosen));
    other.tabIndex = chosen ? 0 : -1;
    $(other.getAttribute("aria-controls")).hidden = !chosen;
  }
}

for (const [index, tab] of tabs.entries()) {
  tab.addEventListener("click", () => select(tab));
  tab.addEventListener("keydown", (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    const jump = { Home: 0, End: tabs.length - 1 }[event.key];
    if (step === undefined && jump === undefined) return;
    event.preventDefault();
    const next = tabs[jump ?? (index + step + tabs.length) % tabs.length];
    select(next);
    next.focus();
  });
}

async function explain(id) {
  $("why-id").value = id;
  select($("tab-why"));
  showError("graph-error", null);
  try {
    drawLineage(await why(id), explain);
    announce(`Lineage of ${id} drawn`);
  } catch (error) {
    showError("graph-error", error.message);
  }
}

$("why").addEventListener("submit", (event) => {
  event.preventDefault();
  const id = $("why-id").value.trim();
  if (id) explain(id);
});

$("path").addEventListener("submit", async (event) => {
  event.preventDefault();
  showError("graph-error", null);
  const from = $("path-from").value.trim();
  const to = $("path-to").value.trim();
  if (!from || !to) { showError("graph-error", "Give both entities."); return; }
  try {
    drawPaths(await graphPath(from, to), from, to, entityNames);
    announce(`Chains from ${from} to ${to} drawn`);
  } catch (error) {
    showError("graph-error", error.message);
  }
});

function applyTheme(dark) {
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  $("theme").setAttribute("aria-pressed", String(dark));
  restyle();
}
$("theme").addEventListener("click", () => applyTheme($("theme").getAttribute("aria-pressed") !== "true"));
applyTheme(window.matchMedia("(prefers-color-scheme: dark)").matches);

/** A new token may be another context: nothing the old one was shown stays on the page. */
function forgetAnswers() {
  forgetKeys();
  entityNames.clear();
  clearGraph();
  for (const id of ["hits", "list-a", "list-b", "entities", "documents-rows"]) $(id).replaceChildren();
  for (const id of ["ndcg-a", "ndcg-b", "ask-summary"]) $(id).textContent = "";
  for (const id of ["why-id", "path-from", "path-to", "entity-id"]) $(id).value = "";
  for (const id of ["inferred", "expansion", "documents-table", "documents-more"]) $(id).hidden = true;
  showPacket(null);
  showSession(null);
  probeKeys();
}
$("token").addEventListener("change", forgetAnswers);
$("context-id").addEventListener("change", forgetAnswers);
$("add-filter").addEventListener("click", addRow);
setUpAsk(explain);
setUpCompare(currentAsk);
setUpDocuments();
forgetKeys();
probeKeys();
document.body.dataset.ready = "true";
