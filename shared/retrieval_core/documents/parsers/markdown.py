"""Markdown: paragraphs under their heading path (ATX ``#`` headings; fenced code is never a heading),
offsets in the file's text. A heading's anchor is its explicit ``{#id}`` (Pandoc, Python-Markdown's
attribute lists), else the slug GitHub and MkDocs give it."""

from __future__ import annotations

import re

from ..limits import DocumentLimits
from ..parsed import Budget, ParsedDocument
from ..sidecar import RecordStructure
from .decoding import decoded_text
from .sections import GitHubSlugs, Heading, sectioned

HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
EXPLICIT_ID = re.compile(r"\s*\{[^}]*#([\w\-.:]+)[^}]*\}$")
FENCE = re.compile(r"^ {0,3}(```|~~~)")


def parse(data: bytes, limits: DocumentLimits, records: RecordStructure | None = None) -> ParsedDocument:
    text = decoded_text(data)
    Budget(limits).spend(text)
    return ParsedDocument(sectioned(text, _headings(text)))


def _headings(text: str) -> list[Heading]:
    headings: list[Heading] = []
    slugs = GitHubSlugs()
    position, fenced = 0, False
    for line in text.splitlines(keepends=True):
        if FENCE.match(line):
            fenced = not fenced
        found = None if fenced else HEADING.match(line.rstrip("\r\n"))
        if found:
            title = found.group(2).strip()
            explicit = EXPLICIT_ID.search(title)
            if explicit:
                title = title[: explicit.start()].strip()
            if not title:
                position += len(line)
                continue
            anchor = explicit.group(1) if explicit else slugs(title)
            headings.append(Heading(position, position + len(line), len(found.group(1)), title, anchor))
        position += len(line)
    return headings
