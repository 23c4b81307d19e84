"""The DynamoDB rows one item owns, and the manifest that lets a reload remove stale ones.

An item owns: its lineage card; if it is a proposition, one edge row per ordered pair of distinct
mentioned entities (a chunk of a file too, over the names it mentions: ``documents.chunk_items``);
and a reverse-link row on the partition of every item it points at
(derived-from, supersedes, contradicts). The card lists the addresses of the other rows (its
manifest), so reloading a changed item deletes exactly the rows it no longer owns.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import permutations
from json.encoder import encode_basestring_ascii
from typing import Any

from ..documents.chunk_items import co_mentioned
from ..models.item import Item
from ..models.vocabulary import Kind, iso
from . import dynamodb_keys as keys
from .row_ref import RowRef

MANIFEST_ATTRIBUTE = "manifest"
"""On a card: the addresses of the item's other rows, stored as one binary value (``stored_manifest``):
zlib over the addresses one a line. A list of strings (how cards were first written, and still read)
costs an attribute value per row: a chunk naming eight names lists 56 edge rows, about 8 KB of its card's
9, and every reload reads the card whole (DynamoDB bills reads by the 4 KB; moto's server spent most of a
sync's time serializing these values); compressed, the manifest is a tenth of that."""
_EDGES, _LINEAGE = "E", "L"


@dataclass(frozen=True, slots=True)
class TableNames:
    edges: str
    lineage: str


@dataclass(frozen=True, slots=True)
class ItemRows:
    card: tuple[RowRef, dict[str, Any]]
    owned: list[tuple[RowRef, dict[str, Any]]]
    addresses: list[str]
    """``owned``'s addresses (``encode_ref``), in its order: encoded once, for the manifest and for
    what a reload leaves out."""

    def manifest(self) -> list[str]:
        return sorted(self.addresses)

    def refs(self) -> list[RowRef]:
        """Every row's address, the card last (it lists the others)."""
        return [ref for ref, _ in self.owned] + [self.card[0]]


def rows_of(item: Item, tables: TableNames) -> ItemRows:
    ctx = item.context_id
    owned: list[tuple[RowRef, dict[str, Any]]] = []
    paired = item.entity_ids if item.kind is Kind.PROPOSITION else co_mentioned(item)
    # What every edge row of the item copies, made once (a chunk naming eight names has 56 edge rows).
    # Its start and its item are read from its key (``dynamodb_keys``): not stored twice.
    status, confidence, created_at = str(item.status), _decimal(item.confidence), iso(item.created_at)
    for a, b in permutations(paired, 2):
        owned.append(
            (
                RowRef(tables.edges, keys.partition(ctx, a), keys.edge_sort_key(b, item.id)),
                {
                    "context_id": ctx,
                    "to": b,
                    "status": status,
                    "confidence": confidence,
                    "created_at": created_at,
                },
            )
        )
    for link, targets in (
        (keys.DERIVED_TO, item.source_ids),
        (keys.SUPERSEDED_BY, item.supersedes),
        (keys.CONTRADICTED_BY, item.contradicts),
    ):
        for target in dict.fromkeys(targets):
            ref = RowRef(tables.lineage, keys.partition(ctx, target), keys.reverse_link(link, item.id))
            owned.append((ref, {"context_id": ctx, "other_id": item.id}))
    card_attrs = {
        "context_id": ctx,
        "id": item.id,
        "kind": str(item.kind),
        "status": status,
        "confidence": confidence,
        "created_at": created_at,
        "source_ids": item.source_ids,
        # The passage text stays in the search document: the card names the span, not its words.
        "grounding": [g.model_dump(exclude_none=True, exclude={"text"}) for g in item.grounding],
        "supersedes": item.supersedes,
        "contradicts": item.contradicts,
    }
    card = (RowRef(tables.lineage, keys.partition(ctx, item.id), keys.ITEM_CARD), card_attrs)
    return ItemRows(card=card, owned=owned, addresses=[encode_ref(ref, tables) for ref, _ in owned])


def stored_manifest(addresses: Iterable[str]) -> bytes:
    """A manifest as the card stores it (one binary value; an address holds no line break: it is JSON)."""
    return zlib.compress("\n".join(sorted(addresses)).encode(), 6)


def manifest_addresses(value: Any) -> set[str]:
    """The addresses a card's manifest lists, however it was stored and read: a stored attribute value
    (``{"B": ...}`` now, ``{"L": [{"S": ...}]}`` before) or a deserialized one (bytes or boto3's
    ``Binary``, a list of strings); absent, none."""
    if isinstance(value, dict):
        value = value.get("B", [element["S"] for element in value.get("L", [])])
    if value is None or isinstance(value, list):
        return set(value or [])
    text = zlib.decompress(bytes(value)).decode()
    return set(text.split("\n")) if text else set()


def encode_ref(ref: RowRef, tables: TableNames) -> str:
    """A table-name-independent address, so a renamed table keeps its manifests meaningful: the JSON
    array ``json.dumps`` writes (stored manifests hold it), spelled here without building an encoder
    per row (two of a sync's rows in three are edge rows, each addressed on every write)."""
    table = _EDGES if ref.table == tables.edges else _LINEAGE
    sk = "null" if ref.sk is None else encode_basestring_ascii(ref.sk)
    return f'["{table}", {encode_basestring_ascii(ref.pk)}, {sk}]'


def decode_ref(encoded: str, tables: TableNames) -> RowRef:
    table, pk, sk = json.loads(encoded)
    return RowRef(tables.edges if table == _EDGES else tables.lineage, pk, sk)


def _decimal(value: float | None) -> Any:
    from decimal import Decimal

    return None if value is None else Decimal(str(value))
