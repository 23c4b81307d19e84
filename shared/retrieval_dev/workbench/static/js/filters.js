// The filter builder: rows of key, operator and value, ANDed (all_of). Keys offered: the built-in fields
// and the metadata keys of this context's items (learned from what the API returned for this token).

import { $, el } from "./dom.js";

export const BUILT_IN = [
  "kind", "status", "confidence", "created_at", "valid_from", "valid_to", "source_ids",
  "mentions.entity_id", "mentions.type",
];
const OPERATORS = [
  "equals", "not_equals", "in", "not_in", "gt", "gte", "lt", "lte", "starts_with", "string_contains",
  "list_contains", "exists",
];
const known = new Set();
let rowCount = 0;

function refreshKeys() {
  const keys = [...BUILT_IN, ...[...known].sort().map((key) => `metadata.${key}`)];
  $("filter-keys").replaceChildren(...keys.map((key) => el("option", { value: key })));
}

/** Forget the keys learned (a new token may be a new context). */
export function forgetKeys() {
  known.clear();
  refreshKeys();
}

/** Learn the metadata keys of the hits the API returned. */
export function learnKeys(hits) {
  for (const hit of hits || []) for (const key of Object.keys(hit.metadata || {})) known.add(key);
  refreshKeys();
}

export function knownKeys() {
  return [...known];
}

function typed(text) {
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === "true" || text === "false") return text === "true";
  return text;
}

export function addRow() {
  rowCount += 1;
  const id = `filter-${rowCount}`;
  const row = el("li", { class: "filter-row" },
    el("label", { for: `${id}-key` }, "Key"),
    el("input", { id: `${id}-key`, list: "filter-keys", autocomplete: "off", spellcheck: "false", "data-part": "key" }),
    el("label", { for: `${id}-op` }, "Operator"),
    el("select", { id: `${id}-op`, "data-part": "op" }, OPERATORS.map((op) => el("option", { value: op }, op))),
    el("label", { for: `${id}-value` }, "Value"),
    el("input", { id: `${id}-value`, autocomplete: "off", spellcheck: "false", "data-part": "value",
      title: "in / not_in: comma-separated; numbers and true/false are typed" }),
  );
  row.append(el("button", { type: "button", onclick: () => row.remove() }, "Remove"));
  $("filter-rows").append(row);
  row.querySelector("input").focus();
}

/** The filter expression the rows make, or null when there are none. */
export function readFilter() {
  const nodes = [];
  for (const row of $("filter-rows").children) {
    const part = (name) => row.querySelector(`[data-part=${name}]`).value.trim();
    const key = part("key");
    if (!key) continue;
    const op = part("op");
    const raw = part("value");
    if (op === "exists") nodes.push({ exists: { key } });
    else if (op === "in" || op === "not_in")
      nodes.push({ [op]: { key, value: raw.split(",").map((v) => typed(v.trim())).filter((v) => v !== "") } });
    else if (op === "starts_with" || op === "string_contains") nodes.push({ [op]: { key, value: raw } });
    else nodes.push({ [op]: { key, value: typed(raw) } });
  }
  if (nodes.length === 0) return null;
  return nodes.length === 1 ? nodes[0] : { all_of: nodes };
}
