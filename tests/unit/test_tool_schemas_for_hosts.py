"""Every MCP tool's input schema against the tool-schema rules of the hosts agents run in, written down
with their sources in docs/AGENT_HOSTS.md: one rule set per host, as data. The served form has no
references and no recursion; OpenAI's strict mode takes it once its client makes every property required
(optional ones nullable), Gemini's ``parameters`` once ``additionalProperties`` is dropped: the tests pin
that nothing else needs converting."""

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
"""The hosts that take the served schema as it is (strict mode and Gemini's ``parameters``: below)."""
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


OPENAI_STRICT = HostRules(
    "openai (strict: true)",
    r"^[a-zA-Z0-9_-]{1,64}$",
    frozenset({"oneOf", "anyOf", "allOf", "enum", "not"}),
    keywords=frozenset(
        {
            "$ref",
            "$defs",
            "title",
            "description",
            "type",
            "enum",
            "const",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "anyOf",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
        }
    ),
)
"""OpenAI's Structured Outputs subset (docs/AGENT_HOSTS.md): every object closed and every property
required (an optional one as nullable), no free-form object, no string length or map keywords."""


def strict_violations(tool: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    found = violations(tool, OPENAI_STRICT, schema)
    for path, node in subschemas(schema):
        if node.get("type") == "object" or "properties" in node:
            if node.get("additionalProperties") is not False:
                found.append(f"{path}: object not closed")
            if not node.get("properties"):
                found.append(f"{path}: free-form object")
            elif sorted(node.get("required", [])) != sorted(node["properties"]):
                found.append(f"{path}: not every property required")
    return found


def strict_form(schema: dict[str, Any]) -> dict[str, Any]:
    """What a strict host's client makes of a schema (the OpenAI Agents SDK's conversion): every property
    required, an optional one nullable. Nothing else changes."""
    node = copy.deepcopy(schema)
    for _, sub in subschemas(node):
        properties = sub.get("properties") or {}
        for name, child in properties.items():
            if name in sub.get("required", []):
                continue
            if isinstance(child.get("type"), str):
                child["type"] = [child["type"], "null"]
            elif "anyOf" in child:
                child["anyOf"] = [*child["anyOf"], {"type": "null"}]
        if properties:
            sub["required"] = list(properties)
    return node


def gemini_parameters_form(schema: dict[str, Any]) -> dict[str, Any]:
    """The served schema in Gemini's ``parameters`` (OpenAPI 3.0 subset): ``additionalProperties`` is the
    one keyword it lacks, so it is dropped; nothing else changes (no references to inline)."""
    node = copy.deepcopy(schema)
    for _, sub in subschemas(node):
        sub.pop("additionalProperties", None)
    return node


def test_openai_strict_mode_takes_every_tool_as_its_client_converts_it() -> None:
    for tool in listed():
        served = tool["inputSchema"]
        assert [v for v in strict_violations(tool, served) if "required" not in v] == [], tool["name"]
        assert strict_violations(tool, strict_form(served)) == [], tool["name"]


def test_gemini_s_parameters_form_takes_every_tool_without_references() -> None:
    for tool in listed():
        assert "$ref" not in str(tool["inputSchema"]) and "$defs" not in str(tool["inputSchema"])
        converted = gemini_parameters_form(tool["inputSchema"])
        assert violations(tool, GEMINI_OPENAPI, converted) == [], tool["name"]
        assert converted["properties"].keys() == tool["inputSchema"]["properties"].keys()


def test_the_strict_rules_catch_what_strict_mode_refused() -> None:
    """The route model's schema (optional properties, a map's propertyNames, minProperties, a
    recursive filter): what OpenAI's strict mode refused for all four tools."""
    from retrieval_core.retrieval.requests import RetrieveRequest

    schema = RetrieveRequest.model_json_schema()
    schema.pop("allOf")
    found = strict_violations({"name": "retrieve", "inputSchema": schema}, strict_form(schema))
    assert any("propertyNames" in v for v in found) and any(
        "free-form" in v or "minLength" in v for v in found
    )


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
