"""A paged file's running headers and footers (a chapter title and page number on every page, a
copyright line at every foot): among the first and last few lines of each page, those that recur,
numbers aside, at that edge of most pages, and those that carry the page's printed number (a number
ending a page's first or last line that keeps one distance from the page's index on most pages:
"Chapter 3: Utilities 7" on page 10, "8" on page 11). They are blanked (replaced by spaces), not cut,
so every offset into the page's text, and the page itself, stay as extracted."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

EDGE_LINES = 2
"""How many lines at a page's top and at its bottom may be running lines."""
MOST_PAGES = 0.5
"""A shape (or a page-number distance) counts when it is found on more than this share of the pages."""
MIN_PAGES = 3
DIGITS = re.compile(r"\d+")
PAGE_NUMBER = re.compile(r"(?:^|\s)(\d{1,4})\s*$")
"""A number ending the line (or the whole line): where running heads print the page's number."""

Edge = tuple[str, str]
"""(top or bottom, the line's shape)."""


def without_running_lines(pages: Sequence[str]) -> list[str]:
    """``pages`` with their running lines blanked; unchanged when too few pages to tell."""
    if len(pages) < MIN_PAGES:
        return list(pages)
    edges = [_edges(text) for text in pages]
    shapes: Counter[Edge] = Counter()
    distances: Counter[int] = Counter()
    for index, found in enumerate(edges):
        shapes.update({edge for _, edge, _ in found})
        distances.update({number - index for _, _, number in found if number is not None})
    most = MOST_PAGES * len(pages)
    running = {edge for edge, seen in shapes.items() if seen > most}
    distance, seen = distances.most_common(1)[0] if distances else (None, 0)
    printed = distance if seen > most else None
    return [
        _blanked(text, [i for i, edge, n in found if edge in running or _is_page(n, index, printed)])
        for index, (text, found) in enumerate(zip(pages, edges, strict=True))
    ]


def _edges(text: str) -> list[tuple[int, Edge, int | None]]:
    """A page's top and bottom lines (non-blank): each line's index, edge and shape, and for its
    outermost two, the number ending the line (a printed page number, perhaps: "1 Introduction"
    below it never is one)."""
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    depth = EDGE_LINES if len(filled) > 2 * EDGE_LINES else 1  # a short page: its outermost lines only
    top, bottom = filled[:depth], [i for i in filled[-depth:] if i not in filled[:depth]]
    outer = {filled[0], filled[-1]} if filled else set()
    return [
        (i, (edge, _shape(lines[i])), _number(lines[i]) if i in outer else None)
        for edge, at in (("top", top), ("bottom", bottom))
        for i in at
    ]


def _shape(line: str) -> str:
    """A line as it repeats: whitespace collapsed, every number the same (page numbers differ)."""
    return DIGITS.sub("#", " ".join(line.split()))


def _number(line: str) -> int | None:
    found = PAGE_NUMBER.search(line)
    return None if found is None else int(found.group(1))


def _is_page(number: int | None, index: int, printed: int | None) -> bool:
    return printed is not None and number is not None and number - index == printed


def _blanked(text: str, indexes: list[int]) -> str:
    lines = text.split("\n")
    for index in indexes:
        lines[index] = " " * len(lines[index])
    return "\n".join(lines)
