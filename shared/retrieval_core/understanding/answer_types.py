"""The answer type: which type of entity a question asks for ("Who ..." a person, "Which customers ..."
a customer), read against the types the caller's own entities have.

A question that asks for a type and names an entity wants the entity's items that also name one of that
type: "Which customers does Ines Moreau manage?" is answered by the items mentioning her beside a
customer, not by her HR record, which matches the question's words better. Only types the context's
dictionary holds are read (a "which HR records" asks for a kind of item, not a type of entity), and the
first asking phrase alone: "What did Dmitri Volkov deploy" asks for nothing typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .linker import TYPE_WORDS
from .spans import Span

PERSON_WORDS = ("person", "people", "employee", "user", "contact", "member", "staff", "human")
"""Type names a "who" question asks for, the first one the context's dictionary holds."""

NAMED, CALLED, WHO = 1.0, 0.8, 0.8
"""Confidence of a type named as the dictionary spells it ("which customers": ``Customer``), by a word
for it ("which clients"), and of "who" read as a person."""

_ASKING = re.compile(r"\b(?:(?P<who>who(?:m|se)?)|(?:which|what)\s+(?P<noun>[^\W\d_][\w-]*))\b", re.I)


@dataclass(frozen=True, slots=True)
class AnswerType:
    span: Span
    type: str
    """As the caller's dictionary spells it (``Customer``)."""
    confidence: float


def answer_type(question: str, types: Iterable[str]) -> AnswerType | None:
    """The type the question's first asking phrase asks for, if the context has entities of it."""
    match = _ASKING.search(question)
    if match is None:
        return None
    known = {name.casefold(): name for name in types}
    span = Span(match.start(), match.end(), match.group(0))
    if match.group("who"):
        person = next((known[word] for word in PERSON_WORDS if word in known), None)
        return None if person is None else AnswerType(span, person, WHO)
    noun = singular(match.group("noun").casefold())
    if noun in known:
        return AnswerType(span, known[noun], NAMED)
    called = next((kind for kind, words in TYPE_WORDS.items() if noun in words and kind in known), None)
    return None if called is None else AnswerType(span, known[called], CALLED)


def singular(word: str) -> str:
    """English plural to singular, for the nouns a question asks for (``services``, ``companies``)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word
