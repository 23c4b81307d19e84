"""How a packet reads: one header line, then one citable block per item, in the chosen shape.

Every block starts with its ``[S<n>]`` source label so the agent can cite it and later ask
``why_explain`` about it. Rendering is the single source of truth for size: the packer measures
exactly these strings.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from ..models.hits import Hit
from .options import Shape

ELLIPSIS = "…"
TASK_SHOWN_CHARS = 80


_BLANK_LINES = re.compile(r"\s*\n\s*\n\s*")
_ZWJ = "\u200d"
_JOINERS = frozenset(_ZWJ + "\ufe0e\ufe0f")  # zero-width joiner and variation selectors


def prefix(text: str, limit: int) -> str:
    """At most ``limit`` code points of ``text``, never splitting a base from its combining marks or
    a zero-width-joiner sequence (unless the whole prefix is one such cluster: then it is cut anyway)."""
    end = min(limit, len(text))
    cut = end
    while 0 < cut < len(text) and (
        unicodedata.combining(text[cut]) or text[cut] in _JOINERS or text[cut - 1] == _ZWJ
    ):
        cut -= 1
    return text[: cut or end]


def clip(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` code points, else a prefix of it marked with an ellipsis."""
    return text if len(text) <= limit else prefix(text, limit).rstrip() + ELLIPSIS


_NOT_IN_A_CITED_URI = re.compile(r"[\s<>]")
CITED_URI_CHARS = 300


def cited_uri(uri: str) -> str:
    """A URI as a packet shows it: no whitespace or angle brackets (an item's URI must not break out of
    its label or fake another block), at most ``CITED_URI_CHARS`` code points."""
    return clip(_NOT_IN_A_CITED_URI.sub("", uri), CITED_URI_CHARS)


_NOT_IN_A_CITED_SECTION = re.compile(r"[<>()\[\]]")
CITED_SECTION_CHARS = 120


def citation(hit: Hit) -> str:
    """Where a packet's label says an item is from: its section, then the link that opens it (its
    ``location.url``, else its URI): ``19.5. Shutting Down the Server, <https://host/page.html#ID>``.
    The section is one line with no brackets, so it cannot close the label or fake a URI."""
    location = hit.location
    if location is None:
        return ""
    link = f"<{cited_uri(location.url or location.uri)}>"
    section = " ".join(_NOT_IN_A_CITED_SECTION.sub(" ", location.section or "").split())
    return f"{clip(section, CITED_SECTION_CHARS)}, {link}" if section else link


class Layout:
    """Renders headers, item bodies and whole packets for one shape and task."""

    def __init__(self, shape: Shape, task: str | None, *, cite_uri: bool = False) -> None:
        self.shape = shape
        self._task = clip(" ".join(task.split()), TASK_SHOWN_CHARS) if task else ""
        self._cite_uri = cite_uri

    def header(self, n_items: int) -> str:
        noun = "item" if n_items == 1 else "items"
        line = f"Context packet: {n_items} {noun}"
        return f"{line} for: {self._task}" if self._task else line

    def text(self, blocks: Sequence[str]) -> str:
        """The whole packet: the header then the blocks (a blank line apart for passages)."""
        separator = "\n\n" if self.shape == "passages" else "\n"
        return separator.join([self.header(len(blocks)), *blocks])

    def block(self, hit: Hit, source_id: str, body: str) -> str:
        # The section and link go in the label's parentheses, where a model reads them as the citation.
        where = citation(hit) if self._cite_uri else ""
        if self.shape == "passages":
            cited = f", {where}" if where else ""
            return f"[{source_id}] ({hit.kind.value}, score {hit.score:.3g}{cited}) {body}".rstrip()
        return f"[{source_id}] {f'({where}) ' if where else ''}{body}".rstrip()

    def whole_body(self, text: str, sentences: Sequence[str]) -> str:
        """The item uncut: the full text for passages, the lead sentence for brief."""
        if self.shape == "passages":
            return self.passage(text)
        if not sentences:
            return ""
        return sentences[0] + (ELLIPSIS if len(sentences) > 1 else "")

    def truncation_source(self, text: str, sentences: Sequence[str]) -> str:
        """What a truncated body is a prefix of: the full text, or the lead sentence for brief."""
        if self.shape == "passages":
            return self.passage(text)
        return sentences[0] if sentences else ""

    @staticmethod
    def passage(text: str) -> str:
        """The text with blank lines closed up, so a blank line only ever separates two blocks and a
        hit cannot fake the start of another item's block."""
        return _BLANK_LINES.sub("\n", text.strip())

    @staticmethod
    def sentence_body(sentences: Sequence[str], kept: Iterable[int]) -> str:
        """The kept sentences in their original order, an ellipsis wherever sentences were left out."""
        parts: list[str] = []
        previous = -1
        for index in sorted(kept):
            if index != previous + 1:
                parts.append(ELLIPSIS)
            parts.append(sentences[index])
            previous = index
        if previous != len(sentences) - 1:
            parts.append(ELLIPSIS)
        return " ".join(parts)
