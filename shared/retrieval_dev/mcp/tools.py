"""The four tools: their descriptions (written for a model), input and output schemas, API requests.

A host sends these definitions with every model call, so they are written to be cheap: ``retrieve``'s
input is the agent's form (``agent_retrieve``), translated into the route's body; graph_path, why_explain
and session take their route model's schema in the form every host accepts (``served_schema``: references
inlined, no titles below the root, bounds the API checks left to it). ``context_id`` is never an argument.
Arguments go to the API, which (not this module) accepts, clamps, ignores or refuses them, exactly as it
does for any HTTP caller (docs/AGENT_HOSTS.md: which form is served, and why).
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
from retrieval_core.retrieval.requests import SESSION_ID_JSON_PATTERN

from . import agent_retrieve
from .agent_retrieve import AgentArgumentsError

NOT_AN_ARGUMENT = "context_id"
LEFT_TO_THE_API = frozenset({"title", "default", "minLength", "maxLength"})
"""Keywords below a schema's root that strict hosts refuse or that only repeat what the API checks and
the description says (OpenAI's strict mode knows no minLength/maxLength/default)."""


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
    schema: Callable[[], dict[str, Any]]
    output_schema: dict[str, Any]
    to_request: Callable[[dict[str, Any]], ApiRequest]
    hints: Hints = READS

    def input_schema(self) -> dict[str, Any]:
        return self.schema()


def served_schema(model: type[BaseModel]) -> Callable[[], dict[str, Any]]:
    """The model's JSON Schema as every host takes it: ``$ref``s inlined (these models do not recurse),
    ``X | null`` as ``X`` (the property is optional anyway), no titles below the root and none of
    ``LEFT_TO_THE_API``; the root closed (``additionalProperties: false``)."""

    def build() -> dict[str, Any]:
        schema = model.model_json_schema(by_alias=True)
        definitions = schema.pop("$defs", {})
        schema.get("properties", {}).pop(NOT_AN_ARGUMENT, None)

        def clean(node: dict[str, Any]) -> dict[str, Any]:
            if "$ref" in node:
                node = {
                    **definitions[node["$ref"].rsplit("/", 1)[-1]],
                    **{k: v for k, v in node.items() if k != "$ref"},
                }
            options = [o for o in node.get("anyOf", []) if o != {"type": "null"}]
            if len(options) == 1:
                node = {**{k: v for k, v in node.items() if k != "anyOf"}, **options[0]}
            out = {k: v for k, v in node.items() if k not in LEFT_TO_THE_API}
            if "properties" in out:
                out["properties"] = {name: clean(child) for name, child in out["properties"].items()}
            if isinstance(out.get("items"), dict):
                out["items"] = clean(out["items"])
            if "anyOf" in out:
                out["anyOf"] = [clean(option) for option in out["anyOf"]]
            return out

        served = clean(schema)
        return {"title": schema.get("title", model.__name__), **served, "additionalProperties": False}

    return build


def _open(properties: dict[str, Any]) -> dict[str, Any]:
    """An output schema: the properties a client may rely on, described; the answer may carry more."""
    return {"type": "object", "properties": properties}


_TEXT = {"type": "string"}
RETRIEVE_OUTPUT = _open(
    {
        "hits": {
            "type": "array",
            "items": _open(
                {
                    "id": _TEXT,
                    "kind": _TEXT,
                    "text": _TEXT,
                    "score": {"type": "number"},
                    "status": _TEXT,
                    "location": {"type": ["object", "null"]},
                }
            ),
        },
        "next_token": {"type": ["string", "null"]},
        "receipt": {
            "type": ["object", "null"],
            "description": "With a session: source_ids (S#) in hit order.",
        },
        "context_packet": {"type": ["object", "null"]},
        "applied": {"type": "object"},
    }
)
GRAPH_PATH_OUTPUT = _open(
    {
        "found": {"type": "boolean"},
        "paths": {"type": "array", "items": _open({"edges": {"type": "array", "items": {"type": "object"}}})},
    }
)
WHY_EXPLAIN_OUTPUT = _open(
    {
        "item": {"type": "object"},
        "ancestors": {"type": "array", "items": {"type": "object"}},
        "grounding": {"type": "array", "items": {"type": "object"}},
        "contradicts": {"type": "array", "items": {"type": "object"}},
    }
)
SESSION_OUTPUT = _open(
    {
        "count": {"type": "integer"},
        "limit": {"type": "integer"},
        "sources": {"type": "array", "items": {"type": "object"}},
    }
)


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
    try:
        return ApiRequest("POST", "/v1/retrieve", {}, agent_retrieve.retrieve_body(arguments))
    except AgentArgumentsError as error:
        body = {
            "error": "invalid_request",
            "message": f"{error.field}: {error}",
            "fields": [{"field": error.field, "message": str(error)}],
        }
        raise ToolArgumentsError(body) from None


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
            "Find evidence (propositions, documents, records, artifacts, traces) in your knowledge base. "
            "Mode auto (default): ask as you would ask a person; entity names, time cues and kinds it reads "
            "are listed in applied.inferred. The text result lists hits as [S#|rank] id (kind, score) "
            "<location>: text; the structured result is the whole answer. With session_id, hits get stable "
            "[S#] names, a repeat is refused (duplicate_query) and each answer spends budget. Check a claim "
            "with why_explain(item_id). " + agent_retrieve.OPTIONS_HELP
        ),
        schema=lambda: agent_retrieve.INPUT_SCHEMA,
        output_schema=RETRIEVE_OUTPUT,
        to_request=_retrieve,
        hints=SPENDS_SESSION_BUDGET,
    ),
    ToolSpec(
        name="graph_path",
        title="Path between two entities",
        description=(
            "The shortest chains of facts linking two entities (acme:person/alice-chen), up to max_depth "
            "hops: how two people, teams or systems are connected. Each hop names its proposition; "
            "found=false: no chain."
        ),
        schema=served_schema(GraphPathRequest),
        output_schema=GRAPH_PATH_OUTPUT,
        to_request=_graph_path,
    ),
    ToolSpec(
        name="why_explain",
        title="Why is this believed",
        description=(
            "Why one item (a hit id, or a [S#] citation's) is believed: what it was derived from, the spans "
            "that ground it, what it replaced or was replaced by, what contradicts it. Use it before "
            "relying on a claim."
        ),
        schema=served_schema(WhyExplainRequest),
        output_schema=WHY_EXPLAIN_OUTPUT,
        to_request=_why_explain,
    ),
    ToolSpec(
        name="session",
        title="Session so far",
        description=(
            "A retrieval session: queries answered, its budget (limit) and the sources cited so far with "
            "their S# names."
        ),
        schema=served_schema(SessionRequest),
        output_schema=SESSION_OUTPUT,
        to_request=_session,
    ),
)
TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}
