"""Headings as a stack: each block's section path is the headings actually above it, whatever level a
page starts at, and its anchor is the one a URL fragment opens (the heading's ``id``, or the nearest
anchor of its section). Pages of the shapes DocBook, Sphinx, MkDocs and Javadoc write
(tests/document_fixtures.py), each block against a hand-written expectation."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from retrieval_core.documents.chunk_items import FileRef, chunk_items
from retrieval_core.documents.chunking import (
    DEFAULT_CHUNKING,
    FLOOR_TOKENS,
    Chunk,
    ChunkingConfig,
    chunk_document,
)
from retrieval_core.documents.formats import DocumentFormat
from retrieval_core.documents.limits import DOCUMENT_LIMITS
from retrieval_core.documents.parsed import Block, ParsedDocument
from retrieval_core.documents.parsers import parse
from retrieval_core.models.text_window import estimate_tokens

from tests import document_fixtures as fixtures

NUMERIC = "8.1. Numeric Types"
DOCBOOK = [
    ("Numeric types consist of", (NUMERIC,), "DATATYPE-NUMERIC"),
    ("The types smallint", (NUMERIC, "8.1.1. Integer Types"), "DATATYPE-INT"),
    ("Integer overflow raises", (NUMERIC, "8.1.1. Integer Types", "Note"), "DATATYPE-INT"),
    ("The type integer is", (NUMERIC, "8.1.1. Integer Types"), "DATATYPE-INT"),  # after the note
    ("The type numeric can", (NUMERIC, "8.1.2. Arbitrary Precision Numbers"), "DATATYPE-NUMERIC-DECIMAL"),
    ("The data types smallserial", (NUMERIC, "8.1.4. Serial Types"), "DATATYPE-SERIAL"),
]
STARTED, SOURCES = "Getting Started", "Setting up the sources"
SPHINX = [
    ("Sphinx is a documentation", (STARTED,), "getting-started"),
    ("The root directory", (STARTED, SOURCES), "setting-up"),
    ("builder", (STARTED, SOURCES), "setting-up"),  # a glossary term's permalink sign is no text
    ("A class that turns", (STARTED, SOURCES), "setting-up"),
    ("It holds the configuration", (STARTED, SOURCES, "The conf.py file"), "conf-py"),
    ("Back in the section", (STARTED, SOURCES), "setting-up"),
    ("Run sphinx-build", (STARTED, "Running the build"), "running-the-build"),
]
MKDOCS = [  # headings in running text: an h3 under the h1, the next h3 its sibling, the h2 after it too
    ("The tool installs", ("Install",), "install"),
    ("Run pip install", ("Install", "With pip"), "with-pip"),
    ("Clone the repository", ("Install", "From source"), "from-source"),
    ("Upgrades keep", ("Install", "Upgrading"), "upgrading"),
]
CLASS, DETAILS = "Class ArrayList<E>", "Method Details"
JAVADOC = [
    ("Package java.util", (), None),
    ("Resizable-array", (CLASS,), "class-description"),  # the title has no id: the one before the text
    ("public void trimToSize()", (CLASS, DETAILS, "trimToSize"), "trimToSize()"),
    ("Trims the capacity", (CLASS, DETAILS, "trimToSize"), "trimToSize()"),
    ("public boolean add(E e)", (CLASS, DETAILS, "add"), "add(E)"),  # a sibling, not under trimToSize
    ("Appends the specified", (CLASS, DETAILS, "add"), "add(E)"),
    ("Parameters:", (CLASS, DETAILS, "add"), "add(E)"),
    ("e - element to be appended", (CLASS, DETAILS, "add"), "add(E)"),
]
JAVADOC8 = [  # the anchors are the empty <a name> before each member's list
    ("java.util", (), "navbar.top"),  # no heading anchor: the last anchor above (the page's top)
    ("Resizable-array", ("Class ArrayList<E>",), "navbar.top"),
    ("public void trimToSize()", ("Class ArrayList<E>", "Method Detail", "trimToSize"), "trimToSize--"),
    ("Trims the capacity", ("Class ArrayList<E>", "Method Detail", "trimToSize"), "trimToSize--"),
    ("public boolean add(E e)", ("Class ArrayList<E>", "Method Detail", "add"), "add-E-"),
    ("Appends the specified", ("Class ArrayList<E>", "Method Detail", "add"), "add-E-"),
]


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (fixtures.DOCBOOK_PAGE, DOCBOOK),
        (fixtures.SPHINX_PAGE, SPHINX),
        (fixtures.MKDOCS_PAGE, MKDOCS),
        (fixtures.JAVADOC_PAGE, JAVADOC),
        (fixtures.JAVADOC8_PAGE, JAVADOC8),
    ],
    ids=["docbook", "sphinx", "mkdocs", "javadoc", "javadoc8"],
)
def test_every_html_block_has_the_headings_above_it_and_their_anchor(
    page: bytes, expected: list[tuple[str, tuple[str, ...], str | None]]
) -> None:
    parsed = parse(DocumentFormat.HTML, page, DOCUMENT_LIMITS)
    assert parsed.navigation is None
    assert [
        (b.text[: len(text)], b.section, b.anchor)
        for b, (text, _, _) in zip(parsed.blocks, expected, strict=True)
    ] == expected


def test_each_chunk_keeps_its_section_and_anchor_and_its_item_stores_both() -> None:
    parsed = parse(DocumentFormat.HTML, fixtures.DOCBOOK_PAGE, DOCUMENT_LIMITS)
    chunks = chunk_document(parsed, DEFAULT_CHUNKING, window=256)
    serial = next(c for c in chunks if "smallserial" in c.text)
    assert (serial.section, serial.anchor) == ((NUMERIC, "8.1.4. Serial Types"), "DATATYPE-SERIAL")
    file = FileRef("acme", "bucket", "contexts/acme/datatype-numeric.html", "datatype-numeric.html", "v1")
    mentions = [[] for _ in chunks]
    items = chunk_items(
        file, chunks, metadata={}, mentions=mentions, vectors={}, created_at=datetime.now(UTC)
    )
    stored = items[chunks.index(serial)].grounding[0]
    assert (stored.section, stored.anchor) == (f"{NUMERIC} > 8.1.4. Serial Types", "DATATYPE-SERIAL")
    unanchored = chunk_items(
        file,
        [Chunk("No heading here.", 0, 16)],
        metadata={},
        mentions=[[]],
        vectors={},
        created_at=datetime.now(UTC),
    )
    assert unanchored[0].grounding[0].anchor is None


MARKDOWN = b"""## Install

Get the package.

### With pip {#pip}

Run pip install.

### From source

Clone it.

```
# not a heading
```

## Usage

#### Flags

Pass --verbose.

## Usage

Again, a second section of the same title.
"""


def test_markdown_sections_are_a_stack_with_their_explicit_or_github_anchors() -> None:
    blocks = parse(DocumentFormat.MARKDOWN, MARKDOWN, DOCUMENT_LIMITS).blocks
    assert [(b.text[:20], b.section, b.anchor) for b in blocks] == [
        ("Get the package.", ("Install",), "install"),
        ("Run pip install.", ("Install", "With pip"), "pip"),  # the explicit id, out of the title
        ("Clone it.", ("Install", "From source"), "from-source"),  # a sibling, not under "With pip"
        ("```\n# not a heading\n", ("Install", "From source"), "from-source"),
        ("Pass --verbose.", ("Usage", "Flags"), "flags"),  # a skipped level nests under the one above
        ("Again, a second sect", ("Usage",), "usage-1"),  # GitHub numbers a repeated slug
    ]


def test_docx_sections_are_a_stack_with_their_bookmarks() -> None:
    data = fixtures.docx(
        [
            ("h2:_Toc1", "Maintenance"),
            ("p", "Check weekly."),
            ("h3:_Toc2", "Hydraulics"),
            ("p", "Check the pressure."),
            ("h3", "Tyres"),
            ("p", "Replace them."),
            ("h2:_Toc4", "Records"),
            ("p", "Log every check."),
        ]
    )
    blocks = parse(DocumentFormat.DOCX, data, DOCUMENT_LIMITS).blocks
    assert [(b.text, b.section, b.anchor) for b in blocks] == [
        ("Check weekly.", ("Maintenance",), "_Toc1"),
        ("Check the pressure.", ("Maintenance", "Hydraulics"), "_Toc2"),
        ("Replace them.", ("Maintenance", "Tyres"), None),  # no bookmark: no anchor, not its sibling's
        ("Log every check.", ("Records",), "_Toc4"),
    ]


def test_restructuredtext_and_asciidoc_sections_carry_the_ids_their_tools_give() -> None:
    rst = "Getting Started\n===============\n\nIntro.\n\nThe conf.py File\n----------------\n\nValues.\n"
    blocks = parse(DocumentFormat.RESTRUCTUREDTEXT, rst.encode(), DOCUMENT_LIMITS).blocks
    assert [(b.section, b.anchor) for b in blocks] == [
        (("Getting Started",), "getting-started"),
        (("Getting Started", "The conf.py File"), "the-conf-py-file"),
    ]
    adoc = "= User Guide\n\nOpening.\n\n[[setup]]\n== Set Up\n\nRun it.\n\n== Next Steps\n\nRead on.\n"
    blocks = parse(DocumentFormat.ASCIIDOC, adoc.encode(), DOCUMENT_LIMITS).blocks
    assert [(b.section, b.anchor) for b in blocks] == [
        (("User Guide",), "_user_guide"),
        (("User Guide", "Set Up"), "setup"),
        (("User Guide", "Next Steps"), "_next_steps"),
    ]


def _chunks(page: bytes) -> list[Chunk]:
    return chunk_document(parse(DocumentFormat.HTML, page, DOCUMENT_LIMITS), DEFAULT_CHUNKING, window=256)


def test_a_section_under_the_floor_joins_its_neighbour_under_the_heading_they_share() -> None:
    chunks = _chunks(fixtures.DOCBOOK_REFERENCE_PAGE)
    assert [(c.text.split("\n\n")[0][:30], c.section, c.anchor) for c in chunks] == [
        # the one-line name joins the synopsis after it, labelled with the page's title they share
        ("DECLARE \u2014 define a cursor", ("DECLARE",), "SQL-DECLARE"),
        ("DECLARE allows a user to creat", ("DECLARE", "Description"), "SQL-DECLARE-DESCRIPTION"),
        # a one-sentence section joins the subsection after it, under their shared "Notes"
        ("Normal cursors return data in ", ("DECLARE", "Notes"), "SQL-DECLARE-NOTES"),
    ]
    assert "CURSOR [ { WITH" in chunks[0].text and "holdable cursor" in chunks[2].text
    assert all(estimate_tokens(c.text) >= FLOOR_TOKENS for c in chunks)


def test_a_scrap_with_no_heading_in_common_or_on_another_page_stays_alone() -> None:
    lone = [
        Block("Short one.", 0, 10, None, ("A",), None, "a"),
        Block("Short two.", 12, 22, None, ("B",), None, "b"),
    ]
    assert [c.text for c in chunk_document(ParsedDocument(lone), DEFAULT_CHUNKING, window=256)] == [
        "Short one.",
        "Short two.",
    ]
    paged = [
        Block("Short one.", 0, 10, 1, ("A",), None, "a"),
        Block("Short two.", 0, 10, 2, ("A",), None, "a"),
    ]
    assert len(chunk_document(ParsedDocument(paged), DEFAULT_CHUNKING, window=256)) == 2


def test_a_long_section_never_ends_in_a_scrap() -> None:
    sentence = "The tide gauge records the water level every six minutes at the harbour wall."
    text = " ".join([sentence] * 20) + " It rained."
    block = Block(text, 0, len(text), None, ("Harbour",), None, "harbour")
    config = ChunkingConfig(max_tokens=100)
    chunks = chunk_document(ParsedDocument([block]), config, window=256)
    assert len(chunks) >= 2 and all(estimate_tokens(c.text) <= 100 for c in chunks)
    assert estimate_tokens(chunks[-1].text) >= FLOOR_TOKENS and chunks[-1].text.endswith("It rained.")
    assert " ".join(c.text for c in chunks) == text  # whole sentences moved, none lost or repeated
    overlapping = chunk_document(
        ParsedDocument([block]), ChunkingConfig(max_tokens=100, overlap_percent=20), window=256
    )
    assert overlapping[-1].text.endswith("It rained.")


def test_scraps_join_the_nearer_relative_and_leave_a_section_that_stands_alone_its_label() -> None:
    chunks = _chunks(fixtures.DOCBOOK_PAGE)
    assert [(c.text.split("\n\n")[0][:20], c.section, c.anchor) for c in chunks] == [
        ("Numeric types consis", (NUMERIC,), "DATATYPE-NUMERIC"),
        # 8.1.1's sentence, its note, its last sentence and 8.1.2 (a tie: it continues the one before)
        ("The types smallint, ", (NUMERIC,), "DATATYPE-INT"),
        ("The data types small", (NUMERIC, "8.1.4. Serial Types"), "DATATYPE-SERIAL"),  # not joined into
    ]
    assert chunks[1].text.split("\n\n")[-1].startswith("The type numeric can store")
