"""HTML with the standard library's parser: the visible text of block elements in order, under the
heading path (h1-h6); scripts, styles and templates are left out, and so is the page's chrome, so
navigation never becomes evidence (docs/DOCUMENTS.md, "Content, not chrome"):

- ``nav``, ``aside``, and ``header``/``footer`` outside an ``article``/``main`` (where they are the
  content's own title and notes), with everything inside them;
- any element whose ``role`` is navigation, banner, contentinfo, complementary or search, or whose
  class or id names chrome (``breadcrumb``, ``navheader``, ``sidebar``, ``footer``...);
- a block that is mostly link text (a breadcrumb, "Next: ... Previous: ... Up: ...", a link list).

The section path is a stack of the headings above a block, whatever level a page starts at (a page of
``<h2>`` and ``<h3>`` nests each ``<h3>`` under the ``<h2>`` before it, never under a sibling), each
with its anchor: the heading's ``id``, else one inside it (DocBook's ``<a name>``, a permalink's
``href="#..."``), else the last ``id``/``name`` opened since the text before it (a Sphinx ``<section
id>``, DocBook's section ``div``, Javadoc's ``<a name>`` before a member), else the nearest enclosing
``id``. A permalink's sign (Sphinx's and MkDocs' ``headerlink`` "¶") is not part of a title.

A page that is only navigation once its chrome is gone (a title and a table of contents, an index of
links) says so (``ParsedDocument.navigation``) and yields no block. Offsets are in the extracted text."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser
from typing import NamedTuple

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
PAGE_CHROME_NAMES = frozenset({"footer"})
"""Class names of chrome unless inside the content. ``header`` names none: Javadoc's and Doxygen's
``div.header`` holds the page's title, and texinfo's is a link list, left out as one."""
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
PERMALINK_NAMES = frozenset(
    {"headerlink", "anchor-link", "anchorlink", "permalink", "heading-anchor", "id_link"}
)
"""Classes of the link a generator puts in a heading to itself: its text is a sign, its ``href`` the
heading's anchor."""
PERMALINK_SIGNS = "¶§#🔗 \u00b6"
PAGE_LINKS = 20
INDEX_LINK_SHARE = 0.75
"""A page with ``PAGE_LINKS`` links or more whose text is at least this share link text is an index of
links (a back-of-book or generated API index, a contents page): navigation. So is one of at least
``LISTING_LINK_SHARE`` whose kept text is mostly not prose (a module index: names and a few words each),
where a front page of links between paragraphs of prose is not (measured on Sphinx's, Django's and
GLib's manuals: indexes 0.52-0.99 with under 15% prose, front pages 0.46-0.53 with ~90%)."""
LISTING_LINK_SHARE = 0.45
PROSE_SHARE = 0.5
PROSE_WORDS = 10
"""A kept block of this many words or more is prose (a sentence), not an entry of a list."""
TABLE_OF_CONTENTS = "only navigation once its chrome is left out (a title and a table of contents)"
INDEX_OF_LINKS = "only navigation: an index of links ({share:.0%} of its text is links)"
MAX_TITLE_PIECES = 64
VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "wbr", "col", "area", "base", "source"})


@dataclass(frozen=True, slots=True)
class _Heading:
    level: int
    title: str
    anchor: str | None
    opens: frozenset[int]
    """The elements the heading opens (no text in them before it: a ``section``, DocBook's ``div`` of a
    section or a note and its title wrappers, Javadoc's ``li`` of a member), by serial: the first of them
    to close after some text ends the section. None: a heading in running text (MkDocs, Markdown's HTML),
    which ends at the next heading of its level or above."""
    texts: int
    """The page's count of text pieces when the heading ended."""


class _Open(NamedTuple):
    tag: str
    anchor: str | None
    texts: int
    """The page's count of text pieces when the element opened."""
    serial: int


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
        self._anchor_elements: list[bool] = []
        """Each open ``a``: whether it is a link (has an ``href``), not only a target (``name``)."""
        self._heading: int | None = None
        self._block = ""
        self._open: list[_Open] = []
        """The open elements (outside chrome), outermost first."""
        self._texts = 0
        self._serial = 0
        self._in_title = False
        self._title: list[str] = []
        """The document's ``<title>``: a first heading it starts with is the page's title."""
        self._opens: frozenset[int] = frozenset()
        self._pending_anchor: str | None = None
        self._block_anchor: str | None = None
        """The last id or name opened before the current block's text: its anchor when its section has
        none (a page whose title carries no id, Sphinx's highlighted source pages)."""
        self._last_anchor: str | None = None
        self._texts_at_block = 0
        """The last id or name opened since the last block of text: a heading's anchor when it has none."""
        self._heading_anchor: str | None = None
        self._permalink = 0
        self.sections: list[_Heading] = []
        self.blocks: list[Block] = []
        self.length = 0
        self.dropped = 0
        """Characters of text left out as chrome or link lists."""
        self.text_chars = 0
        self.link_chars = 0
        self.links = 0
        self.kept_chars = 0
        self.prose_chars = 0
        """Over the page's text outside chrome and headings: what tells an index of links."""

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
        named = dict(attrs)
        visible = not self._hidden and tag not in HIDDEN
        anchor = (named.get("id") or (named.get("name") if tag == "a" else None)) if visible else None
        if tag not in VOID:
            self._serial += 1
            self._open.append(_Open(tag, anchor, self._texts, self._serial))
        self._in_title = self._in_title or tag == "title"
        if tag in HIDDEN:
            self._hidden += 1
        elif tag == "a":
            is_link = bool(named.get("href"))
            self._anchor_elements.append(is_link)
            self._in_link += is_link
            self._links += is_link
            if _is_permalink(named):
                self._permalink += 1
                href = named.get("href") or ""
                if self._heading is not None and href.startswith("#") and len(href) > 1:
                    anchor = anchor or href[1:]
        elif tag in BLOCKS:
            self._flush()
            self._block = tag
            if tag in HEADINGS:
                self._heading = HEADINGS[tag]
                self._heading_anchor = None
                self._opens = frozenset(e.serial for e in self._open[:-1] if e.texts == self._texts)
        if anchor:
            if self._heading is not None:
                self._heading_anchor = self._heading_anchor or anchor
            else:
                self._pending_anchor = self._last_anchor = anchor
                if self._texts == self._texts_at_block:  # before the block's text: where it opens
                    self._block_anchor = anchor

    def handle_endtag(self, tag: str) -> None:
        if self._chrome:
            if tag in self._chrome:  # close up to it (HTML lets inner tags go unclosed)
                del self._chrome[len(self._chrome) - 1 - self._chrome[::-1].index(tag) :]
            return
        self._content -= tag in CONTENT_TAGS and self._content > 0
        self._in_title = self._in_title and tag != "title"
        if tag in HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag == "a":
            self._in_link = max(
                0, self._in_link - (self._anchor_elements.pop() if self._anchor_elements else 0)
            )
            self._permalink = max(0, self._permalink - 1)
        elif tag in BLOCKS:
            if tag in HEADINGS and self._heading is not None:
                self._close_heading(self._heading)
            self._flush()
        if any(element.tag == tag for element in self._open):  # close up to it, as for chrome
            closed = set[int]()
            while (element := self._open.pop()).tag != tag:
                closed.add(element.serial)
            closed.add(element.serial)
            self._end_sections(closed)

    def handle_data(self, data: str) -> None:
        if self._in_title and len(self._title) < MAX_TITLE_PIECES:
            self._title.append(data)
        if self._hidden:
            return
        if self._chrome:
            self.dropped += len(data.strip())
        elif not self._permalink:
            self._budget.spend(data)
            self._buffer.append(data)
            self._texts += not data.isspace()
            if self._in_link:
                self._link_chars += len("".join(data.split()))

    def close(self) -> None:
        super().close()
        self._flush()

    def _close_heading(self, level: int) -> None:
        """The heading's title goes on the section stack, above every open section of its level or
        deeper; an empty heading changes nothing."""
        title = " ".join("".join(self._buffer).split()).rstrip(PERMALINK_SIGNS)
        self._reset()
        self._heading = None
        self._block_anchor, self._texts_at_block = self._last_anchor, self._texts
        if not title:
            return
        anchor = self._heading_anchor or self._pending_anchor or self._enclosing_anchor()
        if not self.sections and self._is_page_title(title):  # above every section of the page
            self.sections.append(_Heading(0, title, anchor, frozenset(), self._texts))
            self._pending_anchor = None
            return
        open_now = {element.serial for element in self._open}
        while self.sections and self.sections[-1].level >= level:
            if self._opens and self.sections[-1].opens & open_now:
                break  # the heading opens an element inside the open section's: under it, whatever its level
            self.sections.pop()
        self.sections.append(_Heading(level, title, anchor, self._opens, self._texts))
        self._pending_anchor = None

    def _is_page_title(self, title: str) -> bool:
        """Whether the page's first heading is its title (the ``<title>`` starts with it, as DocBook's,
        Sphinx's and GLib's do): every later heading is under it, those of its own level too (a DocBook
        reference page's ``<h2>`` name, then its ``<h2>`` Synopsis, Description...)."""
        document_title = " ".join("".join(self._title).split()).casefold()
        return bool(document_title) and document_title.startswith(title.casefold())

    def _end_sections(self, closed: set[int]) -> None:
        """The sections an element that just closed had opened end, with those under them, once some
        text followed their heading (a wrapper around the heading alone ends nothing)."""
        for position, heading in enumerate(self.sections):
            if heading.opens & closed and self._texts > heading.texts:
                self._flush()
                del self.sections[position:]
                return

    def _enclosing_anchor(self) -> str | None:
        return next((element.anchor for element in reversed(self._open) if element.anchor), None)

    def _is_chrome(self, tag: str, attrs: dict[str, str | None]) -> bool:
        if tag in CHROME_TAGS or (tag in PAGE_CHROME_TAGS and not self._content):
            return True
        if (attrs.get("role") or "").lower() in CHROME_ROLES:
            return True
        names = f"{attrs.get('class') or ''} {attrs.get('id') or ''}".lower().split()
        return any(
            name in CHROME_NAMES and not (self._content and name in PAGE_CHROME_NAMES) for name in names
        )

    def _flush(self) -> None:
        if self._heading is not None:
            return  # a heading's text is the section name, not a block
        text = " ".join("".join(self._buffer).split())
        characters = len(text.replace(" ", ""))
        link_list = self._is_link_list(characters)
        self.text_chars += characters
        self.link_chars += self._link_chars
        self.links += self._links
        self._reset()
        if not text:
            return
        self._pending_anchor = None
        block_anchor, self._block_anchor, self._texts_at_block = (
            self._block_anchor,
            self._last_anchor,
            self._texts,
        )
        if self._keep_chrome or not link_list:
            start = self.length
            section = tuple(heading.title for heading in self.sections)
            anchor = (self.sections[-1].anchor if self.sections else None) or block_anchor
            self.blocks.append(Block(text, start, start + len(text), None, section, None, anchor))
            self.length += len(text) + 2
            self.kept_chars += characters
            self.prose_chars += characters if text.count(" ") + 1 >= PROSE_WORDS else 0
        else:
            self.dropped += characters

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
    if keep_chrome:
        return ParsedDocument(extractor.blocks)
    if _is_index_of_links(extractor):
        share = extractor.link_chars / extractor.text_chars
        return ParsedDocument(navigation=INDEX_OF_LINKS.format(share=share))
    if not extractor.blocks and (extractor.dropped or extractor.sections):
        return ParsedDocument(navigation=TABLE_OF_CONTENTS)
    return ParsedDocument(extractor.blocks)


def _is_index_of_links(page: _Extractor) -> bool:
    if page.links < PAGE_LINKS or not page.text_chars:
        return False
    share = page.link_chars / page.text_chars
    prose = page.prose_chars / page.kept_chars if page.kept_chars else 0.0
    return share >= INDEX_LINK_SHARE or (share >= LISTING_LINK_SHARE and prose < PROSE_SHARE)


def _is_permalink(attrs: dict[str, str | None]) -> bool:
    return any(name in PERMALINK_NAMES for name in (attrs.get("class") or "").lower().split())
