// Per-file status from GET /v1/documents, when this server has that route.

import { documents } from "./api.js";
import { $, el, showError } from "./dom.js";

let nextToken = null;

function routeMissing(error) {
  // A route the server does not have: 404, or API Gateway's 403 "Missing Authentication Token".
  return error.status === 404 || (error.status === 403 && error.body && error.body.error === "gateway_error");
}

async function list(append) {
  showError("documents-error", null);
  $("documents-unavailable").hidden = true;
  try {
    const answer = await documents($("doc-prefix").value.trim(), append ? nextToken : null);
    const rows = answer.documents.map((doc) =>
      el("tr", { "data-document-key": doc.key, "data-status": doc.status },
        el("td", {}, el("code", {}, doc.key)),
        el("td", {}, el("span", { class: `badge doc-${doc.status}` }, doc.status)),
        el("td", {}, doc.version ?? ""), el("td", {}, doc.chunks ?? ""),
        el("td", {}, doc.reason ?? ""), el("td", {}, doc.updated_at ?? "")));
    if (append) $("documents-rows").append(...rows);
    else $("documents-rows").replaceChildren(...rows);
    $("documents-table").hidden = false;
    nextToken = answer.next_token || null;
    $("documents-more").hidden = !nextToken;
  } catch (error) {
    $("documents-table").hidden = true;
    $("documents-more").hidden = true;
    if (error.status && routeMissing(error)) $("documents-unavailable").hidden = false;
    else showError("documents-error", error.message);
  }
}

export function setUpDocuments() {
  $("documents").addEventListener("submit", (event) => { event.preventDefault(); list(false); });
  $("documents-more").addEventListener("click", () => list(true));
}
