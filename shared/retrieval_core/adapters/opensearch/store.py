"""``OpenSearchStore``: lexical, k-NN, hybrid (one ``_msearch``), entity, temporal and id reads.

Every request routes by the caller's context and filters on it inside the query.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ... import deadline
from ...errors import BackendUnavailableError
from ...metering import CallCounter
from ...models.hits import Hit
from ...ports import ArmResults, SearchFilters, TimeWindow
from . import queries
from .client import backend_failures
from .documents import hit_of

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

T = TypeVar("T")

LEXICAL_ARM = "lexical"
VECTOR_ARM = "vector"


class OpenSearchStore:
    """Implements LexicalSearch, VectorSearch, HybridSearch, EntityIndex, TemporalSearch and ItemReader."""

    def __init__(self, client: OpenSearch, alias: str, *, timeout: float) -> None:
        self._client = client
        self._alias = alias
        self._timeout = timeout
        self._calls = CallCounter()

    @property
    def backend_calls(self) -> int:
        """HTTP requests made to OpenSearch so far (``metering.Metered``)."""
        return self._calls.value

    def lexical(self, context_id: str, text: str, filters: SearchFilters) -> list[Hit]:
        body = queries.lexical_body(context_id, text, filters, filters.size)
        return self._ranked(self._search(context_id, body), LEXICAL_ARM)

    def vector(self, context_id: str, vector: Sequence[float], filters: SearchFilters) -> list[Hit]:
        body = queries.knn_body(context_id, vector, filters, filters.size)
        return self._ranked(self._search(context_id, body), VECTOR_ARM)

    def hybrid(
        self, context_id: str, text: str, vector: Sequence[float], filters: SearchFilters, depth: int
    ) -> ArmResults:
        """Both arms in one ``_msearch`` round trip."""
        header = {"index": self._alias, "routing": context_id}
        bodies = [
            header,
            queries.lexical_body(context_id, text, filters, depth),
            header,
            queries.knn_body(context_id, vector, filters, depth),
        ]
        payload = "".join(json.dumps(line) + "\n" for line in bodies)
        response = self._call(lambda timeout: self._client.msearch(body=payload, request_timeout=timeout))
        arms: dict[str, list[Hit]] = {}
        for arm, result in zip((LEXICAL_ARM, VECTOR_ARM), response["responses"], strict=True):
            if "error" in result:
                raise BackendUnavailableError()
            arms[arm] = self._ranked(result, arm)
        return ArmResults(arms=arms)

    def by_entity(self, context_id: str, entity_id: str, filters: SearchFilters) -> list[Hit]:
        response = self._search(context_id, queries.entity_body(context_id, entity_id, filters))
        return [hit_of(h["_source"], score=_confidence_score(h["_source"])) for h in _hits(response)]

    def in_window(self, context_id: str, window: TimeWindow, filters: SearchFilters) -> list[Hit]:
        response = self._search(context_id, queries.window_body(context_id, window, filters))
        return [hit_of(h["_source"], score=_confidence_score(h["_source"])) for h in _hits(response)]

    def get_items(self, context_id: str, ids: Iterable[str]) -> dict[str, Hit]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        response = self._search(context_id, queries.ids_body(context_id, wanted))
        return {
            h["_source"]["id"]: hit_of(h["_source"], score=_confidence_score(h["_source"]))
            for h in _hits(response)
        }

    def _search(self, context_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._call(
            lambda timeout: self._client.search(
                index=self._alias, body=body, routing=context_id, request_timeout=timeout
            )
        )

    @staticmethod
    def _ranked(response: dict[str, Any], arm: str) -> list[Hit]:
        return [
            hit_of(h["_source"], score=float(h["_score"]), arm=arm, rank=rank)
            for rank, h in enumerate(_hits(response), start=1)
        ]

    def _call(self, request: Callable[[float], T]) -> T:
        """``request(timeout)``, with the configured timeout cut to the request's deadline."""
        timeout = deadline.timeout(self._timeout)
        self._calls.add()
        with backend_failures():
            return request(timeout)


def _hits(response: dict[str, Any]) -> list[dict[str, Any]]:
    hits: list[dict[str, Any]] = response.get("hits", {}).get("hits", [])
    return hits


def _confidence_score(source: dict[str, Any]) -> float:
    confidence = source.get("confidence")
    return 1.0 if confidence is None else float(confidence)
