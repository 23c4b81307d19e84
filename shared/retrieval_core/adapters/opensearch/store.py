"""``OpenSearchStore``: lexical, k-NN, hybrid (one ``_msearch``), auto's question arms, entity, temporal
and id reads.

Every request addresses the caller's context's alias (``client.IndexLayout``), routes by the context and
filters on it inside the query. A context that has never been written has no index in the silo model:
its reads find nothing, exactly like a context whose items are all missing.

In the pool model every context shares one index and so its term statistics: a raw BM25 score would
let a tenant measure how often other tenants use a word. There a lexical hit carries only its rank, and
its score is the reciprocal of that rank (1, 1/2, 1/3, ...).

How long the node may work on one search is bounded by the call's own timeout, which the request's
deadline already shortened (``backend_calls.timeout``). The client gives up at that timeout; without more, the
node would go on searching for nobody (a flood of expensive queries keeps it busy after every caller
left). So each search body carries a ``timeout`` of ``NODE_SHARE`` of it (the node stops collecting and
answers the hits it has, ``timed_out: true``, while the client still listens) and the request carries
``cancel_after_time_interval`` of all of it (the node cancels the search task once nobody can use it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from ... import backend_calls
from ...backend_calls import CallCounter
from ...models.filters import Filter
from ...models.hits import Candidate, Hit, hit_of
from ...models.metadata import FieldType
from ...models.vocabulary import iso
from ...ports import (
    ENTITY_ARM,
    RESIDUAL_ARM,
    ArmResults,
    Expansion,
    FeedbackHit,
    Focus,
    NamedEntity,
    Neighbourhood,
    NeighbourhoodAsk,
    Residual,
    SearchFilters,
    Stored,
    TimeWindow,
)
from . import queries, question_queries
from .client import IndexLayout, failure_of, opensearch_failures
from .documents import HEADING_FIELD, KINDS, NAME_KEY_SEPARATOR
from .index import VECTOR_FIELD, context_field_types

if TYPE_CHECKING:
    from datetime import datetime

    from opensearchpy import OpenSearch

T = TypeVar("T")

NODE_SHARE = 0.8
MINIMUM_NODE_MILLIS = 10
LEXICAL_ARM = "lexical"
VECTOR_ARM = "vector"


class OpenSearchStore:
    """Implements ``ports.SearchStore``, all ten of its ports: LexicalSearch, VectorSearch,
    HybridSearch, NeighbourhoodSearch, QuestionSearch, EntityIndex, TemporalSearch, ItemReader,
    VectorReader and FeedbackSearch."""

    def __init__(
        self,
        client: OpenSearch,
        layout: IndexLayout,
        *,
        timeout: float,
        ef_search: int = queries.KNN_EF_SEARCH,
        oversample: int = 1,
    ) -> None:
        """``ef_search``: the k-NN beam per query; ``oversample``: how many times the hits asked for a
        k-NN query reads and orders by exact cosine (``Settings.knn_oversample``: int8 vectors)."""
        self._client = client
        self._layout = layout
        self._timeout = timeout
        self._ef_search = ef_search
        self._oversample = oversample
        self._calls = CallCounter()

    @property
    def backend_calls(self) -> int:
        """HTTP requests made to OpenSearch so far (``backend_calls.Metered``)."""
        return self._calls.value

    def lexical(
        self, context_id: str, text: str, filters: SearchFilters, expansion: Expansion = ()
    ) -> list[Candidate]:
        body = queries.lexical_body(context_id, text, filters, filters.size, expansion)
        return self._lexical(self._search(context_id, body))

    def vector(self, context_id: str, vector: Sequence[float], filters: SearchFilters) -> list[Candidate]:
        body = self._knn(context_id, vector, filters, filters.size)
        return _candidates(self._search(context_id, body))

    def hybrid(
        self,
        context_id: str,
        text: str,
        vector: Sequence[float],
        filters: SearchFilters,
        depth: int,
        expansion: Expansion = (),
        *,
        ids_only: bool = False,
    ) -> ArmResults:
        """Both arms in one ``_msearch`` round trip, the alias in the path (where IAM policies see it)."""
        fields = queries.ID_FIELDS if ids_only else queries.SOURCE_FIELDS
        lexical, vector_result = self._msearch(
            context_id,
            queries.lexical_body(context_id, text, filters, depth, expansion, fields=fields),
            self._knn(context_id, vector, filters, depth, fields=fields),
        )
        return self._hybrid_arms(lexical, vector_result)

    def neighbourhood(
        self,
        context_id: str,
        text: str,
        vector: Sequence[float],
        filters: SearchFilters,
        depth: int,
        residual: Residual | None = None,
    ) -> Neighbourhood:
        """Hybrid's arms among the items naming ``filters.entities``, how many name each entity and
        ``residual``'s k-NN arm among the items naming its entities, in the same ``_msearch`` (the
        filter inside every body, k-NN included)."""
        ask = NeighbourhoodAsk(text, tuple(vector), filters, depth, residual)
        return self._neighbourhood(self._msearch(context_id, *self._neighbourhood_bodies(context_id, ask)))

    def _neighbourhood_bodies(self, context_id: str, ask: NeighbourhoodAsk) -> list[dict[str, Any]]:
        bodies = [
            queries.lexical_body(context_id, ask.text, ask.filters, ask.depth),
            self._knn(context_id, ask.vector, ask.filters, ask.depth),
            question_queries.named_by_body(context_id, ask.filters),
        ]
        if ask.residual is not None and ask.residual.entities:
            among = replace(ask.filters, entities=ask.residual.entities)
            bodies.append(self._knn(context_id, ask.residual.vector, among, ask.depth))
        return bodies

    def _neighbourhood(self, results: Sequence[dict[str, Any]]) -> Neighbourhood:
        lexical, vector_result, counts, *second_end = results
        buckets = counts.get("aggregations", {}).get("named_by", {}).get("buckets", [])
        arms = dict(self._hybrid_arms(lexical, vector_result).arms)
        if second_end:
            arms[RESIDUAL_ARM] = _candidates(second_end[0])
        return Neighbourhood(arms, {b["key"]: int(b["doc_count"]) for b in buckets})

    def hybrid_with_names(
        self,
        context_id: str,
        text: str,
        vector: Sequence[float],
        filters: SearchFilters,
        depth: int,
        expansion: Expansion = (),
    ) -> tuple[ArmResults, list[NamedEntity]]:
        """Hybrid's two arms and the entity dictionary lookup, in the same ``_msearch``."""
        lexical, vector_result, names = self._msearch(
            context_id,
            queries.lexical_body(context_id, text, filters, depth, expansion),
            self._knn(context_id, vector, filters, depth),
            question_queries.names_body(context_id, text, filters),
        )
        buckets = names.get("aggregations", {}).get("names", {}).get("buckets", [])
        entries = [NamedEntity(*b["key"].split(NAME_KEY_SEPARATOR)) for b in buckets]
        # The caller's own entities only (the loader refuses others; this is a second line of defence).
        own = [e for e in entries if e.entity_id.startswith(f"{context_id}:")]
        return self._hybrid_arms(lexical, vector_result), own

    def hybrid_and_focused(
        self,
        context_id: str,
        text: str,
        vector: Sequence[float],
        filters: SearchFilters,
        depth: int,
        focus: Focus,
        expansion: Expansion = (),
    ) -> tuple[ArmResults, ArmResults]:
        """Hybrid's two arms and the focus arms, in the same ``_msearch``."""
        bodies = question_queries.focus_bodies(context_id, focus, filters, depth) if not focus.empty else {}
        lexical, vector_result, *focused = self._msearch(
            context_id,
            queries.lexical_body(context_id, text, filters, depth, expansion),
            self._knn(context_id, vector, filters, depth),
            *bodies.values(),
        )
        arms = self._focus_arms(focus, bodies, focused) if bodies else ArmResults()
        return self._hybrid_arms(lexical, vector_result), arms

    def focused(self, context_id: str, focus: Focus, filters: SearchFilters, depth: int) -> ArmResults:
        if focus.empty:
            return ArmResults()
        bodies = question_queries.focus_bodies(context_id, focus, filters, depth)
        return self._focus_arms(focus, bodies, self._msearch(context_id, *bodies.values()))

    def focused_and_neighbourhood(
        self, context_id: str, focus: Focus, filters: SearchFilters, depth: int, ask: NeighbourhoodAsk
    ) -> tuple[ArmResults, Neighbourhood]:
        """The focus arms and a walk's fetch asked ahead of the walk, in one ``_msearch``."""
        bodies = question_queries.focus_bodies(context_id, focus, filters, depth) if not focus.empty else {}
        walk = self._neighbourhood_bodies(context_id, ask)
        results = self._msearch(context_id, *bodies.values(), *walk)
        arms = self._focus_arms(focus, bodies, results[: len(bodies)]) if bodies else ArmResults()
        return arms, self._neighbourhood(results[len(bodies) :])

    def _focus_arms(
        self, focus: Focus, bodies: dict[str, dict[str, Any]], results: Sequence[dict[str, Any]]
    ) -> ArmResults:
        rank_only = not self._layout.siloed
        answers = dict(zip(bodies, results, strict=True))
        counted = answers.get(ENTITY_ARM, {}).get("aggregations", {}).get(question_queries.PRESENT)
        present = None if counted is None else frozenset(b["key"] for b in counted.get("buckets", []))
        return ArmResults(
            arms={
                arm: candidates_of(
                    question_queries.members(_hits(result), focus.entity_ids if arm == ENTITY_ARM else ()),
                    rank_only=rank_only,
                )
                for arm, result in answers.items()
            },
            present=present,
        )

    def _hybrid_arms(self, lexical: dict[str, Any], vector: dict[str, Any]) -> ArmResults:
        return ArmResults(arms={LEXICAL_ARM: self._lexical(lexical), VECTOR_ARM: _candidates(vector)})

    def by_entity(self, context_id: str, entity_id: str, filters: SearchFilters) -> list[Hit]:
        response = self._search(context_id, queries.entity_body(context_id, entity_id, filters))
        return [hit_of(h["_source"], score=_confidence_score(h["_source"])) for h in _hits(response)]

    def in_window(self, context_id: str, window: TimeWindow, filters: SearchFilters) -> list[Hit]:
        response = self._search(context_id, queries.window_body(context_id, window, filters))
        return [hit_of(h["_source"], score=_confidence_score(h["_source"])) for h in _hits(response)]

    def get_items(
        self, context_id: str, ids: Iterable[str], *, where: Filter | None = None
    ) -> dict[str, Hit]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        response = self._search(context_id, queries.ids_body(context_id, wanted, where))
        return {
            h["_source"]["id"]: hit_of(h["_source"], score=_confidence_score(h["_source"]))
            for h in _hits(response)
        }

    def vectors(self, context_id: str, ids: Sequence[str]) -> dict[str, Stored]:
        """The texts and stored embeddings of the caller's items among ``ids`` (feedback and MMR read a
        few top hits' vectors: the search responses leave them out)."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        response = self._search(context_id, queries.vectors_body(context_id, wanted))
        return {
            h["_source"]["id"]: Stored(
                h["_source"]["text"],
                [float(v) for v in h["_source"][VECTOR_FIELD]],
                h["_source"].get(HEADING_FIELD, ""),
            )
            for h in _hits(response)
            if h["_source"].get(VECTOR_FIELD)
        }

    def chunks_naming(
        self, context_id: str, pages: Sequence[tuple[Sequence[str], NamedEntity]], limit: int
    ) -> list[list[dict[str, Any]]]:
        """``ports.NamingChunks``: what each page's title links back to once the pages are indexed, one
        ``_msearch`` for a batch of pages (a search per page was a round trip per file)."""
        asked = [n for n, (names, _) in enumerate(pages) if names] if limit >= 1 else []
        bodies = [
            queries.naming_body(
                context_id,
                pages[n][0],
                NAME_KEY_SEPARATOR.join((pages[n][1].entity_id, pages[n][1].name, pages[n][1].type)),
                limit,
            )
            for n in asked
        ]
        found: list[list[dict[str, Any]]] = [[] for _ in pages]
        for n, response in zip(asked, self._msearch(context_id, *bodies) if bodies else [], strict=True):
            found[n] = [h["_source"] for h in _hits(response)]
        return found

    def chunks_mentioning(self, context_id: str, entity: NamedEntity, limit: int) -> list[dict[str, Any]]:
        """``ports.NamingChunks``: the chunks mentioning a page that never came (one search)."""
        key = NAME_KEY_SEPARATOR.join((entity.entity_id, entity.name, entity.type))
        return [
            h["_source"]
            for h in _hits(self._search(context_id, queries.mentioning_body(context_id, key, limit)))
        ]

    def entity_names(self, context_id: str) -> list[NamedEntity]:
        """The context's entity dictionary (``documents.entities.EntityDictionary``): every entry its
        items' mentions give, in pages of ``question_queries.DICTIONARY_PAGE`` (no cap)."""
        return [entry for page in self._dictionary(context_id, None) for entry in page]

    def entity_names_within(self, context_id: str, most: int) -> list[NamedEntity] | None:
        """``understanding.alias_index.BoundedDictionary``: the context's dictionary if it holds at most
        ``most`` entries, else None (read no further than the page that passes ``most``)."""
        entries: list[NamedEntity] = []
        for page in self._dictionary(context_id, None):
            entries += page
            if len(entries) > most:
                return None
        return entries

    def entity_names_since(self, context_id: str, since: datetime) -> list[NamedEntity]:
        """``documents.name_dictionary.RecentNames``: the entries of the items created since ``since``."""
        return [entry for page in self._dictionary(context_id, iso(since)) for entry in page]

    def _dictionary(self, context_id: str, since: str | None) -> Iterator[list[NamedEntity]]:
        """The dictionary's pages, one round trip each, read as they are asked for."""
        after: dict[str, Any] | None = None
        while True:
            body = question_queries.dictionary_body(context_id, after=after, since=since)
            names = self._search(context_id, body).get("aggregations", {}).get("names", {})
            buckets = names.get("buckets", [])
            yield [NamedEntity(*b["key"]["key"].split(NAME_KEY_SEPARATOR)) for b in buckets]
            after = names.get("after_key")
            if after is None or len(buckets) < question_queries.DICTIONARY_PAGE:
                return

    def lexical_feedback(self, context_id: str, text: str, filters: SearchFilters) -> list[FeedbackHit]:
        body = queries.lexical_body(context_id, text, filters, filters.size, fields=queries.FEEDBACK_FIELDS)
        return _feedback(self._search(context_id, body), rank_only=not self._layout.siloed)

    def vector_feedback(
        self, context_id: str, vector: Sequence[float], filters: SearchFilters
    ) -> list[FeedbackHit]:
        body = self._knn(context_id, vector, filters, filters.size, fields=queries.FEEDBACK_FIELDS)
        return _feedback(self._search(context_id, body))

    def _knn(
        self,
        context_id: str,
        vector: Sequence[float],
        filters: SearchFilters,
        size: int,
        *,
        fields: dict[str, Any] = queries.SOURCE_FIELDS,
    ) -> dict[str, Any]:
        return queries.knn_body(
            context_id,
            vector,
            filters,
            size,
            fields=fields,
            ef_search=self._ef_search,
            oversample=self._oversample,
        )

    def _msearch(self, context_id: str, *bodies: dict[str, Any]) -> list[dict[str, Any]]:
        """Several searches in one ``_msearch`` round trip, the alias in the path (where IAM policies see
        it); one failed search fails them all."""
        alias = self._layout.alias(context_id)
        header = {"routing": context_id, "ignore_unavailable": True}

        def payload(timeout: float) -> str:
            lines = (line for body in bodies for line in (header, bounded(body, timeout)))
            return "".join(json.dumps(line) + "\n" for line in lines)

        response = self._call(
            lambda timeout: self._client.msearch(
                index=alias,
                body=payload(timeout),
                request_timeout=timeout,
                params={"cancel_after_time_interval": cancel_after(timeout)},
            )
        )
        results: list[dict[str, Any]] = response["responses"]
        for result in results:
            if "error" in result:
                raise failure_of(result.get("status"), "msearch")
        return results

    def field_types(self, context_id: str) -> dict[str, FieldType]:
        """``ports.ContextFieldTypes``: the context's typed metadata keys, within the request's deadline."""
        return self._call(
            lambda timeout: context_field_types(self._client, self._layout, context_id, timeout)
        )

    def _search(self, context_id: str, body: dict[str, Any]) -> dict[str, Any]:
        alias = self._layout.alias(context_id)
        return self._call(
            lambda timeout: self._client.search(
                index=alias,
                body=bounded(body, timeout),
                routing=context_id,
                ignore_unavailable=True,
                request_timeout=timeout,
                cancel_after_time_interval=cancel_after(timeout),
            )
        )

    def _lexical(self, response: dict[str, Any]) -> list[Candidate]:
        """Raw BM25 scores in a silo (its statistics are its own); reciprocal ranks in the pool."""
        return _candidates(response, rank_only=not self._layout.siloed)

    def _call(self, request: Callable[[float], T]) -> T:
        """``request(timeout)``, with the configured timeout cut to the request's deadline."""
        timeout = backend_calls.timeout(self._timeout)
        self._calls.add()
        with opensearch_failures():
            return request(timeout)


def candidates_of(hits: list[dict[str, Any]], *, rank_only: bool) -> list[Candidate]:
    """Fusion candidates from an arm's index hits, best first, each with the item it stores (whose ``Hit``
    is made only if it is returned). ``rank_only``: scored by rank (a pooled index's scores mix
    contexts' statistics)."""
    return [
        Candidate(
            h["_source"]["id"],
            KINDS[h["_source"]["kind"]],
            arm_score(h, rank, rank_only),
            h["_source"],
        )
        for rank, h in enumerate(hits, start=1)
    ]


def arm_score(hit: dict[str, Any], rank: int, rank_only: bool) -> float:
    return 1.0 / rank if rank_only else float(hit["_score"])


def _candidates(response: dict[str, Any], *, rank_only: bool = False) -> list[Candidate]:
    return candidates_of(_hits(response), rank_only=rank_only)


def _feedback(response: dict[str, Any], *, rank_only: bool = False) -> list[FeedbackHit]:
    """First-pass hits with their texts and vectors (an item stored without a vector moves nothing)."""
    return [
        FeedbackHit(
            h["_source"]["id"],
            arm_score(h, rank, rank_only),
            h["_source"].get("text") or "",
            [float(v) for v in h["_source"].get(VECTOR_FIELD) or ()],
        )
        for rank, h in enumerate(_hits(response), start=1)
    ]


def _hits(response: dict[str, Any]) -> list[dict[str, Any]]:
    hits: list[dict[str, Any]] = response.get("hits", {}).get("hits", [])
    return hits


def _confidence_score(source: dict[str, Any]) -> float:
    confidence = source.get("confidence")
    return 1.0 if confidence is None else float(confidence)


def node_millis(timeout: float) -> int:
    return max(MINIMUM_NODE_MILLIS, int(timeout * NODE_SHARE * 1000))


def bounded(body: dict[str, Any], timeout: float) -> dict[str, Any]:
    """``body`` with the node's time limit for a call of ``timeout`` seconds."""
    return {**body, "timeout": f"{node_millis(timeout)}ms"}


def cancel_after(timeout: float) -> str:
    """The ``cancel_after_time_interval`` of a call of ``timeout`` seconds."""
    return f"{max(MINIMUM_NODE_MILLIS, int(timeout * 1000))}ms"
