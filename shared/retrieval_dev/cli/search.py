"""``retrieval search "question" --context C [--mode M] [--top-k K] [--filter F]... [--json]``: one
question through the retrieve function in-process (the handler, as ``retrieval invoke`` runs it, with
the caller's context as the authorizer would pass it), printed as a ranked list: rank, score, title,
where to cite it (file, page, section) and a snippet with the question's words marked. ``--json``
prints the response body as the API answers it.

Filters use the API's language in short: ``team=payments``, ``team!=ops``, ``year>=2020``, ``n<5``
(ANDed). A key without a prefix is a metadata key unless it is a built-in field (``kind``,
``created_at``...); values take the key's declared type (``RETRIEVAL_METADATA_FIELDS``), and numbers
in a range compare as numbers."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

MODES = ("hybrid", "lexical", "vector", "auto", "entity", "temporal", "graph_walk")
BUILT_IN = {
    "kind",
    "status",
    "confidence",
    "created_at",
    "valid_from",
    "valid_to",
    "source_ids",
    "mentions.entity_id",
    "mentions.type",
}
OPERATORS = (("!=", "not_equals"), (">=", "gte"), ("<=", "lte"), (">", "gt"), ("<", "lt"), ("=", "equals"))
FILTER = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(!=|>=|<=|=|>|<)\s*(.*?)\s*$")
SNIPPET_CHARS = 240
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "how",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "the",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
    ]
)


class FilterSyntaxError(ValueError):
    """A ``--filter`` that is not ``key OP value``; the message shows the forms that are."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("question", help="The question (the retrieve request's text).")
    parser.add_argument("--context", required=True, help="The context to search (the caller's claim).")
    parser.add_argument("--mode", default="hybrid", choices=MODES, help="The retrieve mode (hybrid).")
    parser.add_argument("--top-k", type=int, default=5, help="How many hits (5).")
    parser.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="A condition: key=value, key!=value, 'key>=N', 'key<N' (repeatable; all must hold).",
    )
    parser.add_argument("--entity", help="The entity id (entity and graph_walk modes).")
    parser.add_argument("--json", action="store_true", help="Print the response body as JSON.")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .environment import use_local_stack_env

    use_local_stack_env()
    try:
        body = request_body(args, declared_types())
    except FilterSyntaxError as error:
        print(f"retrieval search: {error}", file=sys.stderr)
        return 2
    status, answer = retrieve(args.context, body)
    if args.json:
        json.dump(answer, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    elif status == 200:
        print(render(args.question, answer, color=sys.stdout.isatty()))
        empty = not answer.get("hits") and empty_context(args.context)
        if empty:
            print(f"retrieval search: {empty}", file=sys.stderr)
            return 1
    else:
        message = answer.get("message") if isinstance(answer, dict) else answer
        print(f"retrieval search: {status}: {message}", file=sys.stderr)
    return 0 if status == 200 else 1


def empty_context(context_id: str) -> str | None:
    """Why a question found nothing when the context itself holds nothing (a typo in ``--context`` looks
    like a bad question otherwise): the contexts that do hold items. None when it holds some, or when
    the index cannot say."""
    from retrieval_core.bootstrap import container

    from .contexts import ContextsUnreadableError, local_contexts, named

    try:
        contexts = local_contexts(container().settings)
    except ContextsUnreadableError:
        return None
    if contexts.get(context_id):
        return None
    return f"the context {context_id!r} holds no items (unknown or empty); contexts with items: " + named(
        contexts
    )


def request_body(args: argparse.Namespace, types: dict[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = {"mode": args.mode, "text": args.question, "top_k": args.top_k}
    if args.entity:
        body["entity_id"] = args.entity
    leaves = [filter_leaf(spec, types) for spec in args.filter]
    if leaves:
        body["filter"] = leaves[0] if len(leaves) == 1 else {"all_of": leaves}
    return body


def filter_leaf(spec: str, types: dict[str, str]) -> dict[str, Any]:
    """``year>=2020`` -> ``{"gte": {"key": "metadata.year", "value": 2020}}``."""
    match = FILTER.match(spec)
    if not match or not match.group(3):
        raise FilterSyntaxError(f"--filter {spec!r}: write key=value, key!=value, 'key>=N' or 'key<N'")
    name, symbol, raw = match.groups()
    key = name if name in BUILT_IN or name.startswith("metadata.") else f"metadata.{name}"
    operator = dict(OPERATORS)[symbol]
    return {operator: {"key": key, "value": typed(raw, types.get(key), ranged=operator in RANGES)}}


RANGES = frozenset({"gt", "gte", "lt", "lte"})


def typed(raw: str, declared: str | None, *, ranged: bool) -> Any:
    """The value as the key's type: a declared number or a number in a range is a number, a declared
    boolean a boolean; anything else (strings, dates) the text as written."""
    if declared == "boolean" and raw.lower() in {"true", "false"}:
        return raw.lower() == "true"
    if declared == "number" or (ranged and declared is None):
        try:
            number = float(raw)
        except ValueError:
            return raw
        return int(number) if number.is_integer() and "." not in raw else number
    return raw


def declared_types() -> dict[str, str]:
    """``metadata.<name>`` -> its declared type, and the built-in number field."""
    from retrieval_core.bootstrap import container

    fields = container().settings.metadata_fields
    return {"confidence": "number", **{f"metadata.{name}": str(kind) for name, kind in fields.items()}}


def retrieve(context_id: str, body: dict[str, Any]) -> tuple[int, Any]:
    """The retrieve handler's answer to ``POST /v1/retrieve`` from ``context_id``: status and body."""
    from .events import api_event
    from .invoke import decoded_body
    from .lambda_runtime import invoke

    response = invoke("retrieve", api_event("POST", "/v1/retrieve", context_id, body=body))
    return int(response.get("statusCode", 500)), decoded_body(response)


def render(question: str, answer: dict[str, Any], *, color: bool = False) -> str:
    hits = answer.get("hits") or []
    if not hits:
        return f"no hits for {question!r}"
    words = question_words(question)
    lines = []
    for rank, hit in enumerate(hits, start=1):
        lines.append(f"{rank:>2}. {hit['score']:.3f}  {title(hit)}")
        where = location(hit)
        if where:
            lines.append(f"    {where}")
        lines.append(f"    {snippet(hit['text'], words, color=color)}")
    note = order_note(answer)
    if note:
        lines.append(f"({note}; --json for all)")
    return "\n".join(lines)


def order_note(answer: dict[str, Any]) -> str | None:
    """Why a page's scores do not descend, or None when they do: diversify interleaves kinds, and
    expand_graph's neighbours follow the page in the walk's order."""
    from retrieval_core.retrieval.responses import GRAPH_ARM

    scores = [hit["score"] for hit in answer.get("hits") or []]
    if scores == sorted(scores, reverse=True):
        return None
    reasons = []
    if (answer.get("applied") or {}).get("diversify"):
        reasons.append("diversified by kind: kinds interleave")
    if GRAPH_ARM in (answer.get("arms") or []):
        reasons.append("graph neighbours follow the page in the walk's order")
    return f"{'; '.join(reasons)}, so scores do not descend" if reasons else None


def title(hit: dict[str, Any]) -> str:
    metadata = hit.get("metadata") or {}
    for name in ("title", "name"):
        if isinstance(metadata.get(name), str):
            return f"{metadata[name]}  ({hit['id']})"
    uri = (hit.get("location") or {}).get("uri")
    if hit.get("kind") == "document" and uri:
        return f"{uri.rsplit('/', 1)[-1]}  ({hit['id']})"
    return f"{hit['id']}  [{hit.get('kind')}]"


def location(hit: dict[str, Any]) -> str:
    """Where to open the hit: its link (the published page or local file at its section), else its URI;
    then its page and section."""
    place = hit.get("location") or {}
    link = place.get("url") or place.get("uri")
    parts = [str(link)] if link else []
    if place.get("page") is not None:
        parts.append(f"page {place['page']}")
    if place.get("section"):
        parts.append(f"section {place['section']}")
    return ", ".join(parts)


def question_words(question: str) -> list[str]:
    return sorted(
        {w for w in re.findall(r"\w+", question.lower()) if len(w) > 1 and w not in STOP_WORDS},
        key=len,
        reverse=True,
    )


def snippet(text: str, words: list[str], *, color: bool = False) -> str:
    """About ``SNIPPET_CHARS`` of ``text`` around its first matching word, every match marked
    (``**word**``, or bold on a terminal)."""
    flat = " ".join(text.split())
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\w*", re.I) if words else None
    first = pattern.search(flat) if pattern else None
    start = max(0, (first.start() if first else 0) - SNIPPET_CHARS // 4)
    piece = flat[start : start + SNIPPET_CHARS]
    piece = ("..." if start else "") + piece + ("..." if start + SNIPPET_CHARS < len(flat) else "")
    if pattern is None:
        return piece
    on, off = ("\x1b[1m", "\x1b[0m") if color else ("**", "**")
    return pattern.sub(lambda m: f"{on}{m.group(0)}{off}", piece)
