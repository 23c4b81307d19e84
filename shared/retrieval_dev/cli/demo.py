"""``retrieval demo``: load the sample corpus, then show what each function answers, through the real
handlers (API Gateway events with authorizer claims) against the running stack, and finally load and
delete a small object through the ingest function, and at the end sync a small folder of documents
(``dev/sample/handbook``) as a user with files would, showing each file's status and a hit's citation."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..project import project_path
from .lambda_runtime import add_show_metrics_flag
from .search import order_note

DEFAULT_CORPUS = project_path("dev/sample/corpus.jsonl")
INGEST_SAMPLE = project_path("events/ingest/acme-sample.jsonl")
INGEST_IDS = ("acme:p-9001", "acme:doc-9001")
HANDBOOK = project_path("dev/sample/handbook")
HANDBOOK_CONTEXT = "handbook"
HANDBOOK_QUESTION = "How long does draining the settlement queue take before a stop?"
WIDTH = 100


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--context", default="acme", help="The caller's context (an authorizer claim).")
    parser.add_argument("--query", default="Who leads the Payments team?")
    parser.add_argument("--skip-load", action="store_true", help="Use what is already loaded.")
    add_show_metrics_flag(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .environment import use_local_stack_env
    from .lambda_runtime import invoke, show_metrics

    use_local_stack_env()
    show_metrics(args.show_metrics)
    if not args.skip_load:
        status = _load(args.corpus)
        if status:
            return status
    demo = _Demo(args.context, args.query, invoke)
    hybrid = _modes(demo)
    entities = _mentioned(hybrid)
    if entities:
        _entity_modes(demo, entities[0])
    _filtered_modes(demo)
    _auto(demo)
    _packet(demo)
    if len(entities) >= 2:
        _title(f"4. graph_path {entities[0]} -> {entities[-1]}")
        _path(demo.context, entities[0], entities[-1], invoke)
    with_lineage = next((h for h in hybrid.get("hits", []) if h["provenance"]["source_ids"]), None)
    if with_lineage:
        _title(f"5. why_explain {with_lineage['id']}")
        _why(demo.context, with_lineage["id"], invoke)
    _isolation(demo)
    if demo.context == "acme":
        _ingest_step(demo.retrieve, invoke)
    _title(f"8. An agent's MCP call: `retrieval mcp --token dev:{demo.context}` over stdio, tool 'retrieve'")
    _mcp_tool_call(demo.context, demo.query)
    _title("9. The evidence workflow (Step Functions) run locally: `retrieval workflow run`")
    _workflow_run(demo.context, demo.query)
    _title(f"10. A folder of files: `retrieval sync dev/sample/handbook --context {HANDBOOK_CONTEXT}`")
    return _folder_sync(invoke)


@dataclass(frozen=True, slots=True)
class _Demo:
    """What the tour's steps share: the caller's context, the question, and how a handler is run."""

    context: str
    query: str
    invoke: Callable[[str, dict[str, Any]], Any]

    def retrieve(self, body: dict[str, Any], context: str | None = None) -> dict[str, Any]:
        """The retrieve function's answer to ``body``, asked as ``context`` (default: the caller's)."""
        from .events import api_event

        event = api_event("POST", "/v1/retrieve", context or self.context, body=body)
        return json.loads(self.invoke("retrieve", event)["body"])


def _load(corpus: Path) -> int:
    """Step 1: load the corpus twice (the second load changes nothing); a non-zero status on failure."""
    if not corpus.is_file():
        print(f"retrieval demo: corpus not found: {corpus} (run from the repo root)", file=sys.stderr)
        return 2
    from . import load

    _title(f"1. Loading {corpus}")
    status = load.run(argparse.Namespace(file=corpus, context_id=None))
    if status:
        return status
    _title("   ...and loading it again (idempotent: same state)")
    return load.run(argparse.Namespace(file=corpus, context_id=None))


def _modes(demo: _Demo) -> dict[str, Any]:
    """Step 2 begins: the question lexical, vector and hybrid; the hybrid answer, which later steps
    take their entities and their item with lineage from."""
    _title(f"2. Retrieval modes for context '{demo.context}': \"{demo.query}\"")
    hybrid = demo.retrieve({"mode": "hybrid", "text": demo.query, "top_k": 5})
    for mode in ("lexical", "vector"):
        show_hits(mode, demo.retrieve({"mode": mode, "text": demo.query, "top_k": 5}))
    show_hits("hybrid (RRF of lexical + k-NN, one _msearch)", hybrid)
    return hybrid


def _mentioned(answer: dict[str, Any]) -> list[str]:
    """The entities an answer's hits mention, each once, in the order they are first mentioned."""
    return list(
        dict.fromkeys(m["entity_id"] for hit in answer.get("hits", []) for m in hit.get("mentions", []))
    )


def _entity_modes(demo: _Demo, entity: str) -> None:
    show_hits(f"entity {entity}", demo.retrieve({"mode": "entity", "entity_id": entity, "top_k": 5}))
    show_hits(
        f"graph_walk from {entity}, depth 2",
        demo.retrieve({"mode": "graph_walk", "entity_id": entity, "depth": 2, "top_k": 5}),
    )


def _filtered_modes(demo: _Demo) -> None:
    """A time window alone, then the question with kinds weighted and the graph expanded."""
    window = {"from": "2026-03-01T00:00:00Z", "to": "2026-03-31T23:59:59Z"}
    show_hits("temporal March 2026", demo.retrieve({"mode": "temporal", "window": window, "top_k": 5}))
    weighted = {
        "mode": "hybrid",
        "text": demo.query,
        "top_k": 5,
        "weights": {"document": 2.0},
        "expand_graph": True,
    }
    show_hits("hybrid, documents weighted x2, expand_graph", demo.retrieve(weighted))


def _auto(demo: _Demo) -> None:
    """``mode: auto`` on the context's sample question, with what it read from the sentence."""
    question = AUTO_QUESTIONS.get(demo.context)
    if question is None:
        return
    auto = demo.retrieve({"mode": "auto", "text": question, "top_k": 5})
    show_hits(f'auto (the question read for names, time and kinds): "{question}"', auto)
    for inference in (auto.get("applied") or {}).get("inferred") or []:
        print(f"    inferred {inference['span']!r} -> {inference['became']} {inference['value']}")


def _packet(demo: _Demo) -> None:
    _title("3. A context packet with citations and a session receipt")
    answer = demo.retrieve(
        {
            "mode": "hybrid",
            "text": demo.query,
            "top_k": 8,
            "session_id": f"demo-{uuid.uuid4().hex[:8]}",
            "pack": {"max_tokens": 200, "compress": True},
        }
    )
    packet = answer.get("context_packet") or {}
    print(textwrap.indent(packet.get("text", ""), "  | "))
    print(
        f"  used {packet.get('used')}/{packet.get('budget')} {packet.get('unit')}, "
        f"{dropped_line(packet.get('dropped', []))}; receipt #{answer['receipt']['sequence']} "
        f"sources {answer['receipt']['source_ids']} (every hit the answer returned, packed or not)"
    )


def _isolation(demo: _Demo) -> None:
    other = "globex" if demo.context != "globex" else "acme"
    _title(f"6. Isolation: the same question from '{other}' sees only '{other}'")
    body = {"mode": "hybrid", "text": demo.query, "top_k": 5}
    show_hits(f"hybrid as {other}", demo.retrieve(body, context=other))


def _ingest_step(retrieve: Any, invoke: Any) -> None:
    """Load a small object through the ingest function (S3 notification -> handler), then delete what
    it added with a second object; the corpus ends as it began."""
    from .ingest import invoke_with_parts, read_report, upload

    _title(f"7. Ingestion: {INGEST_SAMPLE} -> s3://.../contexts/acme/ -> the ingest function")
    for label, body, key in (
        ("load", INGEST_SAMPLE.read_bytes(), "contexts/acme/demo-sample.jsonl"),
        ("delete", b"".join(json.dumps({"op": "delete", "id": i}).encode() + b"\n" for i in INGEST_IDS),
         "contexts/acme/demo-deletes.jsonl"),
    ):  # fmt: skip
        invoke_with_parts(upload(body, key))
        report = read_report(key)
        print(f"  {label}: reports/{key}.json: {report['status']}, {ingest_counts(report)}")
        found = retrieve({"mode": "hybrid", "text": "Who is on call for Payments?", "top_k": 3})
        show_hits('hybrid "Who is on call for Payments?"', found)
    status = _why_status("acme", INGEST_IDS[0], invoke)
    print(f"  why_explain {INGEST_IDS[0]} after the delete: {status} (as for an id that never existed)")


def _folder_sync(invoke: Callable[[str, dict[str, Any]], Any]) -> int:
    """The sample handbook synced into a context of its own (each file's status: indexed, or skipped
    with the reason; unchanged on a second run), then a question whose hit says where to open it."""
    from . import sync

    status = sync.run(
        argparse.Namespace(folder=HANDBOOK, context=HANDBOOK_CONTEXT, delete=True, json=False, base_url=None)
    )
    answer = _Demo(HANDBOOK_CONTEXT, HANDBOOK_QUESTION, invoke).retrieve(
        {"mode": "hybrid", "text": HANDBOOK_QUESTION, "top_k": 1}
    )
    for hit in answer.get("hits", []):
        location = hit.get("location") or {}
        print(f'  "{HANDBOOK_QUESTION}"\n    {hit["score"]:.3f} {hit["id"]}: {_short(hit["text"], 70)}')
        print(
            f"    section {location.get('section')}\n    opens   {location.get('url') or location.get('uri')}"
        )
    return status


def dropped_line(dropped: list[dict[str, Any]]) -> str:
    """The packet's left-out hits with their reasons, so the receipt's sources (every hit) and the
    packet's citations (those that fit) add up in view: "dropped 1 (S8 acme:p-1: budget; it is still
    among the answer's hits, so in the receipt)"."""
    if not dropped:
        return "dropped none"
    listed = ", ".join(f"{d['source_id']} {d['id']}: {d['reason']}" for d in dropped)
    still = "it is" if len(dropped) == 1 else "they are"
    return f"dropped {len(dropped)} ({listed}; {still} still among the answer's hits, so in the receipt)"


def ingest_counts(report: dict[str, Any]) -> str:
    """An ingest report's counts, each saying what it counts (a bare "absent 1" did not)."""
    new = report["loaded"] - report["updated"]
    parts = [f"{report['loaded']} items loaded ({new} new, {report['updated']} replaced)"]
    if report["deleted"] or report["absent"]:
        parts.append(
            f"{report['deleted']} deleted ({report['absent']} deletes named ids that were not there)"
        )
    parts.append(f"{report['rejected']} lines rejected")
    return ", ".join(parts)


def _why_response(ctx: str, item_id: str, invoke: Any) -> Any:
    from .events import why_event

    return invoke("why_explain", why_event(ctx, item_id))


def _why_status(ctx: str, item_id: str, invoke: Any) -> int:
    return int(_why_response(ctx, item_id, invoke)["statusCode"])


def _path(ctx: str, start: str, end: str, invoke: Any) -> None:
    from .events import api_event

    event = api_event("GET", "/v1/graph/path", ctx, query={"from": start, "to": end, "max_depth": "5"})
    body = json.loads(invoke("graph_path", event)["body"])
    if not body.get("found"):
        print(f"  no path within depth 5 (explored {body.get('explored')})")
        return
    for edge in body["paths"][0]["edges"]:
        print(f"  {edge['from']} -> {edge['to']}\n      via {edge['proposition_id']}: {_short(edge['text'])}")
    print(f"  explored: {body['explored']}")


def _why(ctx: str, item_id: str, invoke: Any) -> None:
    body = json.loads(_why_response(ctx, item_id, invoke)["body"])
    print(f"  {body['item']['id']} [{body['item']['status']}]: {_short(body['item']['text'])}")
    for node in body["derived_from"]["nodes"]:
        indent = "  " * node["level"]
        print(f"  {indent}<- L{node['level']} {node['id']} ({node['kind']}): {_short(node['text'], 60)}")
    for chunk in body.get("grounding", []):
        span = f"[{chunk.get('start')}:{chunk.get('end')}]"
        print(f"  grounded in {chunk.get('chunk_id')} at {chunk.get('uri')} {span}")
    print(
        f"  superseded_by={[v['id'] for v in body['superseded_by']]} derived_count={body['derived_count']} "
        f"explored={body['explored']}"
    )


def _mcp_tool_call(ctx: str, query: str) -> None:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    server = StdioServerParameters(
        command=str(Path(sys.executable).with_name("retrieval")), args=["mcp", "--token", f"dev:{ctx}"]
    )

    async def call() -> Any:
        async with Client(server) as client:
            tools = [tool.name for tool in (await client.list_tools()).tools]
            print(f"  tools: {', '.join(tools)}")
            return await client.call_tool("retrieve", {"mode": "hybrid", "text": query, "top_k": 3})

    result = anyio.run(call)
    show_hits(f"retrieve (is_error={result.is_error})", result.structured_content or {})


def _workflow_run(ctx: str, query: str) -> None:
    from ..workflow.local_sfn import LocalStepFunctions

    with LocalStepFunctions() as workflow:
        execution = workflow.run({"context_id": ctx, "request": {"text": query, "top_k": 3}})
    print(f"  {execution.status}: {execution.arn}")
    if execution.output is None:
        print(f"  error {execution.error}: {execution.cause}")
        return
    for hit, why in zip(execution.output["hits"], execution.output["explanations"], strict=True):
        sources = [node["id"] for node in why["derived_from"]["nodes"]] or "nothing"
        print(f"    {hit['id']:<22} derived from {sources}; grounded in {len(why['grounding'])} span(s)")


AUTO_QUESTIONS = {
    "acme": "What did Dmitri Volkov deploy before April 2026?",
    "globex": "What changed at warehouse-wms in February 2026?",
}
"""A question in sentences per sample context, for ``mode: auto``."""


def show_hits(label: str, body: dict[str, Any]) -> None:
    if "hits" not in body:
        print(f"  {label}: error {body}")
        return
    flag = "" if body.get("supported", True) else "  (supported: false)"
    print(f"  {label}{flag}")
    for hit in body["hits"]:
        print(f"    {hit['score']:.3f} {hit['kind']:<11} {hit['id']:<22} {_short(hit['text'], 58)}")
    note = order_note(body)
    if note:
        print(f"    ({note})")


def _short(text: str, width: int = 70) -> str:
    return textwrap.shorten(text, width=width, placeholder="...")


def _title(text: str) -> None:
    print(f"\n{text}\n{'-' * min(len(text), WIDTH)}")
