"""The ``retrieve`` tool as an agent sees it: the arguments an agent actually sets, in a schema every host
takes (no ``$ref``, no recursion, every object closed), translated into the ``POST /v1/retrieve`` body.

A host sends every tool definition with every model call, so this schema is what an agent pays for per
turn: the route's own schema is about 20,000 characters (a recursive filter, 27 references); this one is
under 4,000 (``tests/unit/test_mcp_tools.py`` holds it there). The rest of the request stays reachable:
``options`` is a JSON object of any further ``/v1/retrieve`` fields, documented in the tool description.
A filter an agent writes is a flat list of conditions with one level of any/all; the API's filter
language (docs/FILTERS.md) nests deeper, which ``options.filter`` still reaches.
"""

from __future__ import annotations

import json
from typing import Any

from retrieval_core.models.filters import LEAVES
from retrieval_core.retrieval.requests import SESSION_ID_JSON_PATTERN, Mode

OPERATORS = (*LEAVES,)
"""The filter language's leaf operators, each usable as a condition's ``op``."""
NO_VALUE = "exists"
"""The one operator that takes no value (a condition's ``value`` is then ignored)."""

_SCALAR: list[dict[str, Any]] = [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]
CONDITION: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["field", "op", "value"],
    "properties": {
        "field": {
            "type": "string",
            "description": "metadata.<key>, kind, status, confidence, created_at, valid_from, valid_to, "
            "source_ids, mentions.entity_id",
        },
        "op": {"type": "string", "enum": list(OPERATORS), "description": "how field compares to value"},
        "value": {
            "description": "in/not_in: a list; exists: true; else a string, number, bool or date",
            "anyOf": [*_SCALAR, {"type": "array", "items": {"anyOf": _SCALAR}}],
        },
    },
}
CONDITIONS = {"type": "array", "items": CONDITION, "maxItems": 20}

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "retrieve",
    "additionalProperties": False,
    "properties": {
        "text": {"type": "string", "description": "The question or keywords, as you would ask them."},
        "mode": {
            "type": "string",
            "enum": [str(mode) for mode in (Mode.AUTO, *(m for m in Mode if m is not Mode.AUTO))],
            "description": "auto (default), hybrid, lexical, vector need text; entity, graph_walk need "
            "entity_id; temporal needs window",
        },
        "top_k": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Hits (10)"},
        "filter": {
            "type": "object",
            "additionalProperties": False,
            "description": "Every 'all' condition and one 'any' condition (if given) hold",
            "properties": {
                "all": {**CONDITIONS, "description": "all hold"},
                "any": {**CONDITIONS, "description": "one holds"},
            },
        },
        "entity_id": {"type": "string", "description": "acme:person/alice-chen"},
        "window": {
            "type": "object",
            "additionalProperties": False,
            "required": ["from", "to"],
            "description": "ISO-8601 with a zone, inclusive",
            "properties": {
                "from": {"type": "string", "description": "start"},
                "to": {"type": "string", "description": "end"},
            },
        },
        "session_id": {
            "type": "string",
            "pattern": SESSION_ID_JSON_PATTERN,
            "description": "Stable [S#] names, no repeats, a budget",
        },
        "idempotency_key": {
            "type": "string",
            "description": "With session_id: a retry returns the first answer",
        },
        "next_token": {"type": "string", "description": "The next page"},
        "pack_tokens": {
            "type": "integer",
            "minimum": 1,
            "description": "Also a context packet of the hits within this many tokens",
        },
        "options": {
            "type": "string",
            "description": "See the tool description",
        },
    },
}

OPTIONS_HELP = (
    "options: a JSON object string of other /v1/retrieve fields, e.g. "
    '{"diversify":false} (score order: pages interleave kinds by default, so scores can be out of order), '
    '{"kinds":["document"]}, {"include":["text","location"]}, {"depth":2}, {"rerank":{"method":"mmr"}}, '
    '{"filter":<nested, docs/FILTERS.md>}.'
)


class AgentArgumentsError(ValueError):
    """Arguments that cannot become a request (``options`` is not a JSON object); names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def retrieve_body(arguments: dict[str, Any]) -> dict[str, Any]:
    """The ``/v1/retrieve`` body these arguments ask for; the API validates, clamps or refuses it."""
    given = dict(arguments)
    body = _options(given.pop("options", None))
    tokens = given.pop("pack_tokens", None)
    if tokens is not None:
        body["pack"] = {**(body.get("pack") or {}), "max_tokens": tokens}
    if given.get("filter") is not None:
        given["filter"] = filter_expression(given["filter"])
    body.update({key: value for key, value in given.items() if value is not None})
    body.setdefault("mode", str(Mode.AUTO))
    return body


def filter_expression(agent_filter: Any) -> Any:
    """``{"all": [...], "any": [...]}`` in the product's filter language; anything else is handed over
    unchanged, for the API to refuse with its own 422."""
    if not isinstance(agent_filter, dict) or not set(agent_filter) <= {"all", "any"}:
        return agent_filter
    nodes = [_node(condition) for condition in agent_filter.get("all") or []]
    alternatives = [_node(condition) for condition in agent_filter.get("any") or []]
    if alternatives:
        nodes.append(alternatives[0] if len(alternatives) == 1 else {"any_of": alternatives})
    if not nodes:
        return None
    return nodes[0] if len(nodes) == 1 else {"all_of": nodes}


def _node(condition: Any) -> Any:
    if not isinstance(condition, dict) or not {"field", "op"} <= condition.keys():
        return condition
    operand = {"key": condition["field"]}
    if condition["op"] != NO_VALUE:
        operand["value"] = condition.get("value")
    return {condition["op"]: operand}


def _options(text: Any) -> dict[str, Any]:
    if text is None or text == "":
        return {}
    try:
        options = json.loads(text) if isinstance(text, str) else text
    except json.JSONDecodeError as error:
        raise AgentArgumentsError("options", f"options is not JSON: {error.msg}") from None
    if not isinstance(options, dict):
        raise AgentArgumentsError("options", "options must be a JSON object of /v1/retrieve fields")
    return options
