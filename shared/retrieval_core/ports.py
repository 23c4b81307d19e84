"""Ports: the small interfaces domain code depends on. Adapters implement them; the composition root
(``bootstrap``) says which of them a deployment has by filling a typed ``Capabilities`` set, and mypy
checks every adapter and test fake against the protocol it is assigned to.

Every method takes the caller's ``context_id`` first. An adapter must apply it inside the backend query
(filter and routing), never afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from .models.cursors import FrozenRanking
from .models.hits import Candidate, Edge, Hit, LineageCard, LineageLinks
from .models.vocabulary import Kind, Status

if TYPE_CHECKING:
    from .models.filters import Filter


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Filters every search applies inside the backend query, in every mode."""

    kinds: tuple[Kind, ...] = ()
    statuses: tuple[Status, ...] = (Status.ACTIVE,)
    size: int = 10
    where: Filter | None = None
    """The caller's filter, resolved against the metadata schema; applied inside the query too."""


@dataclass(frozen=True, slots=True)
class TimeWindow:
    start: datetime
    end: datetime


@dataclass(frozen=True, slots=True)
class ArmResults:
    """The ranked candidates of each arm of one multi-arm search, keyed by arm name."""

    arms: Mapping[str, Sequence[Candidate]] = field(default_factory=dict)


Expansion = Sequence[tuple[str, float]]
"""Extra query terms for the lexical arm, each with its boost (the original text has boost 1)."""


class LexicalSearch(Protocol):
    def lexical(
        self, context_id: str, text: str, filters: SearchFilters, expansion: Expansion = ()
    ) -> list[Hit]:
        """BM25 search over item text (and the expansion terms, when given)."""
        ...


class VectorSearch(Protocol):
    def vector(self, context_id: str, vector: Sequence[float], filters: SearchFilters) -> list[Hit]:
        """Approximate k-NN search with the filters applied inside the k-NN clause."""
        ...


class HybridSearch(Protocol):
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
        """Lexical and k-NN arms in one round trip; ``depth`` candidates per arm. ``ids_only``: a first
        pass whose candidates are fused but never built into hits (their sources are left out)."""
        ...


class EntityIndex(Protocol):
    def by_entity(self, context_id: str, entity_id: str, filters: SearchFilters) -> list[Hit]:
        """Items that mention ``entity_id``."""
        ...


class TemporalSearch(Protocol):
    def in_window(self, context_id: str, window: TimeWindow, filters: SearchFilters) -> list[Hit]:
        """Items created in the window, or whose validity window overlaps it."""
        ...


class ItemReader(Protocol):
    def get_items(
        self, context_id: str, ids: Iterable[str], *, where: Filter | None = None
    ) -> dict[str, Hit]:
        """The caller's items among ``ids`` (that match ``where``) in one round trip; foreign and missing
        ids are simply absent."""
        ...


class GraphTraversal(Protocol):
    def neighbours(
        self, context_id: str, entity_ids: Sequence[str], statuses: Sequence[Status]
    ) -> dict[str, list[Edge]]:
        """Outgoing edges of every entity in one frontier, fetched concurrently; one round per call."""
        ...


class LineageReader(Protocol):
    def item_with_links(self, context_id: str, item_id: str) -> tuple[LineageCard, LineageLinks] | None:
        """One item's card and reverse links, in one Query."""
        ...

    def cards(self, context_id: str, ids: Sequence[str]) -> dict[str, LineageCard]:
        """Cards of many items in one batched round trip."""
        ...


class Embedder(Protocol):
    @property
    def dimension(self) -> int: ...

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Unit-length embeddings, one per text, in order."""
        ...


class Reranker(Protocol):
    """Scores how relevant each text is to a query (a cross-encoder or a hosted rerank model)."""

    @property
    def name(self) -> str: ...

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance score per text, in input order (higher is more relevant). Raises
        ``BackendUnavailableError`` (or a subclass) when the model cannot answer."""
        ...


@dataclass(frozen=True, slots=True)
class Stored:
    """An item's text and stored embedding (what feedback and MMR read of a few top hits)."""

    text: str
    vector: list[float]


class VectorReader(Protocol):
    def vectors(self, context_id: str, ids: Sequence[str]) -> dict[str, Stored]:
        """The texts and stored embeddings of the caller's items among ``ids``, in one round trip;
        foreign and missing ids are simply absent."""
        ...


@dataclass(frozen=True, slots=True)
class FeedbackHit:
    """A first-pass hit as pseudo-relevance feedback reads it: its score, text and stored embedding."""

    id: str
    score: float
    text: str
    vector: list[float]


class FeedbackSearch(Protocol):
    """Feedback first passes: an arm's top hits with their texts and stored vectors in the same round
    trip (no separate read), under the same context and filters as the real search."""

    def lexical_feedback(self, context_id: str, text: str, filters: SearchFilters) -> list[FeedbackHit]:
        """BM25's top ``filters.size`` hits (scored as ``lexical`` scores them)."""
        ...

    def vector_feedback(
        self, context_id: str, vector: Sequence[float], filters: SearchFilters
    ) -> list[FeedbackHit]:
        """k-NN's top ``filters.size`` hits."""
        ...


class CursorStore(Protocol):
    """Frozen rankings of paged requests, each under its context and a random cursor id, until expiry."""

    def load(self, context_id: str, cursor_id: str, now: int) -> FrozenRanking | None:
        """The ranking, or None when it is unknown or expired (``now`` and expiries in epoch seconds)."""
        ...

    def save(self, context_id: str, cursor_id: str, ranking: FrozenRanking, *, expires_at: int) -> bool:
        """Store ``ranking`` if the stored one is older (version below ``ranking.version``) or absent;
        False when a concurrent writer got there first."""
        ...


class SearchStore(
    LexicalSearch,
    VectorSearch,
    HybridSearch,
    EntityIndex,
    TemporalSearch,
    ItemReader,
    VectorReader,
    FeedbackSearch,
    Protocol,
):
    """A store that serves every search mode and item reads (OpenSearch does)."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What this deployment's backends can do, built once at the composition root.

    ``None`` means the capability is absent: the router answers a mode that needs it with a typed-empty
    result (``supported: false``), never with a scan.
    """

    lexical: LexicalSearch | None = None
    vector: VectorSearch | None = None
    hybrid: HybridSearch | None = None
    entity: EntityIndex | None = None
    temporal: TemporalSearch | None = None
    items: ItemReader | None = None
    graph: GraphTraversal | None = None
    embedder: Embedder | None = None
    vectors: VectorReader | None = None
    reranker: Reranker | None = None
    """A hosted or local relevance model for the ``model`` rerank method; None: such requests say so."""
    feedback: FeedbackSearch | None = None
    """First passes that bring their hits' texts and vectors along. None: vector feedback is skipped
    and hybrid feedback fuses a first pass, then reads its top hits."""

    @classmethod
    def of_search_store(
        cls,
        store: SearchStore,
        *,
        graph: GraphTraversal | None,
        embedder: Embedder | None,
        reranker: Reranker | None = None,
    ) -> Capabilities:
        return cls(
            lexical=store,
            vector=store,
            hybrid=store,
            entity=store,
            temporal=store,
            items=store,
            graph=graph,
            embedder=embedder,
            vectors=store,
            reranker=reranker,
            feedback=store,
        )
