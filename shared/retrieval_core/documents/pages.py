"""Which entity a file is about: a page that opens with a title (a Markdown ``# Title``, an HTML
``<h1>``, a DOCX title) is about the thing its title names (docs/DOCUMENTS.md, "Pages are entities")."""

from __future__ import annotations

from collections.abc import Sequence

from ..models.page_titles import ABOUT_ROLE, PAGE_ENTITY_TYPE
from .chunking import Chunk
from .entities import entity_id_of


def page_title(chunks: Sequence[Chunk]) -> str | None:
    """The heading the file's first chunk sits under (the file opens with its title), if any."""
    if not chunks or not chunks[0].section:
        return None
    title = " ".join(chunks[0].section[0].split())
    return title or None


def about_mention(context_id: str, title: str) -> dict[str, str]:
    """The mention every chunk of a page carries of the page's own entity: the same id a mention of
    the title elsewhere links to."""
    return {
        "entity_id": entity_id_of(context_id, title),
        "name": title[:256],
        "type": PAGE_ENTITY_TYPE,
        "role": ABOUT_ROLE,
    }
