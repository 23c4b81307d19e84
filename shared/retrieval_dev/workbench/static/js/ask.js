// The Ask view: a question and a configuration in, the hits as an agent gets them out, with what
// `auto` read in the question highlighted and feedback's expansion terms shown.

import { retrieve } from "./api.js";
import { readConfig, renderConfig, requestBody } from "./config.js";
import { $, announce, el, showError } from "./dom.js";
import { learnKeys, readFilter } from "./filters.js";
import { mentionedEntities, renderHits } from "./hits.js";
import { showPacket, showSession } from "./packet.js";

export const entityNames = new Map();
let answers = 0;

function windowField(id, label) {
  return [el("label", { for: id }, label),
    el("input", { id, name: id, autocomplete: "off", spellcheck: "false", placeholder: "ISO 8601, e.g. 2026-03-01T00:00:00Z" })];
}

/** What the Ask view holds besides a configuration. */
export function currentAsk() {
  const from = $("window-from").value.trim();
  const to = $("window-to").value.trim();
  const pack = Number.parseInt($("pack-tokens").value, 10);
  return {
    question: $("question").value.trim(),
    entityId: $("entity-id").value.trim() || null,
    window: from || to ? { ...(from ? { from } : {}), ...(to ? { to } : {}) } : null,
    filter: readFilter(),
    session: $("session").value.trim() || null,
    packTokens: Number.isFinite(pack) && pack > 0 ? pack : null,
  };
}

function showInferred(question, inferred) {
  const box = $("inferred");
  if (!inferred || inferred.length === 0) { box.hidden = true; box.replaceChildren(); return; }
  const parts = [];
  let at = 0;
  for (const found of [...inferred].sort((a, b) => a.start - b.start)) {
    if (found.start < at) continue;
    parts.push(question.slice(at, found.start));
    parts.push(el("mark", { class: `inferred-${found.became}${found.used ? "" : " unused"}`, "data-became": found.became,
      title: `${found.became}: ${found.value}` }, question.slice(found.start, found.end)));
    at = found.end;
  }
  parts.push(question.slice(at));
  box.hidden = false;
  box.replaceChildren(
    el("span", { class: "label" }, "Read from the question: "), el("span", { class: "read" }, parts),
    el("ul", { class: "inferences" }, inferred.map((found) => el("li", {},
      el("q", {}, found.span), ` became ${found.became} `, el("code", {}, found.value),
      ` (confidence ${found.confidence.toFixed(2)}${found.used ? "" : ", overridden by the request"})`))));
}

function showExpansion(terms) {
  const box = $("expansion");
  box.hidden = !terms || terms.length === 0;
  box.replaceChildren(...(box.hidden ? [] : [el("span", { class: "label" }, "Feedback added: "),
    ...terms.map((term) => el("span", { class: "term" }, term))]));
}

export function setUpAsk(onWhy) {
  const options = $("ask-options");
  renderConfig(options, "ask");
  options.append(el("div", { class: "field-grid" },
    el("label", { for: "entity-id" }, "Entity id (entity, graph_walk; auto's focus)"),
    el("input", { id: "entity-id", name: "entity-id", list: "entities", autocomplete: "off", spellcheck: "false" }),
    ...windowField("window-from", "Window from (temporal; auto)"),
    ...windowField("window-to", "Window to"),
  ));
  $("question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("ask").requestSubmit();
    }
  });
  $("ask").addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("ask-error", null);
    const ask = currentAsk();
    const body = requestBody(readConfig("ask"), ask);
    $("ask-button").disabled = true;
    try {
      const answer = await retrieve(body);
      renderHits($("hits"), answer.hits, { onWhy, offset: answer.paging?.offset || 0 });
      learnKeys(answer.hits);
      for (const [id, name] of mentionedEntities(answer.hits)) entityNames.set(id, name);
      $("entities").replaceChildren(...[...entityNames].map(([id, name]) => el("option", { value: id }, name)));
      showInferred(ask.question, answer.applied.inferred);
      showExpansion(answer.applied.expansion_terms);
      const rerank = answer.applied.rerank ? `; rerank ${answer.applied.rerank}` : "";
      $("ask-summary").textContent = answer.supported
        ? `${answer.hits.length} hits, mode ${answer.mode}, arms ${answer.arms.join(", ") || "none"}${rerank}`
        : `This store cannot answer mode ${answer.mode}: it lacks ${answer.missing_capability}`;
      showPacket(answer.context_packet);
      await showSession(ask.session, answer.receipt);
      $("hits").dataset.answer = String(++answers);
      announce(`${answer.hits.length} hits`);
    } catch (error) {
      showError("ask-error", error.message);
    } finally {
      $("ask-button").disabled = false;
    }
  });
  $("new-session").addEventListener("click", () => {
    $("session").value = `wb-${crypto.getRandomValues(new Uint32Array(1))[0].toString(16)}`;
  });
}

/** Learns the context's metadata keys from its items (one temporal read of up to 100 of them). */
export async function probeKeys() {
  try {
    const answer = await retrieve({ mode: "temporal", window: { from: "1970-01-01T00:00:00Z", to: "2999-12-31T23:59:59Z" },
      top_k: 100, include: ["metadata"], diversify: false });
    learnKeys(answer.hits);
  } catch {
    // A wrong token shows its error when the user asks; the keys stay the built-in ones until then.
  }
}
