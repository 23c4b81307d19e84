"""``why_explain``: an item with its derivation DAG, grounding, supersession and contradictions.

Round trips: one Query for the item's card and reverse links, one batched card read per ancestor level,
one text read for everything shown. Foreign and missing items raise the same ``ItemNotFoundError``; a
link that leaves the caller's context, or whose target no longer exists, is left out without a trace.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..backend_calls import CallMeter
from ..context import CallerContext
from ..models.hits import Hit, Provenance
from ..models.lineage import LineageCard
from ..ports import ItemReader, LineageReader
from .ancestry import climb
from .errors import ItemNotFoundError
from .models import (
    AncestorView,
    AppliedLineageLimits,
    Derivation,
    DerivedFrom,
    GroundingView,
    ItemView,
    LineageExploration,
    WhyExplainRequest,
    WhyExplainResponse,
)


def why_explain(
    lineage: LineageReader, items: ItemReader, caller: CallerContext, request: WhyExplainRequest
) -> WhyExplainResponse:
    meter = CallMeter(lineage, items)
    item_id = request.item_id
    if not caller.owns(item_id):
        raise ItemNotFoundError()
    found = lineage.item_with_links(caller.context_id, item_id)
    meter.port_called(lineage)
    if found is None or found[0].id != item_id:
        raise ItemNotFoundError()
    card, links = found

    ancestry = climb(lineage, caller, card, request.depth, meter)
    supersedes = _owned(caller, card.supersedes, item_id)
    superseded_by = _owned(caller, links.superseded_by, item_id)
    contradicts = _owned(caller, [*card.contradicts, *links.contradicted_by], item_id)
    wanted = list(dict.fromkeys([*ancestry.levels, *supersedes, *superseded_by, *contradicts]))
    fetched = items.get_items(caller.context_id, wanted)
    meter.port_called(items)
    hits = {item: fetched[item] for item in wanted if item in fetched}
    if item_id not in hits:
        raise ItemNotFoundError()

    # The document is an update's commit point (its card and rows are written before it): what is shown
    # beside its text is what it vouches for, never a card or a link of another version of the item.
    levels, derivations = ancestry.shown({item: hit.provenance.source_ids for item, hit in hits.items()})
    supersedes = [other for other in supersedes if other in hits[item_id].provenance.supersedes]
    superseded_by = [other for other in superseded_by if item_id in _said(hits, other).supersedes]
    grounded = _grounding(card, hits[item_id].provenance)
    nodes = sorted((item for item in levels if item != item_id), key=lambda item: (levels[item], item))
    return WhyExplainResponse(
        item=ItemView.of(hits[item_id]),
        derived_from=DerivedFrom(
            nodes=[AncestorView(**ItemView.of(hits[n]).model_dump(), level=levels[n]) for n in nodes],
            edges=[Derivation(from_id=child, to_id=source) for child, source in derivations],
        ),
        grounding=[GroundingView(**g) for g in grounded if caller.owns(str(g.get("chunk_id", "")))],
        supersedes=_views(supersedes, hits),
        superseded_by=_views(superseded_by, hits),
        contradicts=_views(contradicts, hits),
        derived_count=len(_owned(caller, links.derived_to, item_id)),
        explored=LineageExploration(
            levels=ancestry.fetched_levels,
            backend_calls=meter.total,
            round_trips=meter.round_trips,
            truncated=ancestry.truncated,
        ),
        applied=AppliedLineageLimits(depth=request.depth),
    )


def _owned(caller: CallerContext, ids: Iterable[str], item_id: str) -> list[str]:
    """Distinct in-context ids other than the item itself, in order."""
    return [other for other in dict.fromkeys(ids) if other != item_id and caller.owns(other)]


def _grounding(card: LineageCard, said: Provenance) -> list[dict[str, Any]]:
    """The card's grounding spans the document vouches for: all of them when the card is the document's
    version (the same sources, supersessions and grounding URIs), else those at a URI it names."""
    uris = [uri for g in card.grounding if (uri := g.get("uri"))]
    agrees = (card.source_ids, card.supersedes, uris) == (
        said.source_ids,
        said.supersedes,
        said.grounding_uris,
    )
    return [g for g in card.grounding if agrees or g.get("uri") in said.grounding_uris]


def _said(hits: dict[str, Hit], item_id: str) -> Provenance:
    """What ``item_id``'s document says of its links (nothing when it is not shown)."""
    return hits[item_id].provenance if item_id in hits else Provenance()


def _views(ids: list[str], hits: dict[str, Hit]) -> list[ItemView]:
    return [ItemView.of(hits[item]) for item in ids if item in hits]
