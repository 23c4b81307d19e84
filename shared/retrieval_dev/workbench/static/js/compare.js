// Two configurations over the same question, side by side: each hit's rank in the other list marked,
// and nDCG@10 of each when judgments are open.

import { retrieve, tokenContext } from "./api.js";
import { readConfig, renderConfig, requestBody } from "./config.js";
import { $, announce, el, fixed, showError } from "./dom.js";
import { renderHits } from "./hits.js";
import { ndcg, parseQrels } from "./judgments.js";

let judged = new Map();

function rankChange(otherRanks, side) {
  return (hit, index) => {
    const other = otherRanks.get(hit.id);
    if (other === undefined)
      return el("span", { class: "badge change new", "data-rank-change": "new" }, `not in ${side}`);
    const delta = other - index;
    if (delta === 0) return el("span", { class: "badge change same", "data-rank-change": "0" }, `= ${side}`);
    const text = delta > 0 ? `▲ ${delta} vs ${side}` : `▼ ${-delta} vs ${side}`;
    return el("span", { class: `badge change ${delta > 0 ? "up" : "down"}`, "data-rank-change": String(delta),
      "aria-label": `${delta > 0 ? "up" : "down"} ${Math.abs(delta)} against ${side}` }, text);
  };
}

function showScores(hitsA, hitsB) {
  const chosen = judged.get($("qrels-query").value);
  for (const [side, hits] of [["a", hitsA], ["b", hitsB]]) {
    const out = $(`ndcg-${side}`);
    if (!chosen) { out.textContent = ""; continue; }
    const score = ndcg(hits.map((hit) => hit.id), chosen.grades);
    out.textContent = score === null ? "nDCG@10: no relevant judgment" : `nDCG@10: ${fixed(score)}`;
    out.dataset.ndcg = score === null ? "" : String(score);
  }
}

export function setUpCompare(currentAsk) {
  renderConfig($("config-a"), "a", { mode: "hybrid" });
  renderConfig($("config-b"), "b", { mode: "auto" });
  let last = null;
  $("qrels").addEventListener("change", async (event) => {
    showError("compare-error", null);
    const file = event.target.files[0];
    if (!file) return;
    try {
      judged = parseQrels(await file.text(), tokenContext());
    } catch (error) {
      judged = new Map();
      showError("compare-error", `Could not read the judgments: ${error.message}`);
    }
    const choice = $("qrels-query");
    const question = currentAsk().question;
    choice.replaceChildren(...[...judged.entries()].map(([key, entry]) =>
      el("option", { value: key, selected: entry.text && entry.text === question }, entry.label)));
    choice.disabled = judged.size === 0;
    announce(`${judged.size} judged questions opened`);
    if (last) showScores(...last);
  });
  $("qrels-query").addEventListener("change", () => {
    const entry = judged.get($("qrels-query").value);
    if (entry && entry.text) $("question").value = entry.text;
    if (last) showScores(...last);
  });
  $("compare").addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("compare-error", null);
    const ask = { ...currentAsk(), session: null, packTokens: null };
    if (!ask.question) { showError("compare-error", "Write a question in the Ask view first."); return; }
    try {
      const [a, b] = await Promise.all([retrieve(requestBody(readConfig("a"), ask)), retrieve(requestBody(readConfig("b"), ask))]);
      const ranksA = new Map(a.hits.map((hit, index) => [hit.id, index]));
      const ranksB = new Map(b.hits.map((hit, index) => [hit.id, index]));
      renderHits($("list-a"), a.hits, { compact: true, marks: rankChange(ranksB, "B") });
      renderHits($("list-b"), b.hits, { compact: true, marks: rankChange(ranksA, "A") });
      $("list-a-title").textContent = `A: ${a.mode}, ${a.hits.length} hits`;
      $("list-b-title").textContent = `B: ${b.mode}, ${b.hits.length} hits`;
      last = [a.hits, b.hits];
      showScores(a.hits, b.hits);
      announce("Compared the two configurations");
    } catch (error) {
      showError("compare-error", error.message);
    }
  });
}
