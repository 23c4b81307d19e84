"""How Bedrock's names spell ours: filter operators, and the ``x-retrieval-*`` metadata keys under which
results carry (and filters reach) the built-in fields."""

from __future__ import annotations

import re

RESERVED_PREFIX = "x-retrieval-"

OPERATORS = {
    "equals": "equals",
    "notEquals": "not_equals",
    "greaterThan": "gt",
    "greaterThanOrEquals": "gte",
    "lessThan": "lt",
    "lessThanOrEquals": "lte",
    "in": "in",
    "notIn": "not_in",
    "startsWith": "starts_with",
    "listContains": "list_contains",
    "stringContains": "string_contains",
}
"""Bedrock's leaf operators and ours: the same semantics and the same typing rules (docs/FILTERS.md)."""
COMBINATORS = {"andAll": "all_of", "orAll": "any_of"}

FILTERABLE_FIELDS = {
    f"{RESERVED_PREFIX}kind": "kind",
    f"{RESERVED_PREFIX}status": "status",
    f"{RESERVED_PREFIX}confidence": "confidence",
    f"{RESERVED_PREFIX}created-at": "created_at",
    f"{RESERVED_PREFIX}valid-from": "valid_from",
    f"{RESERVED_PREFIX}valid-to": "valid_to",
    f"{RESERVED_PREFIX}source-ids": "source_ids",
    f"{RESERVED_PREFIX}entity-ids": "mentions.entity_id",
    f"{RESERVED_PREFIX}mention-types": "mentions.type",
}
"""Built-in fields a Bedrock filter can name; any other key that does not start with the reserved prefix
is an item's metadata key (``team`` is our ``metadata.team``)."""

REQUEST_FIELDS = {
    "text": "retrievalQuery.text",
    "top_k": "retrievalConfiguration.vectorSearchConfiguration.numberOfResults",
    "next_token": "nextToken",
    "filter": "retrievalConfiguration.vectorSearchConfiguration.filter",
}
"""Our request's fields where a Bedrock request has them (errors name the field the caller sent)."""

_OURS = {ours: theirs for theirs, ours in (OPERATORS | COMBINATORS).items()}
_OUR_KEYS = {ours: theirs for theirs, ours in FILTERABLE_FIELDS.items()}
_WORD = re.compile(r"[A-Za-z_]+")
_QUOTED_KEY = re.compile(r"'([A-Za-z0-9_.\-]+)'")


def bedrock_key(key: str) -> str:
    """Our filter key as a Bedrock filter names it (``metadata.team`` -> ``team``)."""
    return _OUR_KEYS.get(key) or key.removeprefix("metadata.")


def bedrock_path(path: str) -> str:
    """A path in our request (``filter.all_of[1].gte.value``) as the Bedrock request spells it
    (``retrievalConfiguration.vectorSearchConfiguration.filter.andAll[1].greaterThanOrEquals.value``)."""
    head, dot, rest = path.partition(".")
    head_name, bracket, index = head.partition("[")
    spelled = REQUEST_FIELDS.get(head_name, head_name) + bracket + index
    return spelled + dot + _WORD.sub(lambda word: _OURS.get(word.group(), word.group()), rest)


def bedrock_message(message: str) -> str:
    """A message of our filter language with quoted keys in Bedrock's spelling."""
    return _QUOTED_KEY.sub(lambda quoted: f"'{bedrock_key(quoted.group(1))}'", message)
