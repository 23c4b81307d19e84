// Per-file status from GET /v1/documents, when this server has that route: every page of the prefix
// is read, counted by status (each count picks that status), and shown a hundred rows at a time,
// filtered by the chosen status; finding fifteen failures among a thousand files takes one click.

import { documents } from "./api.js";
import { $, announce, el, showError } from "./dom.js";

const SHOWN = 100;
const MAX_PAGES = 100;
const STATUSES = ["indexed", "updated", "unchanged", "stale", "pending", "failed", "skipped", "deleted"];

let listed = [];
let shown = 0;
let partial = false;

function routeMissing(error) {
  // A route the server does not have: 404, or API Gateway's 403 "Missing Authentication Token".
  return error.status === 404 || (error.status === 403 && error.body && error.body.error === "gateway_error");
}

function row(doc) {
  return el("tr", { "data-document-key": doc.key, "data-status": doc.status },
    el("td", {}, el("code", {}, doc.key)),
    el("td", {}, el("span", { class: `badge doc-${doc.status}` }, doc.status)),
    el("td", {}, doc.version ?? ""), el("td", {}, doc.chunks ?? ""),
    el("td", {}, doc.reason ?? ""), el("td", {}, doc.updated_at ?? ""));
}

function chosen() {
  const status = $("doc-status").value;
  return status ? listed.filter((doc) => doc.status === status) : listed;
}

/** "1,173 files: 1,150 indexed, 15 skipped, 8 failed", each count a button that shows only those. */
function showCounts() {
  const counts = new Map();
  for (const doc of listed) counts.set(doc.status, (counts.get(doc.status) || 0) + 1);
  const order = [...STATUSES.filter((s) => counts.has(s)), ...[...counts.keys()].filter((s) => !STATUSES.includes(s))];
  const total = `${listed.length.toLocaleString("en")}${partial ? "+" : ""} file${listed.length === 1 ? "" : "s"}`;
  $("documents-counts").replaceChildren(
    el("span", { "data-count-status": "" }, total), order.length ? ": " : "",
    ...order.flatMap((status, index) => [
      index ? ", " : "",
      el("button", { type: "button", class: `link doc-count doc-${status}`, "data-count-status": status,
        "aria-label": `Show only the ${counts.get(status)} ${status}`,
        onclick: () => { $("doc-status").value = status; render(); } },
        `${counts.get(status).toLocaleString("en")} ${status}`),
    ]),
    partial ? ` (the first ${MAX_PAGES} pages; narrow the prefix for the rest)` : "");
  $("documents-counts").hidden = false;
}

function render(more = false) {
  const rows = chosen();
  const from = more ? shown : 0;
  shown = Math.min(rows.length, from + SHOWN);
  const built = rows.slice(from, shown).map(row);
  if (more) $("documents-rows").append(...built);
  else $("documents-rows").replaceChildren(...built);
  $("documents-table").hidden = false;
  $("documents-more").hidden = shown >= rows.length;
  const status = $("doc-status").value;
  announce(`${rows.length} ${status || "documents"}${status ? " documents" : ""}`);
}

async function list() {
  showError("documents-error", null);
  $("documents-unavailable").hidden = true;
  try {
    const prefix = $("doc-prefix").value.trim();
    const all = [];
    let token = null;
    let pages = 0;
    do {
      const answer = await documents(prefix, token);
      all.push(...answer.documents);
      token = answer.next_token || null;
    } while (token && ++pages < MAX_PAGES);
    listed = all;
    partial = Boolean(token);
    showCounts();
    render();
  } catch (error) {
    $("documents-table").hidden = true;
    $("documents-more").hidden = true;
    $("documents-counts").hidden = true;
    if (error.status && routeMissing(error)) $("documents-unavailable").hidden = false;
    else showError("documents-error", error.message);
  }
}

export function setUpDocuments() {
  $("documents").addEventListener("submit", (event) => { event.preventDefault(); list(); });
  $("doc-status").addEventListener("change", () => { if (listed.length) render(); });
  $("documents-more").addEventListener("click", () => render(true));
}
