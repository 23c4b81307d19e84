"""A sync's pre-pass: the page titles of the files it is about to send, read before any is indexed, so a
chunk naming a page later in the folder mentions it at its first write instead of being re-written by
the page's back-link (``retrieval_core.documents.expected_pages``; docs/DOCUMENTS.md, "Pages are
entities"). Only what gives a title is read: the file parsed (no chunking, no embedding), its first
block's heading taken by ``documents.pages.heading_title``, as the index takes the first chunk's. A
title read wrong costs no link: a page expected that its file does not index is unlinked again."""

from __future__ import annotations

from collections.abc import Iterable

TITLED = frozenset({"markdown", "restructuredtext", "asciidoc", "html", "xml", "docx"})
"""The formats whose pages open with a heading a parse alone gives (a PDF's or a sheet's title, if any,
is back-linked as before: parsing them is the costly part of their indexing)."""


def page_title_of(key: str, body: bytes) -> str | None:
    """The title the file's page will have, as a parse of it gives (None: none, or it cannot be read)."""
    from retrieval_core.documents.errors import DocumentRejectedError
    from retrieval_core.documents.formats import format_of
    from retrieval_core.documents.limits import DOCUMENT_LIMITS
    from retrieval_core.documents.pages import heading_title
    from retrieval_core.documents.parsers import parse

    fmt = format_of(key)
    if fmt is None or fmt.value not in TITLED or not body.strip():
        return None
    try:
        parsed = parse(fmt, body, DOCUMENT_LIMITS)
    except DocumentRejectedError:  # it fails when indexed too: nothing to expect
        return None
    if parsed.navigation is not None or not parsed.blocks:
        return None
    return heading_title(parsed.blocks[0].section)


def expected_titles(files: Iterable[tuple[str, bytes]]) -> dict[str, str]:
    """Each titled file's title by key, in the order given (the order the sync sends them)."""
    return {key: title for key, body in files if (title := page_title_of(key, body)) is not None}
