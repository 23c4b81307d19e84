"""A Bedrock ``RetrievalFilter`` as a node of our filter language (``models.filters``).

The translation is structural (one operator for one operator, a key for a key), so our filter model's
typing rules and limits apply unchanged, and its errors can be spelled back in Bedrock's names."""

from __future__ import annotations

from typing import Any

from ...errors import InvalidRequestError
from ...models.metadata import METADATA_NAME_PATTERN
from .names import COMBINATORS, FILTERABLE_FIELDS, OPERATORS, RESERVED_PREFIX

FILTER_PATH = "retrievalConfiguration.vectorSearchConfiguration.filter"
MAX_FILTER_NODES = 500
"""Far above what our limits accept (50 leaves, 5 levels): a bound on the walk, not a rule."""


class UnsupportedFilterError(InvalidRequestError):
    """A filter node this API cannot translate (an unknown operator, a reserved key it does not have)."""


def translate_filter(node: Any) -> dict[str, Any]:
    """Our filter for Bedrock's ``node``; raises ``UnsupportedFilterError`` naming the node's path."""
    budget = [MAX_FILTER_NODES]
    return _translate(node, FILTER_PATH, budget)


def _translate(node: Any, path: str, budget: list[int]) -> dict[str, Any]:
    budget[0] -= 1
    if budget[0] < 0:
        raise UnsupportedFilterError(f"{FILTER_PATH}: the filter has too many nodes.")
    if not isinstance(node, dict) or len(node) != 1:
        raise UnsupportedFilterError(f"{path}: set exactly one operator.")
    ((name, operand),) = node.items()
    if name in COMBINATORS:
        if not isinstance(operand, list) or len(operand) < 2:
            raise UnsupportedFilterError(f"{path}.{name}: a list of at least 2 filters is required.")
        children = [_translate(child, f"{path}.{name}[{i}]", budget) for i, child in enumerate(operand)]
        return {COMBINATORS[name]: children}
    if name not in OPERATORS:
        known = ", ".join([*OPERATORS, *COMBINATORS])
        raise UnsupportedFilterError(f"{path}: unsupported filter operator '{name}'; use one of {known}.")
    if not isinstance(operand, dict) or set(operand) != {"key", "value"}:
        raise UnsupportedFilterError(f"{path}.{name}: an object with exactly 'key' and 'value' is required.")
    return {
        OPERATORS[name]: {"key": _our_key(operand["key"], f"{path}.{name}.key"), "value": operand["value"]}
    }


def _our_key(key: Any, path: str) -> str:
    if not isinstance(key, str) or not 1 <= len(key) <= 100:
        raise UnsupportedFilterError(f"{path}: a key of 1 to 100 characters is required.")
    if key in FILTERABLE_FIELDS:
        return FILTERABLE_FIELDS[key]
    if key.startswith(RESERVED_PREFIX):
        raise UnsupportedFilterError(
            f"{path}: '{key}' cannot be filtered on; the built-in keys are {', '.join(FILTERABLE_FIELDS)}."
        )
    if not METADATA_NAME_PATTERN.fullmatch(key):
        raise UnsupportedFilterError(f"{path}: a metadata key is 1-64 letters, digits, '_' or '-'.")
    return f"metadata.{key}"
