"""HTML with the standard library's parser: the visible text of block elements in order, under the
heading path (h1-h6); scripts, styles and templates are left out. Offsets are in the extracted text."""

from __future__ import annotations

from html.parser import HTMLParser

from ..limits import DocumentLimits
from ..parsed import Block, Budget, ParsedDocument
from ..sidecar import RecordStructure
from .decoding import decoded_text

HIDDEN = frozenset({"script", "style", "template", "noscript", "head"})
HEADINGS = {f"h{n}": n for n in range(1, 7)}
BLOCKS = frozenset(
    {
        "p",
        "div",
        "li",
        "tr",
        "td",
        "th",
        "br",
        "section",
        "article",
        "blockquote",
        "pre",
        "table",
        "ul",
        "ol",
        "dd",
        "dt",
        "header",
        "footer",
        "main",
        "nav",
        "aside",
        "body",
        "title",
        *HEADINGS,
    }
)


class _Extractor(HTMLParser):
    def __init__(self, budget: Budget) -> None:
        super().__init__(convert_charrefs=True)
        self._budget = budget
        self._hidden = 0
        self._buffer: list[str] = []
        self._heading: int | None = None
        self.path: list[str] = []
        self.blocks: list[Block] = []
        self.length = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in HIDDEN:
            self._hidden += 1
        elif tag in BLOCKS:
            self._flush()
            self._heading = HEADINGS.get(tag, self._heading)

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in BLOCKS:
            if tag in HEADINGS and self._heading is not None:
                title = " ".join("".join(self._buffer).split())
                self._buffer = []
                if title:
                    self.path = [*self.path[: self._heading - 1], title]
                self._heading = None
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self._budget.spend(data)
            self._buffer.append(data)

    def close(self) -> None:
        super().close()
        self._flush()

    def _flush(self) -> None:
        if self._heading is not None:
            return  # a heading's text is the section name, not a block
        text = " ".join("".join(self._buffer).split())
        self._buffer = []
        if text:
            start = self.length
            self.blocks.append(Block(text, start, start + len(text), None, tuple(self.path)))
            self.length += len(text) + 2


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    extractor = _Extractor(Budget(limits))
    extractor.feed(decoded_text(data))
    extractor.close()
    return ParsedDocument(extractor.blocks)
