"""Which entity a file is about: a page that opens with a title (a Markdown ``# Title``, an HTML
``<h1>``, a DOCX title) is about the thing its title names (docs/DOCUMENTS.md, "Pages are entities")."""

from __future__ import annotations

from collections.abc import Sequence

from ..models.page_titles import ABOUT_ROLE, PAGE_ENTITY_TYPE
from .chunking import Chunk
from .entities import entity_id_of


def page_title(chunks: Sequence[Chunk]) -> str | None:
    """The heading the file's first chunk sits under (the file opens with its title), if any."""
    return heading_title(chunks[0].section) if chunks else None


def heading_title(section: Sequence[str]) -> str | None:
    """The page title a file's first heading path gives: its top heading, whitespace folded (a sync's
    pre-pass reads it from the parse's first block, the index from the first chunk)."""
    if not section:
        return None
    return " ".join(section[0].split()) or None


def about_mention(context_id: str, title: str) -> dict[str, str]:
    """The mention every chunk of a page carries of the page's own entity: the same id a mention of
    the title elsewhere links to."""
    return {
        "entity_id": entity_id_of(context_id, title),
        "name": title[:256],
        "type": PAGE_ENTITY_TYPE,
        "role": ABOUT_ROLE,
    }
