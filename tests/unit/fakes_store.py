"""An in-memory store behind the search ports, for unit tests of the ranking (never for integration)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from retrieval_core.adapters.opensearch.documents import document_of
from retrieval_core.models.filters import Filter
from retrieval_core.models.hits import Candidate, Hit, Signal, hit_of
from retrieval_core.models.item import Item
from retrieval_core.models.metadata import FieldType
from retrieval_core.models.page_titles import ABOUT_ROLE
from retrieval_core.ports import (
    RESIDUAL_ARM,
    ArmResults,
    Capabilities,
    Embedder,
    Expansion,
    FeedbackHit,
    Focus,
    GraphTraversal,
    NamedEntity,
    Neighbourhood,
    NeighbourhoodAsk,
    Residual,
    SearchFilters,
    Stored,
    TimeWindow,
)

from tests.filter_oracle import matches

WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


class InMemoryLexicalStore:
    """Only lexical search and id reads: no vector capability at all."""

    def __init__(self, items: Iterable[Item], metadata_types: dict[str, str] | None = None) -> None:
        self.items = {item.id: item for item in items}
        self.calls: list[str] = []
        self.metadata_types = metadata_types or {}

    def field_types(self, context_id: str) -> dict[str, FieldType]:
        """``ports.ContextFieldTypes``: in memory no context types its own keys (the declaration alone)."""
        return {}

    def _visible(
        self, context_id: str, filters: SearchFilters | None, where: Filter | None = None
    ) -> list[Item]:
        found = [i for i in self.items.values() if i.context_id == context_id]
        if filters is not None:
            found = [i for i in found if i.status in filters.statuses]
            if filters.kinds:
                found = [i for i in found if i.kind in filters.kinds]
            if filters.entities:
                found = [i for i in found if set(i.entity_ids) & set(filters.entities)]
            where = where or filters.where
        if where is not None:
            found = [i for i in found if matches(i, where.echo(), self.metadata_types)]
        return found

    def _hit(self, item: Item, score: float, arm: str | None = None, rank: int | None = None) -> Hit:
        """The hit the OpenSearch adapter would answer: the same translation from the same document."""
        return hit_of(
            document_of(item, []),
            score=score,
            signals={arm: Signal(rank=rank, score=score)} if arm and rank else {},
            found_by=[arm] if arm else [],
        )

    def _rank(self, scored: list[tuple[float, Item]], arm: str, size: int) -> list[Hit]:
        ranked = _ranked(scored, size)
        return [self._hit(item, score, arm, rank) for rank, (score, item) in enumerate(ranked, start=1)]

    def lexical(
        self, context_id: str, text: str, filters: SearchFilters, expansion: Expansion = ()
    ) -> list[Candidate]:
        self.calls.append("lexical")
        return _candidates(_ranked(self._overlap(context_id, text, filters, expansion), filters.size))

    def _overlap(
        self, context_id: str, text: str, filters: SearchFilters, expansion: Expansion = ()
    ) -> list[tuple[float, Item]]:
        """The fake's "BM25": how many of the query's words (and expansion terms) each item has."""
        query = _words(" ".join([text, *(term for term, _ in expansion)]))
        return [(float(len(query & _words(i.text))), i) for i in self._visible(context_id, filters)]

    def get_items(
        self, context_id: str, ids: Iterable[str], *, where: Filter | None = None
    ) -> dict[str, Hit]:
        self.calls.append("get_items")
        wanted = set(ids)
        return {
            i.id: self._hit(i, i.confidence or 1.0)
            for i in self._visible(context_id, None, where)
            if i.id in wanted
        }


class InMemoryStore(InMemoryLexicalStore):
    """Every search capability: lexical, vector, hybrid, entity, temporal."""

    def vector(self, context_id: str, vector: Sequence[float], filters: SearchFilters) -> list[Candidate]:
        self.calls.append("vector")
        return _candidates(_ranked(self._similar(context_id, vector, filters), filters.size))

    def _similar(
        self, context_id: str, vector: Sequence[float], filters: SearchFilters
    ) -> list[tuple[float, Item]]:
        """The fake's k-NN: each visible item's cosine to ``vector`` on OpenSearch's [0, 1] scale."""
        scored = []
        for item in self._visible(context_id, filters):
            if item.embedding:
                dot = sum(a * b for a, b in zip(vector, item.embedding, strict=True))
                norm = math.sqrt(sum(a * a for a in vector)) * math.sqrt(sum(b * b for b in item.embedding))
                scored.append(((1 + dot / norm) / 2 if norm else 0.0, item))
        return scored

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
        self.calls.append("hybrid")
        lexical = self._overlap(context_id, text, filters, expansion)
        return ArmResults(
            arms={
                "lexical": _candidates(_ranked(lexical, depth)),
                "vector": _candidates(_ranked(self._similar(context_id, vector, filters), depth)),
            }
        )

    def neighbourhood(
        self,
        context_id: str,
        text: str,
        vector: Sequence[float],
        filters: SearchFilters,
        depth: int,
        residual: Residual | None = None,
    ) -> Neighbourhood:
        arms = dict(self.hybrid(context_id, text, vector, filters, depth).arms)
        self.calls[-1] = "neighbourhood"
        if residual is not None and residual.entities:
            among = replace(filters, entities=residual.entities)
            arms[RESIDUAL_ARM] = _candidates(
                _ranked(self._similar(context_id, residual.vector, among), depth)
            )
        visible = self._visible(context_id, filters)
        named_by = {e: sum(e in i.entity_ids for i in visible) for e in filters.entities}
        return Neighbourhood(arms, {e: n for e, n in named_by.items() if n})

    def vectors(self, context_id: str, ids: Sequence[str]) -> dict[str, Stored]:
        self.calls.append("vectors")
        wanted = set(ids)
        return {
            i.id: Stored(i.text, list(i.embedding), i.heading)
            for i in self._visible(context_id, None)
            if i.id in wanted and i.embedding
        }

    def lexical_feedback(self, context_id: str, text: str, filters: SearchFilters) -> list[FeedbackHit]:
        self.calls.append("lexical_feedback")
        return self._feedback(self._rank(self._overlap(context_id, text, filters), "lexical", filters.size))

    def vector_feedback(
        self, context_id: str, vector: Sequence[float], filters: SearchFilters
    ) -> list[FeedbackHit]:
        self.calls.append("vector_feedback")
        return self._feedback(self._rank(self._similar(context_id, vector, filters), "vector", filters.size))

    def _feedback(self, hits: list[Hit]) -> list[FeedbackHit]:
        return [
            FeedbackHit(h.id, h.score, h.text or "", list(self.items[h.id].embedding or ())) for h in hits
        ]

    def by_entity(self, context_id: str, entity_id: str, filters: SearchFilters) -> list[Hit]:
        self.calls.append("entity")
        found = [i for i in self._visible(context_id, filters) if entity_id in i.entity_ids]
        return [self._hit(i, i.confidence or 1.0) for i in found][: filters.size]

    def in_window(self, context_id: str, window: TimeWindow, filters: SearchFilters) -> list[Hit]:
        self.calls.append("temporal")
        found = [i for i in self._visible(context_id, filters) if _inside(i.created_at, window)]
        return [self._hit(i, i.confidence or 1.0) for i in found][: filters.size]

    def entity_names_within(self, context_id: str, most: int) -> list[NamedEntity] | None:
        """As the index reads its dictionary: every name the context's items mention (None past ``most``)."""
        found = {
            NamedEntity(m.entity_id, m.name, m.type): None
            for i in self.items.values()
            if i.context_id == context_id
            for m in i.mentions
        }
        return list(found) if len(found) <= most else None

    def entity_names_since(self, context_id: str, since: datetime) -> list[NamedEntity]:
        return []

    def hybrid_with_names(
        self,
        context_id: str,
        text: str,
        vector: Sequence[float],
        filters: SearchFilters,
        depth: int,
        expansion: Expansion = (),
    ) -> tuple[ArmResults, list[NamedEntity]]:
        arms = self.hybrid(context_id, text, vector, filters, depth, expansion)
        self.calls[-1] = "hybrid_with_names"
        # As the index does: every name on the visible items that name something sharing a word with the
        # question (the names co-mentioned with it come along, and with them their types).
        words = _words(text)
        entries = {
            NamedEntity(m.entity_id, m.name, m.type): None
            for i in self._visible(context_id, filters)
            if any(words & _words(m.name) for m in i.mentions)
            for m in i.mentions
        }
        return arms, list(entries)

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
        arms = self.hybrid(context_id, text, vector, filters, depth, expansion)
        focused = ArmResults() if focus.empty else self.focused(context_id, focus, filters, depth)
        del self.calls[-(1 if focus.empty else 2) :]  # one round trip, as the index answers it
        self.calls.append("hybrid_and_focused")
        return arms, focused

    def focused_and_neighbourhood(
        self, context_id: str, focus: Focus, filters: SearchFilters, depth: int, ask: NeighbourhoodAsk
    ) -> tuple[ArmResults, Neighbourhood]:
        arms = self.focused(context_id, focus, filters, depth)
        found = self.neighbourhood(context_id, ask.text, ask.vector, ask.filters, ask.depth, ask.residual)
        del self.calls[-2:]
        self.calls.append("focused_and_neighbourhood")
        return arms, found

    def focused(self, context_id: str, focus: Focus, filters: SearchFilters, depth: int) -> ArmResults:
        self.calls.append("focused")
        visible = self._visible(context_id, filters)
        arms: dict[str, list[Candidate]] = {}
        if focus.entity_ids:
            named = [i for i in visible if set(focus.entity_ids) & set(i.entity_ids)]
            members = self._focus_arm(_sharing(named, focus.entity_text), focus.entity_text, "entity", depth)
            # As the index does: each named page's first own chunk (in the arm's order) leads.
            by_id = {i.id: i for i in named}
            leads: dict[str, Candidate] = {}
            for candidate in self._focus_arm(named, focus.entity_text, "entity", depth):
                for mention in by_id[candidate.id].mentions:
                    if mention.role == ABOUT_ROLE and mention.entity_id in focus.entity_ids:
                        leads.setdefault(mention.entity_id, candidate)
            first = list({c.id: c for c in leads.values()}.values())
            led = {c.id for c in first}
            arms["entity"] = [*first, *(c for c in members if c.id not in led)]
            if focus.answer_types:
                typed = [
                    i
                    for i in named
                    if len(i.entity_ids) > 1 and {m.type for m in i.mentions} & set(focus.answer_types)
                ]
                arms["answer"] = self._focus_arm(typed, focus.entity_text, "answer", depth)
        if focus.window is not None:
            window = focus.window
            inside = [i for i in visible if _inside(i.created_at, window)]
            arms["window"] = self._focus_arm(
                _sharing(inside, focus.time_text), focus.time_text, "window", depth
            )
        # As the index's entity arm counts them: the focus entities a visible item mentions.
        mentioned = {e for i in visible for e in i.entity_ids} & set(focus.entity_ids)
        return ArmResults(arms=arms, present=frozenset(mentioned) if focus.entity_ids else None)

    def _focus_arm(self, members: list[Item], text: str, arm: str, depth: int) -> list[Candidate]:
        words = _words(text)
        scored = [(1.0 + len(words & _words(i.text)), i) for i in members]
        return _candidates(_ranked(scored, depth))


class BuildCountingStore(InMemoryStore):
    """Records every hybrid candidate it returns and every one built into a ``Hit``."""

    def __init__(self, items: Iterable[Item]) -> None:
        super().__init__(items)
        self.candidates: list[str] = []
        self.built: list[str] = []
        built = self.built

        class Counted(Candidate):
            __slots__ = ()

            def hit(self, *, score: float, signals: dict[str, Signal], found_by: list[str]) -> Hit:
                built.append(self.id)
                return super().hit(score=score, signals=signals, found_by=found_by)

        self._counted = Counted

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
        arms = super().hybrid(context_id, text, vector, filters, depth, expansion, ids_only=ids_only).arms
        self.candidates.extend(c.id for found in arms.values() for c in found)
        return ArmResults(arms={arm: [self._counted(*c) for c in found] for arm, found in arms.items()})


def _ranked(scored: list[tuple[float, Item]], size: int) -> list[tuple[float, Item]]:
    """As an index ranks: the matches (score above 0), best first, ties by id, at most ``size``."""
    return sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1].id))[:size]


def _candidates(ranked: list[tuple[float, Item]]) -> list[Candidate]:
    """What the OpenSearch adapter's arms answer: each candidate with the document it stores."""
    return [Candidate(item.id, item.kind, score, document_of(item, [])) for score, item in ranked]


def _sharing(members: list[Item], text: str) -> list[Item]:
    """As the index keeps a must-match arm: the members sharing two thirds of the words (rounded down,
    at least one), or every member when none does."""
    words = _words(text)
    needed = max(1, len(words) * 2 // 3)
    sharing = [i for i in members if len(words & _words(i.text)) >= needed]
    return sharing or members


def _inside(moment: datetime, window: TimeWindow) -> bool:
    return window.start <= moment <= window.end


class FixedEmbedder:
    """Embeds by looking texts up in a table (unknown text: a zero vector)."""

    def __init__(self, table: dict[str, list[float]], dimension: int) -> None:
        self._table = table
        self._dimension = dimension

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def name(self) -> str:
        return "fixed"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._table.get(t, [0.0] * self._dimension) for t in texts]


def capabilities_of(
    store: InMemoryLexicalStore, graph: GraphTraversal | None = None, embedder: Embedder | None = None
) -> Capabilities:
    """The capabilities a fake store really has: the lexical-only store offers no vector search."""
    return Capabilities(search=store, graph=graph, embedder=embedder)
