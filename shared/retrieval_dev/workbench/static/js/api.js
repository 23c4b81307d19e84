// The real API of the server that served this page, called with the token from the page's Token field.

import { $ } from "./dom.js";

export class ApiError extends Error {
  constructor(status, body) {
    const code = body && body.error ? `${body.error}: ` : "";
    super(`HTTP ${status}: ${code}${(body && body.message) || "no message"}`);
    this.status = status;
    this.body = body;
  }
}

function headers(json) {
  const result = { Authorization: `Bearer ${$("token").value.trim()}` };
  const context = $("context-id").value.trim();
  if (context) result["X-Context-Id"] = context;
  if (json) result["Content-Type"] = "application/json";
  return result;
}

/** The context the token acts in, when the page can tell: X-Context-Id, or a dev token's only one. */
export function tokenContext() {
  const chosen = $("context-id").value.trim();
  if (chosen) return chosen;
  const dev = /^dev:([a-z0-9_-]+)(?::\d+)?$/.exec($("token").value.trim());
  return dev ? dev[1] : null;
}

export async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
  });
  let parsed = null;
  try {
    parsed = await response.json();
  } catch {
    parsed = null;
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed;
}

export const retrieve = (body) => call("POST", "/v1/retrieve", body);
export const why = (id) => call("GET", `/v1/why/${encodeURIComponent(id)}`);
export const session = (id) => call("GET", `/v1/sessions/${encodeURIComponent(id)}`);
export const graphPath = (from, to) =>
  call("GET", `/v1/graph/path?${new URLSearchParams({ from, to, max_depth: "4", max_paths: "3" })}`);
export const documents = (prefix, nextToken) => {
  const query = new URLSearchParams();
  if (prefix) query.set("prefix", prefix);
  if (nextToken) query.set("next_token", nextToken);
  return call("GET", `/v1/documents${query.size ? `?${query}` : ""}`);
};
