"""The words of a question that say what it is about, once its cues are read.

The index keeps every word (BM25's IDF discounts frequent ones, docs/QUALITY.md), which serves whole
questions well. An arm that must match the rest of a question ("What went wrong with ... in January
2026?" less the entity and the month) would otherwise be satisfied by "what" or "with" alone; so the
words that only make a sentence a question are dropped from what such an arm matches.
"""

from __future__ import annotations

import re

_QUESTION_WORDS_TEXT = """
    a about after all also am an and any are as at be been before being by can could did do does
    during for from had has have how i if in into is it its me my of on or our should show since so
    tell than that the their them then there these they this those to us was we were what when where
    which who whom whose why will with would you your
"""
QUESTION_WORDS = frozenset(_QUESTION_WORDS_TEXT.split())
_WORD = re.compile(r"[^\W_]+(?:[-'\u2019][^\W_]+)*", re.UNICODE)


def content_words(text: str) -> str:
    """``text`` without the words that only make it a question ("what", "with", "the", ...)."""
    return " ".join(w for w in _WORD.findall(text) if w.casefold() not in QUESTION_WORDS)
