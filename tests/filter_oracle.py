"""An independent evaluator of the filter language over items, written from the documented semantics
(docs/STORAGE.md, "Filters") and sharing no code with the OpenSearch translation. The in-memory fakes
and the property-based integration test use it as the truth.

Semantics: a leaf holds when *some* value of its key satisfies it; a missing key, null or empty list
has no values; negations (``not_equals``, ``not_in``, ``none_of``) hold when the positive form does not.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from retrieval_core.models.item import Item

DATE_KEYS = {"created_at", "valid_from", "valid_to"}
NUMBER_KEYS = {"confidence"}
COMPARE = {"gt": operator.gt, "gte": operator.ge, "lt": operator.lt, "lte": operator.le}


def matches(item: Item, node: Mapping[str, Any], metadata_types: Mapping[str, str] | None = None) -> bool:
    types = dict(metadata_types or {})
    ((name, operand),) = node.items()
    if name == "all_of":
        return all(matches(item, child, types) for child in operand)
    if name == "any_of":
        return any(matches(item, child, types) for child in operand)
    if name == "none_of":
        return not any(matches(item, child, types) for child in operand)
    key = operand["key"]
    kind = _type_of(key, types)
    values = [_typed(kind, v) for v in _values(item, key)]
    if name == "exists":
        return bool(values)
    if name in ("equals", "list_contains"):
        return _typed(kind, operand["value"]) in values
    if name == "not_equals":
        return _typed(kind, operand["value"]) not in values
    if name in ("in", "not_in"):
        wanted = {_typed(kind, v) for v in operand["value"]}
        found = any(v in wanted for v in values)
        return found if name == "in" else not found
    if name == "starts_with":
        return any(isinstance(v, str) and v.startswith(operand["value"]) for v in values)
    if name == "string_contains":
        return any(isinstance(v, str) and operand["value"] in v for v in values)
    target = _typed(kind, operand["value"])
    return any(COMPARE[name](v, target) for v in values)


def _type_of(key: str, types: Mapping[str, str]) -> str:
    if key in DATE_KEYS:
        return "date"
    if key in NUMBER_KEYS:
        return "number"
    if key.startswith("metadata."):
        return types.get(key.removeprefix("metadata."), "keyword")
    return "keyword"


def _values(item: Item, key: str) -> list[Any]:
    if key.startswith("metadata."):
        raw = item.metadata.get(key.removeprefix("metadata."))
        found = raw if isinstance(raw, list) else [raw]
        return [v for v in found if v is not None and not isinstance(v, dict | list)]
    builtin = {
        "kind": [str(item.kind)],
        "status": [str(item.status)],
        "confidence": [] if item.confidence is None else [item.confidence],
        "created_at": [item.created_at],
        "valid_from": [] if item.valid_from is None else [item.valid_from],
        "valid_to": [] if item.valid_to is None else [item.valid_to],
        "source_ids": list(item.source_ids),
        "mentions.entity_id": [m.entity_id for m in item.mentions],
        "mentions.type": [m.type for m in item.mentions],
    }
    return builtin[key]


def _typed(kind: str, value: Any) -> Any:
    if kind == "date":
        moment = value if isinstance(value, datetime) else datetime.fromisoformat(value)
        return moment.timestamp()
    if kind == "number":
        return float(value)
    return value
