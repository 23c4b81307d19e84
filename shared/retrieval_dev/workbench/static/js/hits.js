// One hit as an agent gets it: kind, score, a bar per signal (rank and score), where it came from,
// its metadata, and whether diversity moved it.

import { el, fixed } from "./dom.js";

const SIGNAL_ORDER = ["lexical", "vector", "entity", "edges", "answer", "window", "graph", "rerank"];

function signalNames(hits) {
  const present = new Set(hits.flatMap((hit) => Object.keys(hit.signals || {})));
  return [...SIGNAL_ORDER.filter((name) => present.has(name)), ...[...present].filter((n) => !SIGNAL_ORDER.includes(n)).sort()];
}

/** Each signal's highest score on the page: its bars are drawn relative to it. */
function signalMaxima(hits) {
  const maxima = {};
  for (const hit of hits)
    for (const [name, signal] of Object.entries(hit.signals || {}))
      maxima[name] = Math.max(maxima[name] || 0, Math.abs(signal.score));
  return maxima;
}

/** Where each hit would stand before diversity interleaved the kinds: the ranker's order (rerank's
 * rank first where it reranked, then score, then id, as the service orders a page). */
export function undiversifiedPositions(hits) {
  const sorted = [...hits].sort((a, b) => {
    const ra = a.signals?.rerank?.rank ?? Infinity;
    const rb = b.signals?.rerank?.rank ?? Infinity;
    if (ra !== rb) return ra - rb;
    if (a.score !== b.score) return b.score - a.score;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  return new Map(sorted.map((hit, index) => [hit.id, index]));
}

function signalRow(name, signal, maximum) {
  const share = maximum > 0 ? Math.max(0.02, Math.abs(signal.score) / maximum) : 0;
  return el("li", { class: "signal", "data-signal": name },
    el("span", { class: "signal-name" }, name),
    el("span", { class: "bar", "aria-hidden": "true" },
      el("span", { class: `bar-fill sig-${name}`, style: `width: ${(share * 100).toFixed(1)}%` })),
    el("span", { class: "signal-value" }, `rank ${signal.rank} · score ${fixed(signal.score)}`));
}

function isLink(uri) {
  return /^https?:\/\//i.test(uri);
}

/** The link that opens a hit at its section: the location's url (a published page with the section's
 * anchor) as a link a click opens; a file:// url (a local sync) as text to paste, since a page served
 * over http may not open one. */
function openLink(url) {
  return isLink(url)
    ? el("a", { class: "open-link", href: url, rel: "noreferrer noopener", target: "_blank" }, url)
    : el("code", { class: "open-link" }, url);
}

function origin(hit, onWhy) {
  const parts = [];
  const meta = hit.metadata || {};
  const location = hit.location || {};
  const uri = location.uri || meta.uri;
  if (uri) {
    const page = location.page ?? meta.page;
    const where = [meta.title, page !== undefined && page !== null ? `page ${page}` : null,
      meta.chunk !== undefined ? `chunk ${meta.chunk}` : null].filter(Boolean).join(", ");
    const span = location.start !== null && location.start !== undefined
      ? ` [${location.start}..${location.end}]` : "";
    parts.push(el("span", { class: "origin-label" }, "From "));
    parts.push(isLink(uri)
      ? el("a", { href: uri, rel: "noreferrer noopener", target: "_blank" }, uri)
      : el("code", { class: "uri" }, uri));
    if (where || span) parts.push(el("span", {}, ` (${[where, span.trim()].filter(Boolean).join(" ")})`));
    const chunk = location.chunk_id;
    if (chunk) {
      parts.push(el("span", {}, " chunk "));
      parts.push(onWhy ? el("a", { href: "#panel-why", "aria-label": `The lineage of chunk ${chunk}`,
        onclick: (event) => { event.preventDefault(); onWhy(chunk); } }, chunk) : el("code", {}, chunk));
    }
  }
  if (!parts.length) return null;
  const section = location.section || meta.section;
  const lines = [el("p", { class: "origin" }, parts)];
  if (section || location.url) {
    lines.push(el("p", { class: "cited" },
      section ? [el("span", { class: "origin-label" }, "Section "), el("span", { class: "section" }, section)] : [],
      section && location.url ? el("span", {}, " \u00b7 ") : null,
      location.url ? [el("span", { class: "origin-label" }, "Open "), openLink(location.url)] : []));
  }
  return lines;
}

function metadataList(hit) {
  const entries = Object.entries(hit.metadata || {});
  if (!entries.length) return null;
  return el("dl", { class: "metadata" }, entries.flatMap(([key, value]) => [
    el("dt", {}, key), el("dd", {}, typeof value === "string" ? value : JSON.stringify(value)),
  ]));
}

function diversityNote(moved) {
  if (!moved) return el("span", { class: "badge quiet" }, "order kept");
  return el("span", { class: "badge moved", title: "diversity interleaved the kinds" },
    moved > 0 ? `diversity moved it up ${moved}` : `diversity moved it down ${-moved}`);
}

/**
 * Renders ``hits`` into ``list``. ``options.onWhy(id)`` is called when a hit's Why is chosen;
 * ``options.marks(hit, index)`` may return an extra element (Compare's rank change).
 */
export function renderHits(list, hits, options = {}) {
  const names = signalNames(hits);
  const maxima = signalMaxima(hits);
  const before = undiversifiedPositions(hits);
  const offset = options.offset || 0;
  list.replaceChildren(...hits.map((hit, index) => {
    const moved = (before.get(hit.id) ?? index) - index;
    const title = `${hit.kind} ${hit.id}`;
    const item = el("li", { class: "hit", "data-hit-id": hit.id, "data-kind": hit.kind, "aria-label": title },
      el("div", { class: "hit-head" },
        el("span", { class: "rank" }, `#${offset + index + 1}`),
        el("span", { class: `badge kind kind-${hit.kind}` }, hit.kind),
        el("code", { class: "hit-id" }, hit.id),
        el("span", { class: "score" }, `score ${fixed(hit.score)}`),
        hit.status !== "ACTIVE" ? el("span", { class: "badge status" }, hit.status) : null,
        options.compact ? null : diversityNote(moved),
        options.marks ? options.marks(hit, index) : null,
        options.onWhy ? el("button", { type: "button", class: "why", "aria-label": `Why: ${hit.id}`,
          onclick: () => options.onWhy(hit.id) }, "Why") : null,
      ),
      el("p", { class: "hit-text" }, hit.text),
      options.compact ? null : el("ul", { class: "signals", "aria-label": `Signals of ${hit.id}` },
        names.filter((name) => hit.signals && hit.signals[name])
          .map((name) => signalRow(name, hit.signals[name], maxima[name]))),
      options.compact ? null : el("p", { class: "found-by" }, `found by ${(hit.found_by || []).join(", ") || "—"}`),
      options.compact ? null : walkPath(hit, hits, offset),
      options.compact ? null : origin(hit, options.onWhy),
      options.compact ? null : metadataList(hit),
    );
    return item;
  }));
}

/** How the multi-hop walk reached a hit: each hop from a hit ranked above it, through the entity it names. */
function walkPath(hit, hits, offset) {
  if (!hit.path || !hit.path.length) return null;
  const rankOf = new Map(hits.map((other, index) => [other.id, offset + index + 1]));
  return el("ol", { class: "walk-path", "aria-label": `How the walk reached ${hit.id}` },
    ...hit.path.map((hop) => el("li", {},
      el("code", {}, rankOf.has(hop.from_id) ? `#${rankOf.get(hop.from_id)}` : hop.from_id),
      " names ", el("strong", {}, hop.entity),
      hop.link === "about" ? " \u2192 this is its page" : " \u2192 this names it too")));
}

/** The entities the hits mention, for the path finder's suggestions. */
export function mentionedEntities(hits) {
  const found = new Map();
  for (const hit of hits || []) for (const mention of hit.mentions || []) found.set(mention.entity_id, mention.name);
  return found;
}
