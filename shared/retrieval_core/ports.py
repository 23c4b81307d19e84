"""Ports: the small interfaces domain code depends on. Adapters implement them; the composition root
(``bootstrap``) says which of them a deployment has by filling a typed ``Capabilities`` set, and mypy
checks every adapter and test fake against the protocol it is assigned to (tests/unit/port_conformance.py).

The read side takes the caller's ``context_id`` first: an adapter must apply it inside the backend query
(filter and routing), never afterwards. The write side (``ItemWriter``, ``LineageWriter``,
``MetadataKeyLedger``, used by the loader) names each item's context in the item or its ``ItemKey``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .models.cursors import FrozenRanking
from .models.hits import Candidate, Edge, Hit
from .models.vocabulary import Kind, Status

if TYPE_CHECKING:
    from .models.filters import Filter
    from .models.item import Item  # the loadable model: the read path never imports it
    from .models.lineage import LineageCard, LineageLinks  # only why_explain builds them
    from .models.metadata import FieldType


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Filters every search applies inside the backend query, in every mode."""

    kinds: tuple[Kind, ...] = ()
    statuses: tuple[Status, ...] = (Status.ACTIVE,)
    size: int = 10
    where: Filter | None = None
    """The caller's filter, resolved against the metadata schema; applied inside the query too."""
    entities: tuple[str, ...] = ()
    """Only items that mention (or are about) one of these entities: a multi-hop stage's linked pages."""


@dataclass(frozen=True, slots=True)
class TimeWindow:
    start: datetime
    end: datetime


@dataclass(frozen=True, slots=True)
class ArmResults:
    """The ranked candidates of each arm of one multi-arm search, keyed by arm name."""

    arms: Mapping[str, Sequence[Candidate]] = field(default_factory=dict)
    present: frozenset[str] | None = None
    """Of a focus search's entities, those at least one of the caller's items (under its filters)
    mentions; None: not counted."""


@dataclass(frozen=True, slots=True)
class NamedEntity:
    """One entry of a context's entity dictionary: a name its items give an entity (from their mentions)."""

    entity_id: str
    name: str
    type: str


FOCUS_ARMS = ENTITY_ARM, EDGES_ARM, ANSWER_ARM, WINDOW_ARM, VALID_NOW_ARM = (
    "entity",
    "edges",
    "answer",
    "window",
    "valid_now",
)
"""The arms of a ``Focus``: items mentioning its entities, the propositions carrying their edges (a
graph's one hop, read from the index), items of its window, items valid at its moment."""


@dataclass(frozen=True, slots=True)
class Focus:
    """What an ``auto`` question was read as narrowing to. Each part adds an arm beside the text arms
    (scored by the question's text within it), never a filter: entities (the items that mention them,
    and the propositions that carry their edges), a time window (items created in it or valid during
    it), or a moment (items explicitly valid then, for "currently")."""

    entity_ids: tuple[str, ...] = ()
    window: TimeWindow | None = None
    valid_at: datetime | None = None
    entity_text: str = ""
    """What the entity arms rank their members by: the question less the entities' names (within an
    entity's items its name tells none apart)."""
    time_text: str = ""
    """What the time arms rank their members by: the question less its time cue, for the same reason."""
    answer_types: tuple[str, ...] = ()
    """Entity types the question asks for ("Who ...": a person): the entities' items that also mention
    one join as an arm of their own."""

    @property
    def empty(self) -> bool:
        return not self.entity_ids and self.window is None and self.valid_at is None


Expansion = Sequence[tuple[str, float]]
"""Extra query terms for the lexical arm, each with its boost (the original text has boost 1)."""


@runtime_checkable
class LexicalSearch(Protocol):
    def lexical(
        self, context_id: str, text: str, filters: SearchFilters, expansion: Expansion = ()
    ) -> list[Candidate]:
        """BM25 search over item text (and the expansion terms, when given), best first: candidates whose
        response ``Hit`` is built only if the ranking keeps them."""
        ...


@runtime_checkable
class VectorSearch(Protocol):
    def vector(self, context_id: str, vector: Sequence[float], filters: SearchFilters) -> list[Candidate]:
        """Approximate k-NN search with the filters applied inside the k-NN clause, best first."""
        ...


@runtime_checkable
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


RESIDUAL_ARM = "residual"
"""The neighbourhood's arm of a chain's second end: ``Residual``'s k-NN search."""


@dataclass(frozen=True, slots=True)
class Residual:
    """What a question asks once the thing it names is known ("What currency predated the Euro in the
    country Signmark is from?" without "Signmark"), embedded, asked among the items naming one of
    ``entities`` (what that thing's page names: "Finland"): a chain's second end."""

    text: str
    vector: tuple[float, ...]
    entities: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Neighbourhood:
    """The passages about or naming some entities (``SearchFilters.entities``), ranked by a question in
    each arm, and how many of the caller's items (under the same filters) name each of those entities:
    what a walk over the chunk-entity graph spreads over, and how specific each entity is. With a
    ``Residual``, its k-NN arm too (``RESIDUAL_ARM``)."""

    arms: Mapping[str, Sequence[Candidate]] = field(default_factory=dict)
    named_by: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class NeighbourhoodAsk:
    """What one ``NeighbourhoodSearch.neighbourhood`` call asks: the same ask of the same index gives the
    same neighbourhood, so a walk's fetch made ahead of the walk (in ``auto``'s focus round trip) stands
    in for it exactly when the walk asks the same (``same``)."""

    text: str
    vector: tuple[float, ...]
    filters: SearchFilters
    depth: int
    residual: Residual | None = None

    def same(self, other: NeighbourhoodAsk) -> bool:
        """Whether ``other`` asks for the same neighbourhood: every field equal, ``filters.entities`` as a
        set (the filter selects the items naming any of them, and each one's count is its own)."""
        unordered = replace(self.filters, entities=other.filters.entities)
        return (
            set(self.filters.entities) == set(other.filters.entities)
            and replace(self, filters=unordered) == other
        )


@dataclass(frozen=True, slots=True)
class Ahead:
    """A walk's first fetch made ahead of the walk: what was asked and what it found."""

    asked: NeighbourhoodAsk
    found: Neighbourhood


@runtime_checkable
class NeighbourhoodSearch(Protocol):
    def neighbourhood(
        self,
        context_id: str,
        text: str,
        vector: Sequence[float],
        filters: SearchFilters,
        depth: int,
        residual: Residual | None = None,
    ) -> Neighbourhood:
        """Hybrid's two arms among the items naming ``filters.entities`` (``depth`` each), each of
        those entities' count of naming items and ``residual``'s k-NN arm among the items naming its
        entities (``depth``, under the same other filters), in one round trip."""
        ...


@runtime_checkable
class QuestionSearch(Protocol):
    """What ``auto`` mode reads: the hybrid arms with the context's matching entity names in the same
    round trip, then the arms of what the question was read as (``Focus``) in one more."""

    def hybrid_with_names(
        self,
        context_id: str,
        text: str,
        vector: Sequence[float],
        filters: SearchFilters,
        depth: int,
        expansion: Expansion = (),
    ) -> tuple[ArmResults, list[NamedEntity]]:
        """``hybrid`` plus the entity names of the caller's items (under ``filters``) that share a word,
        or nearly, with ``text``: the dictionary the linker matches the question against."""
        ...

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
        """``hybrid`` and ``focused`` in one round trip: the question read before it, against the names
        the function holds (``QuestionNames``)."""
        ...

    def focused(self, context_id: str, focus: Focus, filters: SearchFilters, depth: int) -> ArmResults:
        """One arm per part of ``focus`` (``entity``, ``edges``, ``answer``, ``window``, ``valid_now``),
        all in one round trip, each ranked by its text within it; an ``empty`` ``focus`` costs nothing."""
        ...

    def focused_and_neighbourhood(
        self, context_id: str, focus: Focus, filters: SearchFilters, depth: int, ask: NeighbourhoodAsk
    ) -> tuple[ArmResults, Neighbourhood]:
        """``focused`` and ``NeighbourhoodSearch.neighbourhood`` of ``ask``, in the same round trip."""
        ...


@runtime_checkable
class QuestionNames(Protocol):
    """A context's dictionary held in the function (``understanding.alias_index.HeldNames``): what a
    question could name, found without a round trip."""

    def names_for(self, context_id: str, text: str) -> tuple[list[NamedEntity], frozenset[str]] | None:
        """The entries ``text`` could link (every entry sharing an alias it writes, or nearly), and every
        entity type the context's dictionary holds (what a question can ask for by its type's word);
        None: the context's dictionary is not held (too large), so it is looked up."""
        ...


@runtime_checkable
class EntityIndex(Protocol):
    def by_entity(self, context_id: str, entity_id: str, filters: SearchFilters) -> list[Hit]:
        """Items that mention ``entity_id``."""
        ...


@runtime_checkable
class TemporalSearch(Protocol):
    def in_window(self, context_id: str, window: TimeWindow, filters: SearchFilters) -> list[Hit]:
        """Items created in the window, or whose validity window overlaps it."""
        ...


@runtime_checkable
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
    heading: str = ""
    """The heading path the vector was computed with (``models.item.embedding_input``)."""


@runtime_checkable
class VectorReader(Protocol):
    def vectors(self, context_id: str, ids: Sequence[str]) -> dict[str, Stored]:
        """The texts and stored embeddings of the caller's items among ``ids``, in one round trip;
        foreign and missing ids are simply absent."""
        ...


class NamingChunks(Protocol):
    def chunks_naming(
        self, context_id: str, pages: Sequence[tuple[Sequence[str], NamedEntity]], limit: int
    ) -> list[list[dict[str, Any]]]:
        """For each page (its ``names`` and its ``entity``): the stored items (their loadable fields,
        embedding included) of the context's document chunks whose text holds one of the names as a
        phrase and that do not mention the entity (that id, name and type) yet, at most ``limit``; one
        round trip for all the pages."""
        ...

    def chunks_mentioning(self, context_id: str, entity: NamedEntity, limit: int) -> list[dict[str, Any]]:
        """The stored items (as ``chunks_naming``) of the context's document chunks that mention the
        entity (that id, name and type, in any role), at most ``limit``: a page a sync linked ahead and
        that never came, unlinked (``IndexWriter.unlink``)."""
        ...


@dataclass(frozen=True, slots=True)
class FeedbackHit:
    """A first-pass hit as pseudo-relevance feedback reads it: its score, text and stored embedding."""

    id: str
    score: float
    text: str
    vector: list[float]


@runtime_checkable
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


class KnowledgeBaseDirectory(Protocol):
    """Which context a Bedrock knowledge base id serves (``models.knowledge_bases``)."""

    def context_of(self, knowledge_base_id: str) -> str | None:
        """The context, or None when the id serves none (unknown and malformed alike)."""
        ...

    def granted_to(self, principal_arn: str) -> tuple[str, ...]:
        """The knowledge base ids listed for an IAM principal (``ListKnowledgeBases``); none by default."""
        ...


class SearchStore(
    LexicalSearch,
    VectorSearch,
    HybridSearch,
    NeighbourhoodSearch,
    QuestionSearch,
    EntityIndex,
    TemporalSearch,
    ItemReader,
    VectorReader,
    FeedbackSearch,
    Protocol,
):
    """A store that serves every search mode and item reads (OpenSearch does)."""


SearchPort = (
    LexicalSearch
    | VectorSearch
    | HybridSearch
    | NeighbourhoodSearch
    | QuestionSearch
    | EntityIndex
    | TemporalSearch
    | ItemReader
    | VectorReader
    | FeedbackSearch
)
"""A search store serving at least one of ``SearchStore``'s ports (a test's lexical-only store, say)."""

SEARCH_PORTS: Mapping[str, type[Any]] = {
    "lexical": LexicalSearch,
    "vector": VectorSearch,
    "hybrid": HybridSearch,
    "neighbourhood": NeighbourhoodSearch,
    "question": QuestionSearch,
    "entity": EntityIndex,
    "temporal": TemporalSearch,
    "items": ItemReader,
    "vectors": VectorReader,
    "feedback": FeedbackSearch,
}
"""Each capability the search store may serve, by the port that serves it."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What this deployment's backends can do, built once at the composition root: each backend named
    once (the search store, the graph, the embedder, the reranker).

    ``None`` means the capability is absent: the ranking answers a mode that needs it with a typed-empty
    result (``supported: false``), never with a scan. The search store's capabilities are the ports it
    implements, read once here (``SEARCH_PORTS``): a store without ``vector`` searches offers no vector
    capability, whatever else it serves.
    """

    search: SearchPort | None = None
    graph: GraphTraversal | None = None
    embedder: Embedder | None = None
    reranker: Reranker | None = None
    """A hosted or local relevance model for the ``model`` rerank method; None: such requests say so."""
    names: QuestionNames | None = None
    """auto mode's names held in the function; None: looked up beside hybrid's arms
    (``QuestionSearch.hybrid_with_names``)."""
    lexical: LexicalSearch | None = field(init=False, repr=False, compare=False)
    vector: VectorSearch | None = field(init=False, repr=False, compare=False)
    hybrid: HybridSearch | None = field(init=False, repr=False, compare=False)
    neighbourhood: NeighbourhoodSearch | None = field(init=False, repr=False, compare=False)
    """The multi-hop stage's fetch: the passages naming some entities, and how many name each."""
    question: QuestionSearch | None = field(init=False, repr=False, compare=False)
    """auto mode: hybrid with the entity dictionary, and the arms of what a question names."""
    entity: EntityIndex | None = field(init=False, repr=False, compare=False)
    temporal: TemporalSearch | None = field(init=False, repr=False, compare=False)
    items: ItemReader | None = field(init=False, repr=False, compare=False)
    vectors: VectorReader | None = field(init=False, repr=False, compare=False)
    feedback: FeedbackSearch | None = field(init=False, repr=False, compare=False)
    """First passes that bring their hits' texts and vectors along. None: vector feedback is skipped
    and hybrid feedback fuses a first pass, then reads its top hits."""

    def __post_init__(self) -> None:
        # Once per container: the request path reads plain attributes, never a protocol check.
        for name, port in SEARCH_PORTS.items():
            object.__setattr__(self, name, self.search if isinstance(self.search, port) else None)


@dataclass(frozen=True, slots=True)
class ItemKey:
    """Which item of which context a delete removes."""

    context_id: str
    item_id: str


@dataclass(frozen=True, slots=True)
class WriteRefusal:
    """An item the search store did not index. ``final``: it refused the item itself (a mapping
    conflict, a field limit), so sending it again gives the same answer; otherwise a re-run may."""

    item_id: str
    final: bool
    reason: str


class ItemWriter(Protocol):
    """The search store's side of loading: the documents every search mode and ``ItemReader`` read."""

    def prepare(self, context_ids: Iterable[str]) -> None:
        """Make each context writable (its index is created on its first write)."""
        ...

    def index(self, items: Sequence[tuple[Item, Sequence[float]]]) -> list[WriteRefusal]:
        """Create or replace each item's document with its embedding; returns what was not indexed."""
        ...

    def delete(self, keys: Sequence[ItemKey]) -> list[str]:
        """Remove the items' documents; returns the ids not removed (an absent one counts as removed)."""
        ...

    def refresh(self, context_ids: Iterable[str]) -> None:
        """Make what was written to these contexts visible to searches."""
        ...


class LineageWriter(Protocol):
    """The rows beside each document that ``GraphTraversal`` and ``LineageReader`` read: an item's
    lineage card, its graph edges and the reverse links on the items it points at. The card lists the
    item's other rows, so a reload or a delete removes exactly those."""

    def write(self, items: Sequence[Item]) -> set[str]:
        """Write every row the items own, removing rows a changed item no longer owns, cards last;
        returns the ids that already had a card (updates)."""
        ...

    def discard(self, items: Sequence[Item]) -> None:
        """Remove every row ``write`` wrote for these items, cards last (the index refused them)."""
        ...

    def delete_links(self, keys: Sequence[ItemKey]) -> set[str]:
        """Remove every row of these items but their cards; returns the ids that had a card."""
        ...

    def delete_cards(self, keys: Sequence[ItemKey]) -> None:
        """Remove the items' cards (last: until then a re-run still knows what to remove)."""
        ...


class MetadataKeyLedger(Protocol):
    """The undeclared metadata keys each context uses in a shared (pool) index, kept durably."""

    def keys_of(self, context_id: str) -> set[str]: ...

    def add_within(self, context_id: str, keys: set[str], cap: int) -> bool:
        """Add ``keys`` to the context's recorded keys in one atomic step, unless the keys recorded
        before it plus ``keys`` would number more than ``cap``; False (nothing added) when they would.
        Concurrent writers cannot both pass: the check and the write are one conditional write."""
        ...


class ContextFieldTypes(Protocol):
    """The metadata types one context's own index gives its keys beyond the deployment's declaration:
    what typed sidecar values declared (silo model; a shared pool index types nothing per context)."""

    def field_types(self, context_id: str) -> dict[str, FieldType]:
        """The context's typed keys (number, date, boolean): the ones a filter ranges or matches on as
        typed. Exact-string keys are left out (every undeclared key is one)."""
        ...


class ContextFieldDeclarations(ContextFieldTypes, Protocol):
    """The write side: typed sidecar values declaring their keys' types in the context's index."""

    def declare(self, context_id: str, fields: Mapping[str, FieldType]) -> dict[str, FieldType]:
        """Type ``fields`` in the context's index (created first if absent) where it does not map them
        yet; returns the ones it already maps otherwise, with the type it has (nothing changed for those:
        changing a mapped type takes a rebuild)."""
        ...
