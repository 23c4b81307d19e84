"""botocore's service models for ``bedrock-agent-runtime`` and ``bedrock-agent`` as a test oracle: a
response to ``Retrieve`` (or to a ``bedrock-agent`` operation, ``agent_operation``) is right when botocore
parses it and every member it holds is one the output shape names, of that member's type (tests use
this against the handlers and against ``retrieval serve``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import botocore.session
from botocore.model import OperationModel, Shape
from botocore.parsers import create_parser
from botocore.validate import ParamValidator

SERVICE = "bedrock-agent-runtime"
OPERATION = "Retrieve"


AGENT_SERVICE = "bedrock-agent"


@cache
def operation(service: str = SERVICE, name: str = OPERATION) -> OperationModel:
    return botocore.session.get_session().get_service_model(service).operation_model(name)


def agent_operation(name: str) -> OperationModel:
    """A ``bedrock-agent`` operation's model (``GetKnowledgeBase``, ``IngestKnowledgeBaseDocuments``...)."""
    return operation(AGENT_SERVICE, name)


def shape_problems(value: Any, shape: Shape, path: str = "") -> list[str]:
    """Where ``value`` (decoded JSON) leaves ``shape``: unknown or missing members, wrong types, values
    outside an enum, lengths below a minimum. Empty when it conforms."""
    kind = shape.type_name
    where = path or "(root)"
    if shape.metadata.get("document"):
        return []  # any JSON value
    if kind == "structure":
        return _structure_problems(value, shape, path, where)
    if kind == "list":
        if not isinstance(value, list):
            return [f"{where}: expected a list"]
        member = shape.member  # type: ignore[attr-defined]
        return [p for i, item in enumerate(value) for p in shape_problems(item, member, f"{path}[{i}]")]
    if kind == "map":
        return _map_problems(value, shape, path, where)
    if kind == "string":
        return _string_problems(value, shape, where)
    if kind in _SCALARS:
        accepted, expected = _SCALARS[kind]
        return [] if accepted(value) else [f"{where}: expected {expected}"]
    return [f"{where}: unexpected shape type {kind}"]


def _structure_problems(value: Any, shape: Shape, path: str, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: expected an object"]
    members = shape.members  # type: ignore[attr-defined]
    problems = [f"{where}: unknown member '{name}'" for name in value if name not in members]
    problems += [f"{where}: missing '{name}'" for name in shape.required_members if name not in value]  # type: ignore[attr-defined]
    for name, member in members.items():
        if name in value:
            problems += shape_problems(value[name], member, f"{path}.{name}" if path else name)
    return problems


def _map_problems(value: Any, shape: Shape, path: str, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: expected an object"]
    problems = (
        [f"{where}: fewer than {shape.metadata['min']} entries"]
        if len(value) < shape.metadata.get("min", 0)
        else []
    )
    return problems + [
        p
        for key, item in value.items()
        for p in shape_problems(item, shape.value, f"{path}[{key!r}]")  # type: ignore[attr-defined]
    ]


def _string_problems(value: Any, shape: Shape, where: str) -> list[str]:
    if not isinstance(value, str):
        return [f"{where}: expected a string"]
    enum = shape.enum
    if enum and value not in enum:
        return [f"{where}: '{value}' is not one of {enum}"]
    if len(value) < shape.metadata.get("min", 0):
        return [f"{where}: shorter than {shape.metadata['min']}"]
    return []


def _is_number(value: Any) -> bool:
    # JSON's true and false decode to bool, a subclass of int: not numbers on the wire.
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_boolean(value: Any) -> bool:
    return isinstance(value, bool)


def _is_timestamp(value: Any) -> bool:
    """An ISO 8601 date-time or epoch seconds, the spellings botocore's timestamp parser reads."""
    if _is_number(value):
        return True
    if not isinstance(value, str):
        return False
    from datetime import datetime

    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


_SCALARS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "double": (_is_number, "a number"),
    "float": (_is_number, "a number"),
    "integer": (_is_integer, "an integer"),
    "long": (_is_integer, "an integer"),
    "boolean": (_is_boolean, "a boolean"),
    "timestamp": (_is_timestamp, "a timestamp"),
}
"""The scalar shape types: what a value of each must be, and what a problem says it expected."""


def parse(
    status: int, headers: Mapping[str, str], body: bytes, model: OperationModel | None = None
) -> dict[str, Any]:
    """What botocore's rest-json parser makes of an HTTP answer (errors under ``Error``)."""
    shape = (model or operation()).output_shape if status < 300 else None
    # botocore hands its parsers case-insensitive headers; lower-cased names are what they look up.
    response = {"status_code": status, "headers": {k.lower(): v for k, v in headers.items()}, "body": body}
    parsed: dict[str, Any] = create_parser("rest-json").parse(response, shape)
    return parsed


def response_problems(
    status: int, headers: Mapping[str, str], body: bytes, model: OperationModel | None = None
) -> list[str]:
    """Why a successful answer is not the operation's output (``Retrieve``'s unless ``model`` names
    another), or not with the status code it declares; empty when it is."""
    model = model or operation()
    expected = model.http.get("responseCode", 200)
    if status != expected:
        return [f"status {status}, not the {expected} {model.name} answers with"]
    problems = shape_problems(json.loads(body), model.output_shape)
    parsed = parse(status, headers, body, model)
    parsed.pop("ResponseMetadata", None)
    report = ParamValidator().validate(parsed, model.output_shape)
    if report.has_errors():
        problems.append(report.generate_report())
    return problems


def error_code(
    status: int, headers: Mapping[str, str], body: bytes, model: OperationModel | None = None
) -> tuple[str, str]:
    """The code and message botocore's ``ClientError`` would carry; the code must be a modelled one."""
    error = parse(status, headers, body, model)["Error"]
    modelled = {shape.name for shape in (model or operation()).error_shapes}
    assert error["Code"] in modelled, (error, modelled)
    return error["Code"], error["Message"]
