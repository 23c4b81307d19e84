"""The sample corpus keeps every promise ``dev/sample/known.py`` makes, checked against the committed file.

Graph claims are re-derived here by BFS over ACTIVE proposition edges, lineage by walking ``source_ids``,
and lexical claims with a plain BM25 (standard-analyzer-like tokens, default k1/b), so a world edit that
silently adds a shortcut, breaks a chain or dilutes a query term fails here before an integration test.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict, deque
from collections.abc import Iterable
from itertools import combinations

import pytest
from retrieval_core.context import context_of
from retrieval_core.models.item import Item
from retrieval_core.models.vocabulary import Kind, Status

from dev.sample import known
from dev.sample.generate import CORPUS_PATH, build, render

ALL_STATUSES = frozenset(Status)
ACTIVE = frozenset({Status.ACTIVE})
Graph = dict[str, set[str]]


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return CORPUS_PATH.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def items(lines: list[str]) -> list[Item]:
    return [Item.model_validate_json(line) for line in lines]


@pytest.fixture(scope="module")
def by_id(items: list[Item]) -> dict[str, Item]:
    return {item.id: item for item in items}


def entity_graph(items: Iterable[Item], context: str, statuses: frozenset[Status]) -> Graph:
    """One undirected edge per pair of distinct entities a proposition mentions."""
    graph: Graph = defaultdict(set)
    for item in items:
        if item.context_id == context and item.kind is Kind.PROPOSITION and item.status in statuses:
            for a, b in combinations(item.entity_ids, 2):
                graph[a].add(b)
                graph[b].add(a)
    return graph


def shortest_paths(graph: Graph, start: str, end: str) -> set[tuple[str, ...]]:
    """Every shortest path from ``start`` to ``end`` (BFS keeping all parents on shortest routes)."""
    distance, parents = {start: 0}, defaultdict(list)
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for neighbour in graph.get(node, ()):
            if neighbour not in distance:
                distance[neighbour] = distance[node] + 1
                queue.append(neighbour)
            if distance[neighbour] == distance[node] + 1:
                parents[neighbour].append(node)
    if end not in distance:
        return set()

    def back(node: str) -> list[tuple[str, ...]]:
        return [(start,)] if node == start else [(*p, node) for parent in parents[node] for p in back(parent)]

    return set(back(end))


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def bm25_ranking(query: str, candidates: list[Item], collection: list[Item]) -> list[str]:
    """Candidate ids by BM25 score (k1=1.2, b=0.75) with term statistics from ``collection``."""
    docs = {item.id: tokens(item.text) for item in collection}
    average = sum(map(len, docs.values())) / len(docs)
    frequency = Counter(term for terms in docs.values() for term in set(terms))

    def score(item: Item) -> float:
        counts, length, total = Counter(tokens(item.text)), len(tokens(item.text)), 0.0
        for term in tokens(query):
            df = frequency[term]
            idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
            tf = counts[term]
            total += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))
        return total

    scored = [(score(item), item.id) for item in candidates]
    return [item_id for value, item_id in sorted(scored, key=lambda s: -s[0]) if value > 0]


def test_every_line_is_an_item_without_an_embedding(lines: list[str], items: list[Item]) -> None:
    assert len(items) == len(lines) == len({item.id for item in items})
    assert all("embedding" not in json.loads(line) for line in lines)


def test_committed_file_is_what_the_generator_writes() -> None:
    assert CORPUS_PATH.read_text(encoding="utf-8") == render(build().items)


def test_two_contexts_with_every_kind_and_at_least_300_items(items: list[Item]) -> None:
    assert len(items) >= 300
    kinds = Counter((item.context_id, item.kind) for item in items)
    assert {context for context, _ in kinds} == set(known.CONTEXTS) == {"acme", "globex"}
    for context in known.CONTEXTS:
        assert all(kinds[(context, kind)] >= 5 for kind in Kind), kinds


def test_every_reference_carries_its_context_and_names_an_existing_item(
    items: list[Item], by_id: dict[str, Item]
) -> None:
    for item in items:
        assert context_of(item.id) == item.context_id
        assert all(context_of(m.entity_id) == item.context_id for m in item.mentions)
        links = item.source_ids + item.supersedes + item.contradicts + [g.chunk_id for g in item.grounding]
        for link in links:
            assert context_of(link) == item.context_id and link in by_id, (item.id, link)


def test_groundings_locate_a_span_of_a_source(items: list[Item], by_id: dict[str, Item]) -> None:
    grounded = [item for item in items if item.grounding]
    assert len(grounded) >= 40
    for item in grounded:
        for ground in item.grounding:
            source = by_id[ground.chunk_id]
            assert ground.chunk_id in item.source_ids and ground.uri
            assert ground.start is not None and ground.end is not None
            assert 0 <= ground.start < ground.end <= len(source.text)
    assert any(by_id[g.chunk_id].kind is Kind.DOCUMENT for item in grounded for g in item.grounding)


def test_derived_items_are_never_older_than_what_they_derive_from(
    items: list[Item], by_id: dict[str, Item]
) -> None:
    for item in items:
        for link in item.source_ids + item.supersedes + item.contradicts:
            assert by_id[link].created_at <= item.created_at, (item.id, link)


def test_creation_spans_a_year_and_validity_windows_fall_in_2026(items: list[Item]) -> None:
    created = sorted(item.created_at for item in items)
    assert (created[-1] - created[0]).days >= 300
    assert len({(moment.year, moment.month) for moment in created}) >= 12
    starts = [item.valid_from for item in items if item.valid_from]
    closed = [item for item in items if item.valid_to]
    assert sum(moment.year == 2026 for moment in starts) >= 10
    assert len(closed) >= 4 and all(item.valid_to.year == 2026 for item in closed)


def test_texts_are_distinct_within_each_context(items: list[Item]) -> None:
    for context in known.CONTEXTS:
        texts = [item.text for item in items if item.context_id == context]
        assert len(set(texts)) == len(texts)


@pytest.mark.parametrize("context", known.CONTEXTS)
def test_four_hop_path_is_the_unique_shortest_active_path(items: list[Item], context: str) -> None:
    case = known.FACTS[context].four_hop_path
    active = entity_graph(items, context, ACTIVE)
    assert case.hops == 4
    assert shortest_paths(active, case.start, case.end) == {case.entities}


@pytest.mark.parametrize("context", known.CONTEXTS)
def test_following_inactive_edges_shortens_the_four_hop_path(
    items: list[Item], by_id: dict[str, Item], context: str
) -> None:
    case = known.FACTS[context].four_hop_path
    shortcut = by_id[case.inactive_shortcut]
    assert shortcut.status is not Status.ACTIVE and case.start in shortcut.entity_ids
    everything = entity_graph(items, context, ALL_STATUSES)
    assert len(next(iter(shortest_paths(everything, case.start, case.end)))) - 1 < case.hops


@pytest.mark.parametrize("context", known.CONTEXTS)
def test_equal_paths_are_all_the_shortest_paths(items: list[Item], context: str) -> None:
    case = known.FACTS[context].equal_paths
    assert len(case.paths) >= 2 and len({len(path) for path in case.paths}) == 1
    assert shortest_paths(entity_graph(items, context, ACTIVE), case.start, case.end) == case.paths


@pytest.mark.parametrize("context", known.CONTEXTS)
def test_cycle_closes_over_active_edges(items: list[Item], context: str) -> None:
    cycle = known.FACTS[context].cycle.entities
    active = entity_graph(items, context, ACTIVE)
    assert len(cycle) >= 3 and len(set(cycle)) == len(cycle)
    assert all(b in active[a] for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True))


@pytest.mark.parametrize("context", known.CONTEXTS)
def test_lineage_chain_is_at_least_three_levels_deep(by_id: dict[str, Item], context: str) -> None:
    chain = known.FACTS[context].lineage_chain
    assert known.lineage_levels(by_id, chain.leaf) == chain.levels and len(chain.levels) >= 3
    leaf = by_id[chain.leaf]
    assert leaf.kind is Kind.PROPOSITION and leaf.context_id == context
    # proposition -> record -> document chunk -> document chunk, each a derived-from link
    assert any(
        by_id[document].kind is Kind.DOCUMENT and by_id[earlier].kind is Kind.DOCUMENT
        for record in leaf.source_ids
        if by_id[record].kind is Kind.RECORD
        for document in by_id[record].source_ids
        for earlier in by_id[document].source_ids
    )


@pytest.mark.parametrize("context", known.CONTEXTS)
def test_superseded_pair(by_id: dict[str, Item], context: str) -> None:
    case = known.FACTS[context].superseded
    old, new = by_id[case.old], by_id[case.new]
    assert (old.status, new.status) == (Status.SUPERSEDED, Status.ACTIVE)
    assert case.old in new.supersedes and old.created_at < new.created_at
    assert old.valid_to is not None and old.valid_to == new.valid_from


@pytest.mark.parametrize("context", known.CONTEXTS)
def test_contradicted_pair(by_id: dict[str, Item], context: str) -> None:
    case = known.FACTS[context].contradicted
    old, new = by_id[case.contradicted], by_id[case.by]
    assert (old.status, new.status) == (Status.CONTRADICTED, Status.ACTIVE)
    assert case.contradicted in new.contradicts


def test_statuses_agree_with_the_links_that_cause_them(items: list[Item]) -> None:
    superseded = {link for item in items for link in item.supersedes}
    contradicted = {link for item in items for link in item.contradicts}
    assert {i.id for i in items if i.status is Status.SUPERSEDED} == superseded
    assert {i.id for i in items if i.status is Status.CONTRADICTED} == contradicted
    assert any(item.status is Status.STALE for item in items)


def test_colliding_names_state_different_facts_in_each_context(
    items: list[Item], by_id: dict[str, Item]
) -> None:
    assert len(known.COLLIDING_NAMES) >= 3
    for collision in known.COLLIDING_NAMES:
        assert set(collision.facts) == set(known.CONTEXTS)
        neighbours = {}
        for context, entity_id in collision.entity_ids.items():
            assert entity_id == f"{context}:{collision.local_id}"
            fact = by_id[collision.facts[context]]
            assert fact.status is Status.ACTIVE and entity_id in fact.entity_ids
            names = {
                m.name
                for i in items
                if i.context_id == context
                for m in i.mentions
                if m.entity_id == entity_id
            }
            assert names == {collision.name}
            neighbours[context] = {
                n.partition(":")[2] for n in entity_graph(items, context, ACTIVE)[entity_id]
            }
        assert len({by_id[fact_id].text for fact_id in collision.facts.values()}) == len(collision.facts)
        assert len({frozenset(n) for n in neighbours.values()}) == len(neighbours)


@pytest.mark.parametrize("query", known.LEXICAL_QUERIES, ids=lambda q: f"{q.context}:{q.text}")
def test_lexical_queries_rank_their_item_first(items: list[Item], query: known.LexicalQuery) -> None:
    candidates = [i for i in items if i.context_id == query.context and i.status is Status.ACTIVE]
    for collection in (items, [i for i in items if i.context_id == query.context]):
        assert bm25_ranking(query.text, candidates, collection)[0] == query.expected_first


@pytest.mark.parametrize("context", known.CONTEXTS)
def test_document_ranks_above_the_matching_proposition(items: list[Item], context: str) -> None:
    case = known.FACTS[context].document_above_proposition
    candidates = [i for i in items if i.context_id == context and i.status is Status.ACTIVE]
    ranking = bm25_ranking(case.text, candidates, items)
    assert ranking[:2] == [case.document, case.proposition]


def test_temporal_window_selects_by_creation_and_by_validity(by_id: dict[str, Item]) -> None:
    window = known.TEMPORAL
    for context in known.CONTEXTS:
        expected = [by_id[item_id] for item_id in window.expected[context]]
        assert all(i.context_id == context and i.status is Status.ACTIVE for i in expected)
        by_creation = [i for i in expected if window.start <= i.created_at <= window.end]
        assert by_creation and len(by_creation) < len(expected)
        moments = [m for i in by_id.values() for m in (i.created_at, i.valid_from, i.valid_to) if m]
        assert window.start not in moments and window.end not in moments
