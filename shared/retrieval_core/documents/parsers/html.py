"""HTML with the standard library's parser: the visible text of block elements in order, under the
heading path (h1-h6); scripts, styles and templates are left out, and so is the page's chrome, so
navigation never becomes evidence (docs/DOCUMENTS.md, "Content, not chrome"):

- ``nav``, ``aside``, and ``header``/``footer`` outside an ``article``/``main`` (where they are the
  content's own title and notes), with everything inside them;
- any element whose ``role`` is navigation, banner, contentinfo, complementary or search, or whose
  class or id names chrome (``breadcrumb``, ``navheader``, ``sidebar``, texinfo's ``header``...);
- a block that is mostly link text (a breadcrumb, "Next: ... Previous: ... Up: ...", a link list).

Offsets are in the extracted text."""

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
CHROME_TAGS = frozenset({"nav", "aside"})
PAGE_CHROME_TAGS = frozenset({"header", "footer"})
"""Chrome of the page, unless inside the content (``article``, ``main``)."""
CONTENT_TAGS = frozenset({"article", "main"})
CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search"})
CHROME_NAMES = frozenset(
    {
        "breadcrumb",
        "breadcrumbs",
        "nav",
        "navbar",
        "navigation",
        "navheader",
        "navfooter",
        "nav-panel",
        "header",
        "footer",
        "sidebar",
        "sphinxsidebar",
        "related",
        "skip-link",
        "toc",
        "mini-toc",
    }
)
LINK_SHARE = 0.6
"""A block whose text is at least this share links (and holds two or more) is a link list."""
LINK_ITEM_SHARE = 0.9
LIST_ITEMS = frozenset({"li", "dt", "dd", "td"})
"""An item of these that is (almost) only a link is an entry of a link list (a menu, a table of
contents)."""
VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "wbr", "col", "area", "base", "source"})


class _Extractor(HTMLParser):
    def __init__(self, budget: Budget, keep_chrome: bool) -> None:
        super().__init__(convert_charrefs=True)
        self._budget = budget
        self._keep_chrome = keep_chrome
        self._hidden = 0
        self._chrome: list[str] = []
        """The open elements since the outermost chrome one (it first): text inside is dropped."""
        self._content = 0
        self._buffer: list[str] = []
        self._links = 0
        self._link_chars = 0
        self._in_link = 0
        self._heading: int | None = None
        self._block = ""
        self.path: list[str] = []
        self.blocks: list[Block] = []
        self.length = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._chrome:
            if tag not in VOID:
                self._chrome.append(tag)
            return
        if not self._keep_chrome and self._is_chrome(tag, dict(attrs)):
            self._flush()
            self._chrome.append(tag)
            return
        self._content += tag in CONTENT_TAGS
        if tag in HIDDEN:
            self._hidden += 1
        elif tag == "a":
            self._in_link += 1
            self._links += 1
        elif tag in BLOCKS:
            self._flush()
            self._block = tag
            self._heading = HEADINGS.get(tag, self._heading)

    def handle_endtag(self, tag: str) -> None:
        if self._chrome:
            if tag in self._chrome:  # close up to it (HTML lets inner tags go unclosed)
                del self._chrome[len(self._chrome) - 1 - self._chrome[::-1].index(tag) :]
            return
        self._content -= tag in CONTENT_TAGS and self._content > 0
        if tag in HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag == "a":
            self._in_link = max(0, self._in_link - 1)
        elif tag in BLOCKS:
            if tag in HEADINGS and self._heading is not None:
                title = " ".join("".join(self._buffer).split())
                self._reset()
                if title:
                    self.path = [*self.path[: self._heading - 1], title]
                self._heading = None
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._hidden and not self._chrome:
            self._budget.spend(data)
            self._buffer.append(data)
            if self._in_link:
                self._link_chars += len(data.strip())

    def close(self) -> None:
        super().close()
        self._flush()

    def _is_chrome(self, tag: str, attrs: dict[str, str | None]) -> bool:
        if tag in CHROME_TAGS or (tag in PAGE_CHROME_TAGS and not self._content):
            return True
        if (attrs.get("role") or "").lower() in CHROME_ROLES:
            return True
        names = f"{attrs.get('class') or ''} {attrs.get('id') or ''}".lower().split()
        return any(name in CHROME_NAMES for name in names)

    def _flush(self) -> None:
        if self._heading is not None:
            return  # a heading's text is the section name, not a block
        text = " ".join("".join(self._buffer).split())
        link_list = self._is_link_list(len(text.replace(" ", "")))
        self._reset()
        if text and (self._keep_chrome or not link_list):
            start = self.length
            self.blocks.append(Block(text, start, start + len(text), None, tuple(self.path)))
            self.length += len(text) + 2

    def _is_link_list(self, characters: int) -> bool:
        if self._links >= 2 and self._link_chars >= LINK_SHARE * characters:
            return True
        return (
            self._block in LIST_ITEMS
            and self._links >= 1
            and self._link_chars >= LINK_ITEM_SHARE * characters
        )

    def _reset(self) -> None:
        self._buffer = []
        self._links = self._link_chars = 0


def parse(
    data: bytes, limits: DocumentLimits, records: RecordStructure | None = None, *, keep_chrome: bool = False
) -> ParsedDocument:
    """``keep_chrome``: the page as it was read before chrome was left out (measurement only)."""
    extractor = _Extractor(Budget(limits), keep_chrome)
    extractor.feed(decoded_text(data))
    extractor.close()
    return ParsedDocument(extractor.blocks)
