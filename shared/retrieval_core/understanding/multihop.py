"""Whether a question reads as multi-hop: it asks for a relation of a thing it names ("the director of
Maurice", "Hello Love's performer"), compares named things ("born first, X or Y"), or nests one
description in another ("the country where the university ... is"). ``auto`` then follows links
between pages (``hops`` 2). Pure and cheap: a few patterns over the question's words, no model."""

from __future__ import annotations

import re

RELATION = re.compile(
    r"\bthe\s+(?:[a-z]+\s+){0,2}?(?:of|for|by|from|in|at|with)\s+(?:the\s+)?[A-Z0-9\"'\u201c]"
    r"|[A-Za-z0-9)][\u2019']s\s+(?![A-Z])[a-z]+",
)
"""A relation of a named thing: "the <role> of <Name>", "<Name>'s <role>"."""

COMPARISON = re.compile(
    r"\b(?:first|earlier|later|older|younger|longer|shorter|larger|smaller|bigger|higher|lower|more|less"
    r"|both|same|either)\b[^?]*\bor\b|\bor\b[^?]*\b(?:first|earlier|older|younger|both|same)\b"
    r"|\b(?:both|same|different)\b[^?]*\band\b|\band\b[^?]*\b(?:both|same|different)\b",
    re.IGNORECASE,
)
"""A comparison of two named things: "which was born first, X or Y", "are X and Y both ...", "X and Y
of the same ..."."""

COMPARED_ROLE = re.compile(
    r"\b(?:the|whose)\s+[a-z]+\s+(?:of|who|that|whose|born|died)\b|\bwhose\s+[a-z]+\b",
)
"""What a comparison compares is a role of the named things, each one more hop away: "which film has the
director born first, X or Y", "the directors of X and Y", "which film whose director is younger"."""

NESTED = re.compile(
    r"\b(?:where|which|that|who|whose|when)\b[^?]*\b(?:where|which|that|who|whose)\b"
    r"|\b(?:of|in|for|by)\s+the\s+\w+\s+(?:that|which|who|where|whose)\b",
    re.IGNORECASE,
)
"""One description inside another: "the city where the company that made X is based"."""


TWO_QUESTIONS = re.compile(
    r"[,;]\s*and\s+(?:what|which|who|whom|whose|where|when|why|how)\b|\?\s*(?:and\s+)?(?:what|which|who|where|when|why|how)\b",
    re.IGNORECASE,
)
"""Two questions in one: "Which option keeps source and build apart, and what does make mode do?"."""

QUESTION = re.compile(
    r"^(?:who|whom|whose|what|which|where|when|why|how|in|on|at|for|from|by|of|is|are|was|were|did|does|do"
    r"|has|have|had|can|could)\b|\?\s*$",
    re.IGNORECASE,
)
"""Phrased as a question, not as keywords."""

COMPOSED_WORDS = 7
"""A question this long composes descriptions often enough to be worth a hop: "What currency predated the
Euro in the country Signmark is from?" matches none of the patterns above."""


def reads_as_multihop(question: str) -> bool:
    text = " ".join(question.split())
    if RELATION.search(text) or COMPARISON.search(text) or NESTED.search(text):
        return True
    return bool(QUESTION.search(text)) and len(text.split()) >= COMPOSED_WORDS


DESCRIBED = re.compile(
    r"\b[Tt]he\s+(?:[a-z]+\s+){0,2}?(?:where|in\s+which|whose|that|which|who)\s"
    r"|\bthe\s+(?:[a-z]+\s+){0,2}?[a-z]+\s+(?:the\s+)?(?:[A-Z][\w.'\u2019-]*\s+){1,5}(?:is|was|are|were)\b",
)
"""A thing described by one clause about a named thing: "the city where X was born", "the county in
which X is located", "the country X is from" (a clause without its relative pronoun: a capitalised
name between the noun and its verb)."""


def asks_through(question: str) -> bool:
    """Whether the question asks for something through a thing it names ("the state where X is located",
    "X's performer", "the country X is from"): a chain whose first passage is the named thing's page."""
    text = " ".join(question.split())
    return bool(RELATION.search(text) or NESTED.search(text) or DESCRIBED.search(text))


def compares(question: str) -> bool:
    """Whether the question compares named things ("which was born first, X or Y")."""
    return bool(COMPARISON.search(" ".join(question.split())))


def compares_through(question: str) -> bool:
    """Whether the question compares what each named thing leads to, not the things themselves ("which
    film has the director born first, X or Y"): a bridge comparison, two chains of two passages each."""
    text = " ".join(question.split())
    return bool(COMPARISON.search(text)) and bool(COMPARED_ROLE.search(text))


def asks_two(question: str) -> bool:
    """Whether the question asks two things at once ("Which option ..., and what does X's make mode
    do?"): each thing it names is an answer's page, not a chain's first end."""
    return bool(TWO_QUESTIONS.search(" ".join(question.split())))
