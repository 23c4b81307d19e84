"""Declared metadata types and the live index: a newly declared key is added to the mapping, a key the
index types differently (or an index from before filterable metadata) stops with a clear error, and an
undeclared key keeps exact strings whatever a first document held."""

from __future__ import annotations

from typing import Any

import pytest
from retrieval_core.adapters.errors import IndexMetadataMismatchError
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.adapters.opensearch.index import ContextIndices, IndexSpec
from retrieval_core.config import Settings
from retrieval_core.models.metadata import FieldType

NUMBER = {"amount": FieldType.NUMBER}
CTX = "t"


def _ensure(opensearch: Any, settings: Settings, metadata: dict[str, FieldType]) -> str:
    """The context's alias, its index created (or checked) as a load's first write does."""
    indices = ContextIndices(opensearch, IndexLayout.of(settings), IndexSpec(8, metadata=metadata))
    return indices.ensure(CTX)


def _fields(opensearch: Any, settings: Settings) -> Any:
    index = IndexLayout.of(settings).index(CTX)
    return opensearch.indices.get_mapping(index=index)[index]["mappings"]["properties"]


def test_declared_keys_are_added_and_contradictions_refused(
    fresh_settings: Settings, opensearch: Any
) -> None:
    _ensure(opensearch, fresh_settings, NUMBER)
    _ensure(opensearch, fresh_settings, NUMBER | {"due": FieldType.DATE})
    fields = _fields(opensearch, fresh_settings)
    assert fields["metadata"]["properties"]["due"]["type"] == "date"
    with pytest.raises(
        IndexMetadataMismatchError, match=r"metadata\.amount as double, but it is declared date"
    ):
        _ensure(opensearch, fresh_settings, {"amount": FieldType.DATE})


def test_an_undeclared_key_is_an_exact_string_even_when_the_first_value_is_a_number(
    fresh_settings: Settings, opensearch: Any
) -> None:
    alias = _ensure(opensearch, fresh_settings, {})
    for n, value in enumerate((42, "forty-two", True)):
        document = {"id": f"t:{n}", "context_id": "t", "metadata": {"code": value}}
        opensearch.index(index=alias, id=document["id"], body=document, routing="t", refresh=True)
    fields = _fields(opensearch, fresh_settings)
    assert fields["metadata"]["properties"]["code"] == {"type": "keyword"}


def test_an_index_from_before_filterable_metadata_must_be_rebuilt(
    fresh_settings: Settings, opensearch: Any
) -> None:
    alias = IndexLayout.of(fresh_settings).alias(CTX)
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
        _ensure(opensearch, fresh_settings, {})
