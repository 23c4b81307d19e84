"""Climbing the derived-from links of an item, one batched card read per level.

Backend calls grow with the depth, never with the number of ancestors. A source id without the caller's
prefix is never looked up, and a source whose card does not come back is simply absent.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ..backend_calls import CallMeter
from ..context import CallerContext
from ..models.lineage import LineageCard
from ..ports import LineageReader


@dataclass(frozen=True, slots=True)
class Ancestry:
    root: str
    levels: dict[str, int]
    """Every item reached, by the level it was first reached at (the root is 0)."""
    links: tuple[tuple[str, str], ...]
    """Distinct (child, source) derivation links between reached items, in discovery order."""
    fetched_levels: int
    truncated: bool
    """Some item at the last level has sources that were not read."""

    def shown(self, sources: Mapping[str, Collection[str]]) -> tuple[dict[str, int], list[tuple[str, str]]]:
        """Levels and links restricted to the visible items (``sources``: each one's source ids as its
        document says) still reachable from the root through them, by links their documents vouch for:
        a card is written before its document, so a link only a card names is another version's."""
        adjacency: dict[str, list[str]] = {}
        for child, source in self.links:
            if child in sources and source in sources and source in sources[child]:
                adjacency.setdefault(child, []).append(source)
        levels = {self.root: 0}
        frontier = [self.root]
        while frontier:
            next_frontier: list[str] = []
            for child in frontier:
                for source in adjacency.get(child, []):
                    if source not in levels:
                        levels[source] = levels[child] + 1
                        next_frontier.append(source)
            frontier = next_frontier
        links = [
            (child, source) for child in levels for source in adjacency.get(child, []) if source in levels
        ]
        return levels, links


def climb(
    lineage: LineageReader, caller: CallerContext, root: LineageCard, depth: int, meter: CallMeter
) -> Ancestry:
    levels = {root.id: 0}
    links: dict[tuple[str, str], None] = {}
    frontier = [root]
    fetched_levels = 0
    truncated = False
    for level in range(1, depth + 2):
        pairs = [
            (card.id, source)
            for card in frontier
            for source in card.source_ids
            if source != card.id and caller.owns(source)
        ]
        new = list(dict.fromkeys(source for _, source in pairs if source not in levels))
        links.update(dict.fromkeys(pair for pair in pairs if level <= depth or pair[1] in levels))
        if level > depth:
            truncated = bool(new)
            break
        if not new:
            break
        cards = lineage.cards(caller.context_id, new)
        meter.port_called(lineage)
        fetched_levels = level
        frontier = [cards[source] for source in new if source in cards and cards[source].id == source]
        levels.update(dict.fromkeys((card.id for card in frontier), level))
    return Ancestry(root.id, levels, tuple(links), fetched_levels, truncated)
