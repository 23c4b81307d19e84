// The context packet as the prompt sees it (its text, a budget meter, what was dropped and why), and
// the session's receipts as a timeline with the budget left.

import { session } from "./api.js";
import { $, el } from "./dom.js";

const receipts = new Map(); // session id -> receipts this page saw, in sequence order

export function showPacket(packet) {
  $("packet-empty").hidden = Boolean(packet);
  $("packet").hidden = !packet;
  if (!packet) return;
  const meter = $("packet-meter");
  meter.max = packet.budget;
  meter.value = packet.used;
  meter.high = packet.budget * 0.9;
  $("packet-usage").textContent =
    `${packet.used} of ${packet.budget} ${packet.unit} used; ${packet.items.length} of ${packet.n_candidates} hits kept`;
  $("packet-text").textContent = packet.text;
  $("packet-dropped").replaceChildren(...(packet.dropped.length ? packet.dropped.map((item) =>
    el("li", { "data-dropped-id": item.id }, el("code", {}, item.id), ` (${item.source_id}): ${item.reason}`))
    : [el("li", {}, "nothing")]));
}

/** Records the answer's receipt, reads the session (its count and limit) and draws the timeline. */
export async function showSession(sessionId, receipt) {
  $("session-empty").hidden = Boolean(sessionId);
  $("session-view").hidden = !sessionId;
  if (!sessionId) return;
  const seen = receipts.get(sessionId) || new Map();
  if (receipt) seen.set(receipt.sequence, receipt);
  receipts.set(sessionId, seen);
  const state = await session(sessionId);
  const left = Math.max(0, state.limit - state.count);
  $("session-summary").textContent =
    `Session ${state.session_id}: ${state.count} of ${state.limit} queries answered, ${left} left; ${state.sources.length} sources named`;
  const meter = $("session-meter");
  meter.max = state.limit;
  meter.value = state.count;
  meter.high = state.limit * 0.8;
  const ordered = [...seen.values()].sort((a, b) => a.sequence - b.sequence);
  $("timeline").replaceChildren(...ordered.map((entry) =>
    el("li", { "data-sequence": entry.sequence },
      el("strong", {}, `#${entry.sequence}`),
      ` at ${entry.completed_at}: ${entry.source_ids.join(", ") || "no sources"}; `,
      el("span", { class: "left" }, `budget left after it: ${Math.max(0, state.limit - entry.sequence)}`),
      entry.failed_effects && entry.failed_effects.length ? ` (failed effects: ${entry.failed_effects.join(", ")})` : "")));
}
