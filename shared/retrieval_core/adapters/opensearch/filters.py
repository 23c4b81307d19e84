"""A resolved ``Filter`` as an OpenSearch query clause, for a ``bool.filter`` or a ``knn`` clause's
``filter``. Every leaf matches when *some* value of its key matches (lists behave like OpenSearch
arrays); the negations (``not_equals``, ``not_in``, ``none_of``) therefore also match items without
the key."""

from __future__ import annotations

from typing import Any

from ...models.filters import Filter

# Built-in filter keys and the index fields that hold them.
INDEX_FIELD = {
    "mentions.entity_id": "entity_ids",
    "mentions.type": "mention_types",
}
RANGE_OPERATORS = frozenset({"gt", "gte", "lt", "lte"})


def filter_clause(node: Filter) -> dict[str, Any]:
    operator = node.operator
    children = node.children
    if children is not None:
        clauses = [filter_clause(child) for child in children]
        if operator == "all_of":
            return {"bool": {"filter": clauses}}
        if operator == "any_of":
            return {"bool": {"should": clauses, "minimum_should_match": 1}}
        return {"bool": {"must_not": clauses}}
    leaf = node.operand(operator)
    field = INDEX_FIELD.get(leaf.key, leaf.key)
    match operator:
        case "equals" | "list_contains":
            return {"term": {field: leaf.value}}
        case "not_equals":
            return {"bool": {"must_not": [{"term": {field: leaf.value}}]}}
        case "in":
            return {"terms": {field: leaf.value}}
        case "not_in":
            return {"bool": {"must_not": [{"terms": {field: leaf.value}}]}}
        case "starts_with":
            return {"prefix": {field: {"value": leaf.value}}}
        case "string_contains":
            return {"wildcard": {field: {"value": f"*{_escape_wildcard(leaf.value)}*"}}}
        case "exists":
            return {"exists": {"field": field}}
    assert operator in RANGE_OPERATORS
    return {"range": {field: {operator: leaf.value}}}


def _escape_wildcard(text: str) -> str:
    return "".join("\\" + char if char in "\\*?" else char for char in text)
