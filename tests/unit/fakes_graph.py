"""In-memory stores behind the GraphTraversal, LineageReader and ItemReader ports.

They key rows the way the DynamoDB tables do (by context and local id) and write both edge directions
and reverse lineage links the way the loader does, so domain code sees what it would see in production.
``add_raw_edge`` and ``add_raw_link`` plant corrupted rows to prove the domain never trusts them.
The graph and lineage fakes count their calls (``backend_calls``, one per port call); the item reader
does not, so the meter's fallback counting is exercised too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from retrieval_core.models.hits import Edge, Hit, MentionView, Provenance
from retrieval_core.models.lineage import LineageCard, LineageLinks
from retrieval_core.models.vocabulary import Kind, Status

CREATED_AT = "2024-05-01T12:00:00Z"


class FakeGraph:
    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], list[Edge]] = defaultdict(list)
        self.calls: list[list[str]] = []

    @property
    def backend_calls(self) -> int:
        return len(self.calls)

    def link(
        self,
        ctx: str,
        a: str,
        b: str,
        proposition_id: str,
        status: Status = Status.ACTIVE,
        confidence: float | None = None,
    ) -> None:
        """An edge in both directions, as the loader writes for a proposition mentioning ``a`` and ``b``."""
        for start, end in ((a, b), (b, a)):
            self.add_raw_edge(ctx, start, end, proposition_id, status, confidence)

    def add_raw_edge(
        self,
        ctx: str,
        start: str,
        end: str,
        proposition_id: str,
        status: Status = Status.ACTIVE,
        confidence: float | None = None,
    ) -> None:
        edge = Edge(
            from_id=start,
            to_id=end,
            proposition_id=proposition_id,
            status=status,
            confidence=confidence,
            created_at=CREATED_AT,
        )
        self.rows[(ctx, start)].append(edge)

    def neighbours(
        self, context_id: str, entity_ids: Sequence[str], statuses: Sequence[Status]
    ) -> dict[str, list[Edge]]:
        self.calls.append(list(entity_ids))
        return {
            entity: [e for e in self.rows.get((context_id, entity), []) if e.status in statuses]
            for entity in entity_ids
        }


class FakeItems:
    def __init__(self) -> None:
        self.hits: dict[tuple[str, str], Hit] = {}
        self.calls: list[list[str]] = []

    def add(
        self,
        ctx: str,
        item_id: str,
        text: str | None = None,
        kind: Kind = Kind.PROPOSITION,
        status: Status = Status.ACTIVE,
        confidence: float | None = None,
        *,
        mentions: Sequence[str] = (),
        source_ids: Sequence[str] = (),
        supersedes: Sequence[str] = (),
        grounding: Sequence[dict] = (),
    ) -> None:
        """The item's document as a hit, saying what its rows say: ``mentions`` are added to those it
        has (a proposition carrying several edges mentions every end); its links as its card has them."""
        before = self.hits.get((ctx, item_id))
        named = [*(m.entity_id for m in before.mentions), *mentions] if before else list(mentions)
        self.hits[(ctx, item_id)] = Hit(
            id=item_id,
            kind=kind,
            text=text or f"text of {item_id}",
            score=0.0,
            status=status,
            confidence=confidence,
            created_at=CREATED_AT,
            mentions=[MentionView(entity_id=e, name=e, type="thing") for e in dict.fromkeys(named)],
            provenance=Provenance(
                source_ids=list(source_ids),
                supersedes=list(supersedes),
                grounding_uris=[g["uri"] for g in grounding if g.get("uri")],
            ),
        )

    def get_items(self, context_id: str, ids: Iterable[str], *, where: object = None) -> dict[str, Hit]:
        assert where is None, "this fake holds hits, not items: it cannot evaluate a filter"
        wanted = list(ids)
        self.calls.append(wanted)
        return {i: self.hits[(context_id, i)] for i in wanted if (context_id, i) in self.hits}


class FakeLineage:
    def __init__(self) -> None:
        self.card_rows: dict[tuple[str, str], LineageCard] = {}
        self.link_rows: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(
            lambda: {"derived_to": [], "superseded_by": [], "contradicted_by": []}
        )
        self.calls: list[tuple[str, list[str]]] = []

    @property
    def backend_calls(self) -> int:
        return len(self.calls)

    def add(
        self,
        ctx: str,
        item_id: str,
        source_ids: Sequence[str] = (),
        supersedes: Sequence[str] = (),
        contradicts: Sequence[str] = (),
        grounding: Sequence[dict] = (),
        kind: Kind = Kind.PROPOSITION,
    ) -> None:
        """The item's card plus a reverse link on every item it points at, as the loader writes them."""
        self.card_rows[(ctx, item_id)] = LineageCard(
            id=item_id,
            kind=kind,
            status=Status.ACTIVE,
            created_at=CREATED_AT,
            source_ids=list(source_ids),
            grounding=list(grounding),
            supersedes=list(supersedes),
            contradicts=list(contradicts),
        )
        for field, targets in (
            ("derived_to", source_ids),
            ("superseded_by", supersedes),
            ("contradicted_by", contradicts),
        ):
            for target in targets:
                self.add_raw_link(ctx, target, field, item_id)

    def add_raw_link(self, ctx: str, item_id: str, field: str, other_id: str) -> None:
        self.link_rows[(ctx, item_id)][field].append(other_id)

    def item_with_links(self, context_id: str, item_id: str) -> tuple[LineageCard, LineageLinks] | None:
        self.calls.append(("item_with_links", [item_id]))
        card = self.card_rows.get((context_id, item_id))
        if card is None:
            return None
        return card, LineageLinks(**self.link_rows.get((context_id, item_id), {}))

    def cards(self, context_id: str, ids: Sequence[str]) -> dict[str, LineageCard]:
        self.calls.append(("cards", list(ids)))
        return {i: self.card_rows[(context_id, i)] for i in ids if (context_id, i) in self.card_rows}
