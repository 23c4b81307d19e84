"""DynamoDB key design. Every partition key begins with the context, so no key can address another
context's rows. ``template.yaml`` declares the tables; the dev stack reads the schemas from there.

Edges table (``pk``, ``sk``):
    pk = "{ctx}#{entity_id}"                 sk = "{neighbour_entity_id}#{proposition_id}"
    One Query on pk returns every neighbour of one entity in one context. A row stores ``context_id``,
    ``to`` (the neighbour: an entity id may hold "#", so the sort key alone does not split), ``status``,
    ``confidence`` and ``created_at``; its start and its proposition are read from its key
    (``edge_proposition``). Rows written before the seventh session also store ``from`` and
    ``proposition_id``, which equal what the key says: readers ignore them.

Lineage table (``pk``, ``sk``), all rows about one item share its partition:
    sk = "ITEM"                          the item's lineage card: kind, status, confidence, created_at,
                                         source_ids, grounding, supersedes, contradicts, and the
                                         manifest of rows the loader wrote for it (to remove stale ones)
    sk = "DERIVED_TO#{child_id}"        reverse derived-from link (written by the child)
    sk = "SUPERSEDED_BY#{newer_id}"     reverse supersedes link (written by the newer item)
    sk = "CONTRADICTED_BY#{other_id}"   reverse contradicts link
    One Query on an item's pk returns its card and every reverse link; one BatchGetItem of ITEM rows
    reads a whole level of ancestors.

Sessions table (``pk``, ``sk``): pk = "{ctx}#{session_id}" (or "{ctx}#@{principal digest}#{session_id}"),
    sk = "Q#{query key}" (claims) or "L#{sequence}" (the log); TTL attribute ``expires_at``. See
    ``adapters/dynamodb_sessions.py``.
"""

from __future__ import annotations

KEY_SEPARATOR = "#"
ITEM_CARD = "ITEM"
DERIVED_TO = "DERIVED_TO"
SUPERSEDED_BY = "SUPERSEDED_BY"
CONTRADICTED_BY = "CONTRADICTED_BY"
TTL_ATTRIBUTE = "expires_at"


def partition(context_id: str, local_id: str) -> str:
    """The partition key of ``local_id`` (an entity, item or session id) inside ``context_id``."""
    return f"{context_id}{KEY_SEPARATOR}{local_id}"


def edge_sort_key(neighbour_id: str, proposition_id: str) -> str:
    return f"{neighbour_id}{KEY_SEPARATOR}{proposition_id}"


def edge_proposition(sort_key: str, neighbour_id: str) -> str | None:
    """The proposition of an edge row whose sort key is ``sort_key`` and whose ``to`` is
    ``neighbour_id`` (``edge_sort_key``'s inverse); None when the two do not agree (a malformed row)."""
    prefix = f"{neighbour_id}{KEY_SEPARATOR}"
    if not sort_key.startswith(prefix) or len(sort_key) == len(prefix):
        return None
    return sort_key[len(prefix) :]


def reverse_link(link: str, other_id: str) -> str:
    return f"{link}{KEY_SEPARATOR}{other_id}"


def split_reverse_link(sort_key: str) -> tuple[str, str]:
    """``"DERIVED_TO#acme:p-1"`` -> ``("DERIVED_TO", "acme:p-1")``."""
    link, _, other = sort_key.partition(KEY_SEPARATOR)
    return link, other
