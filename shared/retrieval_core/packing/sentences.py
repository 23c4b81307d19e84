"""Sentence splitting and lexical relevance: the deterministic, model-free basis of ``compress``."""

from __future__ import annotations

import re
from collections.abc import Sequence

# A sentence ends at terminal punctuation followed by whitespace, or at a line break.
_BOUNDARY = re.compile(r"(?<=[.!?…。\uff01\uff1f])\s+|\s*\n\s*")  # incl. fullwidth ! and ?
_TERM = re.compile(r"\w+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "with",
    ]
)


def split_sentences(text: str) -> list[str]:
    """The text's sentences with whitespace collapsed, blanks left out."""
    return [" ".join(part.split()) for part in _BOUNDARY.split(text) if part and not part.isspace()]


def terms(text: str) -> frozenset[str]:
    """Case-folded word terms minus a few stopwords, so 'the' never makes a sentence relevant."""
    return frozenset(t for t in _TERM.findall(text.casefold()) if t not in _STOPWORDS)


def by_relevance(sentences: Sequence[str], task: str | None) -> list[int]:
    """Sentence indices, most task terms shared first; ties keep the earlier sentence first."""
    wanted = terms(task or "")
    overlap = [len(terms(s) & wanted) for s in sentences]
    return sorted(range(len(sentences)), key=lambda i: (-overlap[i], i))
