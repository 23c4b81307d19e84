"""A page's heading path is searched and embedded with each of its chunks, and never returned as their
text: a question naming a page's title finds the page's chunks though their text never repeats it."""

from __future__ import annotations

from retrieval_core.config import Settings

from dev.ingest_resources import IngestResources
from tests.integration.test_documents_stack import docs, put, retrieve

__all__ = ["docs"]  # the fixture, shared with the documents tests

PAGE = b"""# Rosslyn Observatory

It was built on the ridge above the village in 1871. Its dome was turned by hand until electric motors
came in 1923.

## Instruments

A refracting telescope of eight inches stands under the dome, beside a transit instrument that timed the
stars for the village clock until the observatory closed.
"""
OTHER = b"""# Harbour Lighthouse

It was built on the rocks in 1871 and its lamp was turned by clockwork.
"""
UNTITLED = b"It was built on the ridge in 1871 and turned by hand, as the story of the dome goes.\n"


def test_the_title_finds_the_page_whose_text_never_names_it(docs: tuple[Settings, IngestResources]) -> None:
    settings, resources = docs
    put(resources, settings, "contexts/acme/rosslyn.md", PAGE)
    put(resources, settings, "contexts/acme/harbour.md", OTHER)
    put(resources, settings, "contexts/acme/untitled.txt", UNTITLED)
    for mode in ("lexical", "vector", "hybrid"):
        hits = retrieve({"mode": mode, "text": "Rosslyn Observatory", "top_k": 5, "diversify": False})
        assert hits[0]["id"].startswith("acme:doc/rosslyn.md#"), (mode, [h["id"] for h in hits])
    lexical = retrieve({"mode": "lexical", "text": "Rosslyn Observatory instruments", "top_k": 5})
    # The subsection's chunk carries the whole heading path: the page's title and its own heading.
    assert lexical[0]["location"]["section"] == "Rosslyn Observatory > Instruments"
    assert "Rosslyn" not in lexical[0]["text"] and lexical[0]["text"].startswith("A refracting telescope")
    # A file without a heading is searched by its text alone.
    assert "acme:doc/untitled.txt#0000" not in [
        h["id"] for h in retrieve({"mode": "lexical", "text": "Rosslyn Observatory", "top_k": 5})
    ]
