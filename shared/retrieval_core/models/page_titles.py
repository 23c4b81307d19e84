"""A page's title as the name of the thing the page is about (docs/DOCUMENTS.md, "Pages are entities").

The title becomes an entity of the context (type ``page``) and every chunk of the page carries an
``about`` mention of it; other pages' chunks that name the title (or an alias) mention it. Shared by the
ingest's dictionary matcher and ``auto``'s question linker, so a name links the same way in both.
"""

from __future__ import annotations

import re

PAGE_ENTITY_TYPE = "page"
SINGLE_NAME_TYPE = "single name"
"""A one-word name a document writes (``documents.name_rules``: "Zimbabwe" where no page is about it):
found in other texts only where they write it capitalised, as a page's title is."""
FILE_ENTITY_TYPE = "file"
"""The type of the mention every chunk of a file carries of the file itself (``FileRef.file_id``)."""
ABOUT_ROLE = "about"
"""The role of the mention a page's chunks carry of the page's own entity."""

MIN_ALIAS_CHARS = 3

_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")
"""A trailing parenthesised qualifier, as encyclopaedias disambiguate: "Maurice (film)"."""


def title_aliases(title: str) -> list[str]:
    """The other names a page's title answers to: the title without its parenthesised qualifier
    ("Maurice (film)" -> "Maurice"), without the place that qualifies it after a comma ("Leland, North
    Carolina" -> "Leland") and without a leading "The" ("The Beatles" -> "Beatles")."""
    stripped = title.strip()
    if not stripped.endswith(")") and ", " not in stripped and not stripped.lower().startswith("the "):
        return []  # most titles: no qualifier, no comma, no article (a dictionary adds a million of them)
    found: list[str] = []
    bare = _QUALIFIER.sub("", title).strip()
    if bare != title.strip():
        found.append(bare)
    head, comma, _ = bare.partition(", ")
    if comma and head:
        found.append(head)
    for name in (title.strip(), *found):
        if name.lower().startswith("the ") and len(name) > 4:
            found.append(name[4:])
    return [a for a in dict.fromkeys(found) if len(a) >= MIN_ALIAS_CHARS and a != title]
