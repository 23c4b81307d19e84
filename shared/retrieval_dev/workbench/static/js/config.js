// A retrieval configuration (mode, top_k and the ranking options) as form fields, and the request body
// it makes. The Ask view has one; Compare has two (A and B), each with its own ids.

import { el } from "./dom.js";

export const MODES = ["auto", "hybrid", "lexical", "vector", "entity", "graph_walk", "temporal"];
const FUSION_PRESETS = ["", "rrf", "rrf_vector_heavy", "score_min_max", "score_l2"];
const RERANKS = ["none", "mmr", "model"];
const TEXT_MODES = new Set(["auto", "hybrid", "lexical", "vector"]);
const FUSED_MODES = new Set(["auto", "hybrid"]);
const FEEDBACK_MODES = new Set(["auto", "hybrid", "lexical"]);
const EXPANSION_WEIGHT = 0.3; // PRF 0.3: the lightest weight measured in docs/QUALITY.md

function select(id, label, values, chosen, describe = (value) => value) {
  return [
    el("label", { for: id }, label),
    el("select", { id, name: id }, values.map((value) =>
      el("option", { value, selected: value === chosen }, describe(value)))),
  ];
}

function checkbox(id, label, checked) {
  return el("span", { class: "check" },
    el("input", { id, name: id, type: "checkbox", checked }), el("label", { for: id }, label));
}

/** Renders the fields into ``container``; ``prefix`` keeps ids unique. */
export function renderConfig(container, prefix, defaults = {}) {
  const chosen = { mode: "auto", fusion: "", rerank: "none", feedback: false, diversify: true, topK: 10, ...defaults };
  container.append(
    el("div", { class: "field-grid" },
      ...select(`${prefix}-mode`, "Mode", MODES, chosen.mode),
      el("label", { for: `${prefix}-top-k` }, "top_k"),
      el("input", { id: `${prefix}-top-k`, name: `${prefix}-top-k`, type: "number", min: 1, max: 100, value: chosen.topK }),
      ...select(`${prefix}-fusion`, "Fusion", FUSION_PRESETS, chosen.fusion, (v) => v || "deployment default"),
      ...select(`${prefix}-rerank`, "Rerank", RERANKS, chosen.rerank),
    ),
    el("div", { class: "checks" },
      checkbox(`${prefix}-feedback`, "Feedback (expansion terms)", chosen.feedback),
      checkbox(`${prefix}-diversify`, "Diversify kinds", chosen.diversify),
    ),
  );
}

export function readConfig(prefix) {
  const value = (name) => document.getElementById(`${prefix}-${name}`);
  return {
    mode: value("mode").value,
    topK: Number.parseInt(value("top-k").value, 10) || 10,
    fusion: value("fusion").value,
    rerank: value("rerank").value,
    feedback: value("feedback").checked,
    diversify: value("diversify").checked,
  };
}

/** The body of POST /v1/retrieve for a configuration and what the Ask view holds. */
export function requestBody(config, ask) {
  const body = { mode: config.mode, top_k: config.topK, diversify: config.diversify };
  if (TEXT_MODES.has(config.mode) && ask.question) body.text = ask.question;
  if (ask.entityId && config.mode !== "lexical" && config.mode !== "vector" && config.mode !== "hybrid")
    body.entity_id = ask.entityId;
  if (ask.window && (config.mode === "temporal" || config.mode === "auto")) body.window = ask.window;
  if (config.fusion && FUSED_MODES.has(config.mode)) body.fusion = { preset: config.fusion };
  // Feedback is on request (docs/QUALITY.md); its default moves only the vector, so the box asks for terms too.
  if (config.feedback && FEEDBACK_MODES.has(config.mode)) body.feedback = { enabled: true, weight: EXPANSION_WEIGHT };
  if (config.rerank !== "none") body.rerank = { method: config.rerank };
  if (ask.filter) body.filter = ask.filter;
  if (ask.session) body.session_id = ask.session;
  if (ask.packTokens) body.pack = { max_tokens: ask.packTokens };
  return body;
}
