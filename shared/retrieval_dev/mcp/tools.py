"""The four tools: their descriptions (written for a model), input schemas and API requests.

Input schemas are the JSON Schemas of the pydantic models the API validates with, so a tool cannot
drift from the route it calls (``tests/unit/test_mcp_tools.py`` checks it), less two things: ``context_id``
(the context is never an argument) and the root-level conditions of the retrieve body (which field each
mode needs): agent hosts refuse a tool whose input schema has ``allOf``/``anyOf``/``oneOf``/``if`` at its
root (docs/AGENT_HOSTS.md), so the ``mode`` description says it in words and the API still refuses a
request without it. Arguments go to the API as they are, so the API (not this module) accepts, clamps,
ignores or refuses them, exactly as it does for any HTTP caller.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from retrieval_core.entrypoints.responses import describe_validation
from retrieval_core.graph.models import GraphPathRequest
from retrieval_core.lineage import WhyExplainRequest
from retrieval_core.retrieval.requests import SESSION_ID_JSON_PATTERN, RetrieveRequest

NOT_AN_ARGUMENT = "context_id"
ROOT_CONDITIONS = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")
"""JSON Schema keywords no tool input schema carries at its root (docs/AGENT_HOSTS.md)."""


class SessionRequest(BaseModel):
    """``GET /v1/sessions/{session_id}``: the route's one parameter, with the policy's id pattern."""

    model_config = ConfigDict(extra="forbid")

    session_id: Annotated[str, Field(min_length=1, max_length=256, pattern=SESSION_ID_JSON_PATTERN)] = Field(
        description="The session_id given to retrieve."
    )


@dataclass(frozen=True)
class ApiRequest:
    method: str
    path: str
    query: dict[str, str]
    body: dict[str, Any] | None = None


class ToolArgumentsError(Exception):
    """A path parameter is missing or malformed, so no request can be built; carries the API's 422 body."""

    def __init__(self, body: dict[str, Any]) -> None:
        super().__init__(body["message"])
        self.body = body


@dataclass(frozen=True)
class Hints:
    """MCP tool annotations, as they truly apply (clients may ask before calling a tool that is not
    read-only; none of these tools reaches beyond the caller's own knowledge base: a closed world)."""

    read_only: bool
    idempotent: bool
    destructive: bool = False
    open_world: bool = False


READS = Hints(read_only=True, idempotent=True)
# retrieve with a session_id records the query in the session and spends one unit of its budget; the
# same call again is refused (duplicate_query): it writes, additively, and is not idempotent.
SPENDS_SESSION_BUDGET = Hints(read_only=False, idempotent=False)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    model: type[BaseModel]
    to_request: Callable[[dict[str, Any]], ApiRequest]
    hints: Hints = READS

    def input_schema(self) -> dict[str, Any]:
        schema = self.model.model_json_schema(by_alias=True)
        schema.get("properties", {}).pop(NOT_AN_ARGUMENT, None)
        for keyword in ROOT_CONDITIONS:
            schema.pop(keyword, None)
        return schema


def _query(arguments: Mapping[str, Any], skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Arguments as query-string values, the way an HTTP caller would write them."""
    query = {}
    for key, value in arguments.items():
        if key in skip or value is None:
            continue
        if isinstance(value, list | tuple):
            query[key] = ",".join(str(v) for v in value)
        elif isinstance(value, bool):
            query[key] = str(value).lower()
        else:
            query[key] = str(value)
    return query


def _path_parameter(model: type[BaseModel], arguments: Mapping[str, Any], name: str) -> str:
    """The path parameter, checked by the route's own model (so the 422 reads like the API's)."""
    value = arguments.get(name)
    if not isinstance(value, str) or not value:
        try:
            model.model_validate({name: value} if name in arguments else {})
        except ValidationError as error:
            errors = [e for e in error.errors() if tuple(e.get("loc", ()))[:1] == (name,)]
            raise ToolArgumentsError(describe_validation(errors)) from None
    # Encoded once, as API Gateway receives it ('#' would end the path); the handlers decode it once.
    return quote(str(value), safe=":")


def _retrieve(arguments: dict[str, Any]) -> ApiRequest:
    return ApiRequest("POST", "/v1/retrieve", {}, dict(arguments))


def _graph_path(arguments: dict[str, Any]) -> ApiRequest:
    return ApiRequest("GET", "/v1/graph/path", _query(arguments))


def _why_explain(arguments: dict[str, Any]) -> ApiRequest:
    item = _path_parameter(WhyExplainRequest, arguments, "item_id")
    return ApiRequest("GET", f"/v1/why/{item}", _query(arguments, skip=("item_id",)))


def _session(arguments: dict[str, Any]) -> ApiRequest:
    session = _path_parameter(SessionRequest, arguments, "session_id")
    return ApiRequest("GET", f"/v1/sessions/{session}", _query(arguments, skip=("session_id",)))


CITATIONS = (
    "Citations: with a session_id, every hit gets a source name (S1, S2, ...) that stays the same for "
    "that item for the rest of the session; the context packet's text cites them as [S3], and "
    "context_packet.items maps each source_id to the item id. To check a cited claim, call why_explain "
    "with that item id."
)

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="retrieve",
        title="Retrieve evidence",
        description=(
            "Find evidence (propositions, documents, records, artifacts, traces) in the caller's knowledge "
            "base. Choose a mode: 'auto' (use it when unsure: send the question as you would ask it, e.g. "
            "'Who led the Payments team in March 2026?'; it finds the names of this knowledge base's "
            "entities, the type of entity asked for ('who', 'which customers'), time cues like "
            "'in March 2026', 'last month' or 'currently', and words like 'runbook' or 'HR record' in it, "
            "prefers what they point at without filtering anything out, "
            "and lists each reading in applied.inferred; send entity_id, window or weights to override a "
            "reading, or infer: false to turn reading off), 'hybrid' (a question in words: keywords and "
            "meaning together, nothing inferred), 'lexical' (exact words, names, codes), 'vector' "
            "(paraphrases), 'entity' (everything mentioning entity_id), 'graph_walk' (facts up to depth "
            "hops from entity_id), 'temporal' (what "
            "was valid in a window {from, to}). Each hit has an id, text, score, status and provenance. "
            "Pass session_id to avoid seeing the same query twice (a repeat is refused with "
            "duplicate_query; each answered query spends one unit of the session's budget) and to get "
            "stable citations; pass pack {max_tokens: N} to get a context packet that fits N tokens, "
            "returned as text you can paste. Each hit also carries its metadata, valid_from/valid_to and "
            "a location (the URI to cite); include [...] keeps only the parts you need. " + CITATIONS
        ),
        model=RetrieveRequest,
        to_request=_retrieve,
        hints=SPENDS_SESSION_BUDGET,
    ),
    ToolSpec(
        name="graph_path",
        title="Path between two entities",
        description=(
            "Find the shortest chains of facts linking two entities (ids like 'acme:person/alice-chen'), "
            "up to max_depth hops (1-5). Use it to answer how two people, teams or systems are connected; "
            "each hop names the proposition that connects its ends, which why_explain can justify. "
            "found=false means no chain within max_depth."
        ),
        model=GraphPathRequest,
        to_request=_graph_path,
    ),
    ToolSpec(
        name="why_explain",
        title="Why is this believed",
        description=(
            "Explain one item (any hit id, or the item behind a [S#] citation): what it was derived from "
            "(to depth levels), the source spans that ground it, what it replaced, what replaced it and "
            "what contradicts it. Use it before relying on a claim, or when two hits disagree. "
            "An unknown id answers not_found."
        ),
        model=WhyExplainRequest,
        to_request=_why_explain,
    ),
    ToolSpec(
        name="session",
        title="Session so far",
        description=(
            "Show a retrieval session: how many queries it answered, its budget (limit) and the sources "
            "it has cited so far with their S# names. Use it to recover citations or to see how much "
            "budget is left before retrieve answers session_budget_exhausted."
        ),
        model=SessionRequest,
        to_request=_session,
    ),
)
TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}
