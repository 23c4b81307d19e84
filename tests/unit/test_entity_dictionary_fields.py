"""The entity dictionary's fields on each item document: written with the item, derived on a copy."""

from __future__ import annotations

from retrieval_core.adapters.opensearch.documents import NAME_KEY_SEPARATOR, document_of, with_names
from retrieval_core.adapters.opensearch.index import NAME_PROPERTIES, index_body
from retrieval_core.models.item import Item

ITEM = Item.model_validate(
    {
        "id": "acme:p-1",
        "context_id": "acme",
        "kind": "proposition",
        "text": "Alice Chen leads Payments with Alice Chen's team",
        "created_at": "2026-03-01T00:00:00Z",
        "mentions": [
            {
                "entity_id": "acme:person/alice-chen",
                "name": "Alice Chen",
                "type": "Person",
                "role": "SUBJECT",
            },
            {"entity_id": "acme:team/payments", "name": "Payments", "type": "Team"},
            {"entity_id": "acme:person/alice-chen", "name": "Alice Chen", "type": "Person", "role": "OBJECT"},
        ],
    }
)


def test_a_document_carries_each_name_once_and_each_entry_whole() -> None:
    document = document_of(ITEM, [])
    assert document["entity_names"] == ["Alice Chen", "Payments"]
    assert document["entity_name_keys"] == [
        NAME_KEY_SEPARATOR.join(("acme:person/alice-chen", "Alice Chen", "Person")),
        NAME_KEY_SEPARATOR.join(("acme:team/payments", "Payments", "Team")),
    ]


def test_a_copied_document_without_the_fields_gains_them_from_its_mentions() -> None:
    document = document_of(ITEM, [])
    older = {k: v for k, v in document.items() if k not in NAME_PROPERTIES}
    assert with_names(older) == document
    assert with_names(document) is document


def test_the_mapping_declares_the_fields_with_a_built_in_analyzer() -> None:
    properties = index_body(2, shards=1, replicas=0, refresh_interval="1s")["mappings"]["properties"]
    assert properties["entity_names"] == {"type": "text", "analyzer": "standard"}
    assert properties["entity_name_keys"] == {"type": "keyword"}
