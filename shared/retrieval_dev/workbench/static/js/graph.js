// Lineage (why_explain) and chains (graph_path) drawn with Cytoscape and the dagre layout, and the same
// graph as lists of nodes (each with data-node-id) and labelled edges, for keyboards and screen readers.

import { $, el } from "./dom.js";

let view = null;
let last = null;

function palette() {
  const styles = getComputedStyle(document.documentElement);
  const read = (name) => styles.getPropertyValue(name).trim();
  return { text: read("--text"), surface: read("--surface"), accent: read("--accent"), muted: read("--muted"),
    warn: read("--warn"), bad: read("--bad") };
}

const EDGE_CLASSES = { "derived from": "derived", grounds: "grounds", supersedes: "supersedes", contradicts: "contradicts" };

function short(text, length = 60) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/** Forget what is drawn (a new token may be another context). */
export function clearGraph() {
  if (view) view.destroy();
  view = null;
  last = null;
  $("graph-title").textContent = "Nothing drawn yet";
  $("graph-nodes").replaceChildren();
  $("graph-edges").replaceChildren();
  delete $("graph").dataset.drawnNodes;
}

function draw(title, nodes, edges, focusId, onExplain) {
  last = [title, nodes, edges, focusId, onExplain];
  $("graph").dataset.layout = "running";
  $("graph-title").textContent = title;
  const colours = palette();
  if (view) view.destroy();
  if (window.cytoscape && window.cytoscapeDagre && !window.cytoscape.__dagre) {
    window.cytoscape.use(window.cytoscapeDagre);
    window.cytoscape.__dagre = true;
  }
  view = window.cytoscape({
    container: $("graph"),
    elements: [
      ...nodes.map((node) => ({ data: { id: node.id, label: `${node.id}\n${node.kind || ""}` },
        classes: node.id === focusId ? "focus" : node.kind })),
      ...edges.map((edge, index) => ({ data: { id: `e${index}`, source: edge.from, target: edge.to, label: edge.label },
        classes: EDGE_CLASSES[edge.label] || "path" })),
    ],
    layout: { name: "dagre", rankDir: "LR", nodeSep: 50, rankSep: 170, padding: 20,
      stop: () => { $("graph").dataset.layout = "done"; } },
    style: [
      { selector: "node", style: { label: "data(label)", "text-wrap": "wrap", "text-max-width": 180, "font-size": 11,
        color: colours.text, "background-color": colours.muted, width: 18, height: 18, "text-valign": "bottom",
        "text-margin-y": 4 } },
      { selector: "node.focus", style: { "background-color": colours.accent, width: 26, height: 26 } },
      { selector: "edge", style: { width: 2, "curve-style": "bezier", "target-arrow-shape": "triangle", label: "data(label)",
        "font-size": 10, color: colours.text, "text-background-color": colours.surface, "text-background-opacity": 1,
        "line-color": colours.muted, "target-arrow-color": colours.muted, "text-rotation": "autorotate" } },
      { selector: "edge.supersedes", style: { "line-style": "dashed", "line-color": colours.warn, "target-arrow-color": colours.warn } },
      { selector: "edge.contradicts", style: { "line-color": colours.bad, "target-arrow-color": colours.bad } },
      { selector: "edge.grounds", style: { "line-style": "dotted" } },
    ],
    maxZoom: 1.6,
    minZoom: 0.2,
  });
  $("graph").dataset.drawnNodes = String(view.nodes().length);
  $("graph").dataset.drawnEdges = String(view.edges().length);
  $("graph-nodes").replaceChildren(...nodes.map((node) =>
    el("li", { "data-node-id": node.id, class: node.id === focusId ? "focus" : null },
      el("code", {}, node.id), ` ${node.kind || ""}${node.status && node.status !== "ACTIVE" ? ` (${node.status})` : ""}`,
      node.text ? el("span", { class: "node-text" }, ` — ${short(node.text, 120)}`) : null,
      onExplain && node.id !== focusId ? el("button", { type: "button", class: "explain",
        "aria-label": `Explain ${node.id}`, onclick: () => onExplain(node.id) }, "Explain") : null)));
  if (onExplain) view.on("tap", "node", (event) => { if (event.target.id() !== focusId) onExplain(event.target.id()); });
  $("graph-edges").replaceChildren(...edges.map((edge) =>
    el("li", { "data-edge-label": edge.label }, el("code", {}, edge.from), ` ${edge.label} `, el("code", {}, edge.to),
      edge.detail ? el("span", { class: "node-text" }, ` — ${edge.detail}`) : null)));
}

/** A why_explain answer as a graph: the item, what it was derived from (every level), what grounds
 * it, what it supersedes and what supersedes it, and what contradicts it. */
export function drawLineage(answer, onExplain) {
  const nodes = new Map([[answer.item.id, answer.item]]);
  const edges = [];
  const add = (node) => { if (!nodes.has(node.id)) nodes.set(node.id, node); };
  for (const node of answer.derived_from.nodes) add(node);
  for (const edge of answer.derived_from.edges) edges.push({ from: edge.from, to: edge.to, label: "derived from" });
  for (const ground of answer.grounding) {
    add({ id: ground.chunk_id, kind: "chunk", text: ground.uri || "" });
    edges.push({ from: ground.chunk_id, to: answer.item.id, label: "grounds" });
  }
  for (const old of answer.supersedes) { add(old); edges.push({ from: answer.item.id, to: old.id, label: "supersedes" }); }
  for (const newer of answer.superseded_by) { add(newer); edges.push({ from: newer.id, to: answer.item.id, label: "supersedes" }); }
  for (const other of answer.contradicts) { add(other); edges.push({ from: answer.item.id, to: other.id, label: "contradicts" }); }
  draw(`Lineage of ${answer.item.id}`, [...nodes.values()], edges, answer.item.id, onExplain);
}

/** A graph_path answer: each chain's entities, joined by the propositions that link them. */
export function drawPaths(answer, from, to, names) {
  const nodes = new Map();
  const edges = [];
  for (const path of answer.paths) {
    for (const id of path.entity_ids) nodes.set(id, { id, kind: names.get(id) || "entity", text: "" });
    for (const edge of path.edges)
      edges.push({ from: edge.from, to: edge.to, label: edge.proposition_id, detail: edge.text });
  }
  const title = answer.found ? `Chains from ${from} to ${to}` : `No chain from ${from} to ${to} within the depth`;
  draw(title, [...nodes.values()], edges, from);
}

/** Redraw with the theme's colours (after a theme change). */
export function restyle() {
  if (last) draw(...last);
}
