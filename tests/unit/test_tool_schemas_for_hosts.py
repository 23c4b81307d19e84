"""Every MCP tool's input schema against the tool-schema rules of the hosts agents run in, written down
with their sources in docs/AGENT_HOSTS.md: one rule set per host, as data. A host that cannot take
recursion (Gemini's OpenAPI-subset ``parameters``) gets the schema converted mechanically, the recursive
filter as a free-form object; the test pins that nothing else needs converting."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from retrieval_dev.mcp.server import list_tools

JSON_SCHEMA_KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "$ref",
        "$defs",
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "propertyNames",
        "patternProperties",
        "minProperties",
        "maxProperties",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "anyOf",
        "allOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
    }
)
"""JSON Schema 2020-12's keywords: anything else in a schema (pydantic's ``ge``) means nothing to a host."""
ROOT_CONDITIONS = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "enum"})


@dataclass(frozen=True)
class HostRules:
    name: str
    tool_name: str
    """Pattern a tool's name must match."""
    root_forbidden: frozenset[str]
    """Keywords refused at the root of the input schema (the root must be ``type: object``)."""
    refs: bool = True
    """``$ref``/``$defs`` (and so recursion) allowed."""
    keywords: frozenset[str] = JSON_SCHEMA_KEYWORDS
    """The keywords the host's schema dialect knows."""
    property_name: str | None = None
    """Pattern every property name must match, if the host restricts them."""


ANTHROPIC = HostRules("anthropic", r"^[a-zA-Z0-9_-]{1,64}$", frozenset({"oneOf", "allOf", "anyOf"}))
OPENAI = HostRules("openai", r"^[a-zA-Z0-9_-]{1,64}$", frozenset({"oneOf", "anyOf", "allOf", "enum", "not"}))
GEMINI_JSON_SCHEMA = HostRules(
    "gemini (parametersJsonSchema)",
    r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$",
    ROOT_CONDITIONS,
    property_name=r"^[a-zA-Z_][a-zA-Z0-9_]{0,63}$",
)
GEMINI_OPENAPI = HostRules(
    "gemini (parameters, OpenAPI 3.0 subset)",
    r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$",
    ROOT_CONDITIONS,
    refs=False,
    keywords=frozenset(
        {
            "type",
            "format",
            "title",
            "description",
            "nullable",
            "enum",
            "items",
            "properties",
            "required",
            "minItems",
            "maxItems",
            "minLength",
            "maxLength",
            "pattern",
            "minimum",
            "maximum",
            "minProperties",
            "maxProperties",
            "default",
            "example",
            "anyOf",
            "propertyOrdering",
        }
    ),
    property_name=r"^[a-zA-Z_][a-zA-Z0-9_]{0,63}$",
)
MCP = HostRules("mcp (2025-11-25)", r"^[A-Za-z0-9_.-]{1,128}$", frozenset())
HOSTS = (ANTHROPIC, OPENAI, GEMINI_JSON_SCHEMA, MCP)
MCP_ANNOTATIONS = {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


def listed() -> list[dict[str, Any]]:
    return [tool.model_dump(by_alias=True, exclude_none=True) for tool in list_tools()]


def subschemas(schema: dict[str, Any], path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema node under ``schema`` (itself included), with a readable path."""
    yield path or "(root)", schema
    for name, child in schema.get("properties", {}).items():
        yield from subschemas(child, f"{path}.{name}")
    for name, child in schema.get("$defs", {}).items():
        yield from subschemas(child, f"$defs.{name}")
    for keyword in ("items", "additionalProperties", "propertyNames", "not", "if", "then", "else"):
        if isinstance(schema.get(keyword), dict):
            yield from subschemas(schema[keyword], f"{path}/{keyword}")
    for keyword in ("anyOf", "allOf", "oneOf", "prefixItems"):
        for position, child in enumerate(schema.get(keyword, [])):
            yield from subschemas(child, f"{path}/{keyword}[{position}]")


def violations(tool: dict[str, Any], rules: HostRules, schema: dict[str, Any] | None = None) -> list[str]:
    schema = tool["inputSchema"] if schema is None else schema
    found = []
    if not re.fullmatch(rules.tool_name, tool["name"]):
        found.append(f"tool name {tool['name']!r}")
    if schema.get("type") != "object":
        found.append("root is not type object")
    found += [f"root has {k}" for k in sorted(rules.root_forbidden & schema.keys())]
    for path, node in subschemas(schema):
        found += [f"{path}: unknown keyword {k}" for k in sorted(node.keys() - rules.keywords)]
        if not rules.refs and ({"$ref", "$defs"} & node.keys()):
            found.append(f"{path}: $ref/$defs")
        if rules.property_name is not None:
            pattern = rules.property_name
            found += [
                f"{path}: property {p!r}" for p in node.get("properties", {}) if not re.fullmatch(pattern, p)
            ]
    return found


@pytest.mark.parametrize("rules", HOSTS, ids=lambda rules: rules.name)
def test_every_tool_schema_meets_the_hosts_rules(rules: HostRules) -> None:
    assert {tool["name"]: violations(tool, rules) for tool in listed()} == {
        tool["name"]: [] for tool in listed()
    }


def test_every_property_is_described_and_every_tool_titled_and_annotated() -> None:
    for tool in listed():
        assert tool["title"] and tool["inputSchema"]["title"]
        assert set(tool["annotations"]) == MCP_ANNOTATIONS, tool["name"]
        undescribed = [
            f"{path}.{name}"
            for path, node in subschemas(tool["inputSchema"])
            for name, prop in node.get("properties", {}).items()
            if not prop.get("description")
        ]
        assert undescribed == [], tool["name"]


def test_numeric_bounds_are_json_schemas_own_keywords() -> None:
    schema = next(t for t in listed() if t["name"] == "retrieve")["inputSchema"]
    assert schema["properties"]["min_score"]["anyOf"][0] == {"type": "number", "minimum": 0, "maximum": 1}
    assert schema["properties"]["weights"]["additionalProperties"] == {"type": "number", "minimum": 0}
    max_tokens = schema["$defs"]["PackOptions"]["properties"]["max_tokens"]["anyOf"][0]
    assert max_tokens["exclusiveMinimum"] == 0


def test_the_recursive_filter_stays_a_reference_where_hosts_allow_it() -> None:
    schema = next(t for t in listed() if t["name"] == "retrieve")["inputSchema"]
    assert schema["properties"]["filter"]["anyOf"][0] == {"$ref": "#/$defs/Filter"}
    all_of = schema["$defs"]["Filter"]["properties"]["all_of"]["anyOf"][0]
    assert all_of["items"] == {"$ref": "#/$defs/Filter"}


FREE_FORM_FILTER = {
    "type": "object",
    "description": "A filter expression (docs/FILTERS.md): one operator per node, e.g. "
    '{"equals": {"key": "metadata.team", "value": "payments"}}. The server validates it.',
}


def openapi_subset(schema: dict[str, Any]) -> dict[str, Any]:
    """The input schema as a host without references gets it: references inlined (a recursive one,
    the filter, becomes a free-form object), ``X | null`` as ``nullable``, a map's value schema and key
    names dropped (an object), ``exclusiveMinimum``/``exclusiveMaximum`` as ``minimum``/``maximum``,
    ``examples`` as ``example``."""
    definitions = schema.get("$defs", {})

    def convert(node: dict[str, Any], seen: frozenset[str]) -> dict[str, Any]:
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name in seen:
                return dict(FREE_FORM_FILTER)
            return convert(definitions[name], seen | {name})
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("$defs", "additionalProperties", "propertyNames", "const"):
                continue
            if key == "anyOf":
                options = [o for o in value if o != {"type": "null"}]
                if len(options) < len(value):
                    out["nullable"] = True
                converted = [convert(o, seen) for o in options]
                if len(converted) == 1:
                    out.update(converted[0])
                else:
                    out["anyOf"] = converted
            elif key == "properties":
                out[key] = {name: convert(child, seen) for name, child in value.items()}
            elif key == "items":
                out[key] = convert(value, seen)
            elif key in ("exclusiveMinimum", "exclusiveMaximum"):
                out[key.removeprefix("exclusive").lower()] = value
            elif key == "examples":
                out["example"] = value[0]
            else:
                out[key] = value
        return out

    return convert(schema, frozenset())


def test_a_host_without_references_gets_every_field_and_the_filter_as_a_free_form_object() -> None:
    for tool in listed():
        converted = openapi_subset(copy.deepcopy(tool["inputSchema"]))
        assert violations(tool, GEMINI_OPENAPI, converted) == [], tool["name"]
        assert converted["properties"].keys() == tool["inputSchema"]["properties"].keys()
    retrieve = next(t for t in listed() if t["name"] == "retrieve")
    flat_filter = openapi_subset(retrieve["inputSchema"])["properties"]["filter"]
    all_of = flat_filter["properties"]["all_of"]
    assert all_of["items"] == FREE_FORM_FILTER  # one level of the filter, then a free-form node


def test_the_rules_catch_what_hosts_refused() -> None:
    """The route model's own schema (with the per-mode conditions at its root) and pydantic's raw bounds
    on a union are what hosts refused before the tool schemas left them out."""
    from retrieval_core.retrieval.requests import RetrieveRequest

    tool = {"name": "retrieve", "inputSchema": RetrieveRequest.model_json_schema()}
    assert "root has allOf" in violations(tool, ANTHROPIC)
    raw_bounds = {"type": "object", "properties": {"x": {"anyOf": [{"type": "number"}], "ge": 0}}}
    assert violations({"name": "x", "inputSchema": raw_bounds}, MCP) == [".x: unknown keyword ge"]
    assert violations({"name": "retrieve tool", "inputSchema": {"type": "object"}}, OPENAI) == [
        "tool name 'retrieve tool'"
    ]
