"""Declared metadata types and the live index: a newly declared key is added to the mapping, a key the
index types differently (or an index from before filterable metadata) stops with a clear error, and an
undeclared key keeps exact strings whatever a first document held."""

from __future__ import annotations

from typing import Any

import pytest
from retrieval_core.adapters.opensearch.index import IndexMetadataMismatchError, ensure_index, index_name
from retrieval_core.config import Settings
from retrieval_core.models.metadata import FieldType

NUMBER = {"amount": FieldType.NUMBER}


def _ensure(opensearch: Any, alias: str, metadata: dict[str, FieldType]) -> None:
    ensure_index(opensearch, alias, 8, shards=1, replicas=0, refresh_interval="1s", metadata=metadata)


def test_declared_keys_are_added_and_contradictions_refused(
    fresh_settings: Settings, opensearch: Any
) -> None:
    alias = fresh_settings.opensearch_alias
    _ensure(opensearch, alias, NUMBER)
    _ensure(opensearch, alias, NUMBER | {"due": FieldType.DATE})
    fields = opensearch.indices.get_mapping(index=alias)[index_name(alias)]["mappings"]["properties"]
    assert fields["metadata"]["properties"]["due"]["type"] == "date"
    with pytest.raises(
        IndexMetadataMismatchError, match=r"metadata\.amount as double, but it is declared date"
    ):
        _ensure(opensearch, alias, {"amount": FieldType.DATE})


def test_an_undeclared_key_is_an_exact_string_even_when_the_first_value_is_a_number(
    fresh_settings: Settings, opensearch: Any
) -> None:
    alias = fresh_settings.opensearch_alias
    _ensure(opensearch, alias, {})
    for n, value in enumerate((42, "forty-two", True)):
        document = {"id": f"t:{n}", "context_id": "t", "metadata": {"code": value}}
        opensearch.index(index=alias, id=document["id"], body=document, routing="t", refresh=True)
    fields = opensearch.indices.get_mapping(index=alias)[index_name(alias)]["mappings"]["properties"]
    assert fields["metadata"]["properties"]["code"] == {"type": "keyword"}


def test_an_index_from_before_filterable_metadata_must_be_rebuilt(
    fresh_settings: Settings, opensearch: Any
) -> None:
    alias = fresh_settings.opensearch_alias
    legacy = {
        "mappings": {
            "properties": {
                "embedding": {"type": "knn_vector", "dimension": 8},
                "metadata": {"type": "object", "enabled": False},
            }
        },
        "settings": {"index": {"knn": True}},
        "aliases": {alias: {}},
    }
    opensearch.indices.create(index=f"{alias}-v1", body=legacy)
    with pytest.raises(IndexMetadataMismatchError, match="predates filterable metadata"):
        _ensure(opensearch, alias, {})
