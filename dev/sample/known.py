"""Facts the sample corpus was built to exhibit, as ids, for the integration tests and the demo.

Everything here is resolved from the worlds' declared scenarios (``world_*.Scenario``) through the
generator's key -> id map, never copied from generated output; ``tests/unit/test_sample_corpus.py`` checks
each claim against ``corpus.jsonl`` (shortest paths by BFS, lineage by walking ``source_ids``...).

The module-level constants describe ``acme``; ``FACTS`` holds the same facts for every context.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from retrieval_core.models.item import Item, Status

from .generate import WORLDS, Corpus, InconsistentWorldError, build
from .spec import World

CONTEXTS: tuple[str, ...] = tuple(world.context for world in WORLDS)


@dataclass(frozen=True)
class FourHopPath:
    """The unique shortest path over ACTIVE edges; following non-ACTIVE edges too makes it shorter."""

    context: str
    start: str
    end: str
    entities: tuple[str, ...]  # start .. end inclusive, 5 entity ids
    inactive_shortcut: str  # the non-ACTIVE proposition that links ``start`` closer to ``end``

    @property
    def hops(self) -> int:
        return len(self.entities) - 1


@dataclass(frozen=True)
class EqualPaths:
    """Two entities joined by several distinct shortest ACTIVE paths; ``paths`` is all of them."""

    context: str
    start: str
    end: str
    paths: frozenset[tuple[str, ...]]


@dataclass(frozen=True)
class Cycle:
    context: str
    entities: tuple[str, ...]  # consecutive entities, and the last and the first, share an ACTIVE edge


@dataclass(frozen=True)
class LineageChain:
    """Ancestors of ``leaf`` by level along ``source_ids`` (level 1 = its direct sources), deduplicated."""

    context: str
    leaf: str
    levels: tuple[frozenset[str], ...]


@dataclass(frozen=True)
class Superseded:
    context: str
    old: str
    new: str


@dataclass(frozen=True)
class Contradicted:
    context: str
    contradicted: str  # status CONTRADICTED
    by: str  # ACTIVE, lists ``contradicted`` in its ``contradicts``


@dataclass(frozen=True)
class LexicalQuery:
    context: str
    text: str
    expected_first: str  # the item BM25 ranks first among the context's ACTIVE items


@dataclass(frozen=True)
class DocumentAboveProposition:
    """A query matching a document chunk and a proposition; BM25 ranks the chunk above the proposition."""

    context: str
    text: str
    document: str
    proposition: str


@dataclass(frozen=True)
class CollidingName:
    """One entity local id and name present in every context, with a different fact in each."""

    name: str
    local_id: str
    entity_ids: dict[str, str]  # context -> entity id
    facts: dict[str, str]  # context -> id of the proposition stating that context's fact


@dataclass(frozen=True)
class TemporalWindow:
    """A window and, per context, the ACTIVE items ``in_window`` selects (see there for the rule)."""

    start: datetime
    end: datetime
    expected: dict[str, frozenset[str]]


@dataclass(frozen=True)
class ContextFacts:
    four_hop_path: FourHopPath
    equal_paths: EqualPaths
    cycle: Cycle
    lineage_chain: LineageChain
    superseded: Superseded
    contradicted: Contradicted
    lexical_queries: tuple[LexicalQuery, ...]
    document_above_proposition: DocumentAboveProposition


def in_window(item: Item, start: datetime, end: datetime) -> bool:
    """The temporal rule (``ports.TemporalSearch``): created inside the window, or a validity window
    overlapping it (an open ``valid_to`` runs forever). Items without ``valid_from`` only count by
    ``created_at``. Bounds are inclusive; the sample window's bounds fall on no item timestamp."""
    if start <= item.created_at <= end:
        return True
    if item.valid_from is None:
        return False
    return item.valid_from <= end and (item.valid_to is None or item.valid_to >= start)


def lineage_levels(items_by_id: dict[str, Item], leaf: str) -> tuple[frozenset[str], ...]:
    """Breadth-first ancestors of ``leaf``: each level holds the sources of the previous one not seen yet."""
    seen = {leaf}
    levels: list[frozenset[str]] = []
    frontier = [leaf]
    while frontier:
        level = [s for item_id in frontier for s in items_by_id[item_id].source_ids if s not in seen]
        seen.update(level)
        frontier = list(dict.fromkeys(level))
        if frontier:
            levels.append(frozenset(frontier))
    return tuple(levels)


def _facts(corpus: Corpus, items_by_id: dict[str, Item], world: World) -> ContextFacts:
    ctx, scenario = world.context, world.scenario

    def item(key: str) -> str:
        return corpus.id(ctx, key)

    def entities(local_ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(corpus.entity_id(ctx, local_id) for local_id in local_ids)

    path = entities(scenario.four_hop)
    equal = frozenset(entities(p) for p in scenario.equal_paths)
    first_equal = next(iter(equal))
    query, document, proposition = scenario.document_above_proposition
    return ContextFacts(
        four_hop_path=FourHopPath(ctx, path[0], path[-1], path, item(scenario.inactive_shortcut)),
        equal_paths=EqualPaths(ctx, first_equal[0], first_equal[-1], equal),
        cycle=Cycle(ctx, entities(scenario.cycle)),
        lineage_chain=LineageChain(
            ctx, item(scenario.lineage_leaf), lineage_levels(items_by_id, item(scenario.lineage_leaf))
        ),
        superseded=Superseded(ctx, item(scenario.superseded[0]), item(scenario.superseded[1])),
        contradicted=Contradicted(ctx, item(scenario.contradicted[0]), item(scenario.contradicted[1])),
        lexical_queries=tuple(LexicalQuery(ctx, text, item(key)) for text, key in scenario.lexical),
        document_above_proposition=DocumentAboveProposition(ctx, query, item(document), item(proposition)),
    )


def _colliding_names(corpus: Corpus) -> tuple[CollidingName, ...]:
    """Entities every world declares as colliding; the worlds must agree on the list."""
    declared = [dict(world.scenario.collisions) for world in WORLDS]
    if any(d.keys() != declared[0].keys() for d in declared):
        raise InconsistentWorldError("every world must declare the same colliding entities")
    return tuple(
        CollidingName(
            name=corpus.entities[CONTEXTS[0]][local_id].name,
            local_id=local_id,
            entity_ids={w.context: corpus.entity_id(w.context, local_id) for w in WORLDS},
            facts={
                w.context: corpus.id(w.context, d[local_id]) for w, d in zip(WORLDS, declared, strict=True)
            },
        )
        for local_id in declared[0]
    )


def _temporal(corpus: Corpus, start: datetime, end: datetime) -> TemporalWindow:
    selected = [i for i in corpus.items if i.status is Status.ACTIVE and in_window(i, start, end)]
    expected = {ctx: frozenset(i.id for i in selected if i.context_id == ctx) for ctx in CONTEXTS}
    return TemporalWindow(start, end, expected)


_CORPUS = build()
_ITEMS = {i.id: i for i in _CORPUS.items}

FACTS: dict[str, ContextFacts] = {world.context: _facts(_CORPUS, _ITEMS, world) for world in WORLDS}

FOUR_HOP_PATH = FACTS["acme"].four_hop_path
EQUAL_PATHS = FACTS["acme"].equal_paths
CYCLE = FACTS["acme"].cycle
LINEAGE_CHAIN = FACTS["acme"].lineage_chain
SUPERSEDED = FACTS["acme"].superseded
CONTRADICTED = FACTS["acme"].contradicted
DOCUMENT_ABOVE_PROPOSITION = FACTS["acme"].document_above_proposition
LEXICAL_QUERIES: tuple[LexicalQuery, ...] = tuple(q for f in FACTS.values() for q in f.lexical_queries)
COLLIDING_NAMES = _colliding_names(_CORPUS)
# Mid-March 2026: an on-call shift, the March org change and several open validity windows overlap it.
TEMPORAL = _temporal(
    _CORPUS,
    datetime(2026, 3, 14, 0, 30, 30, tzinfo=UTC),
    datetime(2026, 3, 18, 23, 30, 30, tzinfo=UTC),
)
