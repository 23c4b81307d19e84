"""Content, not chrome: HTML navigation (nav, aside, page header/footer, navigation roles, chrome class
names, link lists) stays out of the blocks; PDF running headers, footers and page numbers are blanked
in place, so the pages and every offset stay as extracted."""

from __future__ import annotations

from retrieval_core.documents.formats import DocumentFormat
from retrieval_core.documents.limits import DOCUMENT_LIMITS
from retrieval_core.documents.parsers import html, parse, pdf
from retrieval_core.documents.parsers.running_lines import without_running_lines

from tests import document_fixtures as fixtures

PAGE = b"""<html><body>
<header><a href="/">Home</a> <a href="/docs">Docs</a></header>
<nav><ul><li><a href="a.html">Alpha</a></li><li><a href="b.html">Beta</a></li></ul></nav>
<div class="header"><p>Next: <a href="n.html">Closure API</a>, Previous: <a href="p.html">Closure Example</a>,
Up: <a href="u.html">Using libffi</a> [<a href="i.html">Index</a>]</p></div>
<div role="navigation" aria-label="related"><a href="x">Prev</a> | <a href="y">Next</a></div>
<main><article><header><h1>Closures</h1></header>
<p>A closure wraps a function pointer so C code can call <a href="f.html">ffi_call</a> later.</p>
<ul><li><a href="one.html">First topic</a></li><li><a href="two.html">Second topic</a></li></ul>
<footer><p>Written for version 3.4.</p></footer></article></main>
<aside><p>Related reading</p></aside>
<div id="breadcrumbs">Docs &raquo; Closures</div>
<footer><p>Copyright 2026, the authors.</p></footer>
</body></html>"""


def test_html_chrome_stays_out_and_the_content_stays_in() -> None:
    blocks = parse(DocumentFormat.HTML, PAGE, DOCUMENT_LIMITS).blocks
    assert [(b.text, b.section) for b in blocks] == [
        ("A closure wraps a function pointer so C code can call ffi_call later.", ("Closures",)),
        ("Written for version 3.4.", ("Closures",)),  # an article's own footer is its content
    ]
    kept = [b.text for b in html.parse(PAGE, DOCUMENT_LIMITS, keep_chrome=True).blocks]
    assert "Next: Closure API, Previous: Closure Example, Up: Using libffi [Index]" in kept  # as before


def test_unclosed_tags_inside_chrome_do_not_leak_the_rest_of_the_page() -> None:
    page = b"<nav><ul><li>One<li>Two</ul><p>still nav</nav><p>The body text.</p>"
    assert [b.text for b in parse(DocumentFormat.HTML, page, DOCUMENT_LIMITS).blocks] == ["The body text."]


def test_running_heads_and_page_numbers_are_blanked_in_place() -> None:
    pages = [
        "Libtasn1\nA title page.",
        "1\n1 Introduction\nThis document describes the library.\nShared footer",
        "Chapter 1: Introduction 2\nMore about the library.\nShared footer",
        "3\n2 Parsing\nThe parser is case sensitive.\nShared footer",
        "Chapter 2: Parsing 4\nComments begin with two dashes.\nShared footer",
    ]
    cleaned = without_running_lines(pages)
    assert [len(a) for a in cleaned] == [len(b) for b in pages]  # offsets unchanged
    assert [" ".join(text.split()) for text in cleaned] == [
        "Libtasn1 A title page.",
        "1 Introduction This document describes the library.",  # a heading's number is not the page's
        "More about the library.",
        "2 Parsing The parser is case sensitive.",
        "Comments begin with two dashes.",
    ]
    assert without_running_lines(pages[:2]) == pages[:2]  # too few pages to tell


def test_a_pdf_keeps_its_pages_and_offsets_without_its_running_head() -> None:
    bodies = ["Open the valve slowly.", "Check the gauge twice.", "Section 3 explains the seal.", "Close up."]
    texts = [f"Field Manual {n}\n\n{body}" for n, body in enumerate(bodies, start=1)]
    parsed = parse(DocumentFormat.PDF, fixtures.pdf(texts), DOCUMENT_LIMITS)
    assert parsed.pages == 4 and [b.page for b in parsed.blocks] == [1, 2, 3, 4]
    assert all("Field Manual" not in b.text for b in parsed.blocks)
    assert parsed.blocks[2].text == "Section 3 explains the seal."
    raw = pdf.parse(fixtures.pdf(texts), DOCUMENT_LIMITS, keep_chrome=True)
    assert any("Field Manual" in b.text for b in raw.blocks)
    assert all(b.start >= a.start for a, b in zip(raw.blocks, parsed.blocks, strict=True))
