"""How much text an embedder sees: its window in tokens, and how to count a text's tokens: with the
embedder's own tokenizer where it has one on this machine (the local model), else an estimate that
never falls short of the embedders' tokenizers on English prose, without loading any of them (the Lambda
layer has none). Text past the window is left out of the item's vector, so chunking keeps below it and
the loader reports items whose text passes it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, runtime_checkable

WINDOWS = {
    "local:all-MiniLM-L6-v2-int8": 254,  # 256 with [CLS] and [SEP]
    "amazon.titan-embed-text-v2:0": 8192,
    "amazon.titan-embed-text-v1": 8192,
    "cohere.embed-english-v3": 512,
    "cohere.embed-multilingual-v3": 512,
}
"""Embedder name (``Embedder.name``; Bedrock embedders are named by model id) -> window in tokens."""

DEFAULT_WINDOW = 254
"""An embedder not listed is assumed to see as little as the smallest listed one."""

_PIECES = re.compile(r"[^\W\d_]+|\d+|[^\w\s]|_", re.UNICODE)


TokenCounter = Callable[[str], int]
"""Tokens a text costs the embedder (its [CLS]/[SEP] aside); additive over whitespace-separated words."""


@runtime_checkable
class CountsTokens(Protocol):
    """An embedder that can count tokens exactly (it holds its tokenizer)."""

    def count_tokens(self, text: str) -> int: ...


def token_counter(embedder: object) -> TokenCounter:
    """The embedder's exact count when it has one, else ``estimate_tokens``."""
    return embedder.count_tokens if isinstance(embedder, CountsTokens) else estimate_tokens


def window_of(embedder_name: str) -> int:
    name = embedder_name.removeprefix("bedrock:")
    return WINDOWS.get(name, DEFAULT_WINDOW)


def estimate_tokens(text: str) -> int:
    """An upper estimate of the tokens ``text`` costs: each punctuation mark one, a word of up to five
    letters one and a longer one one per four letters begun, a number one per two digits begun
    (word-piece tokenizers split rare words and long numbers). On Cranfield it counts 1.39 times
    MiniLM's tokens, and a chunk's count is never below its real one
    (tests/unit/test_documents.py)."""
    count = 0
    for match in _PIECES.finditer(text):
        piece = match.group()
        if piece.isdigit():
            count += -(-len(piece) // 2)
        elif piece[0].isalpha():
            count += 1 if len(piece) <= 5 else -(-len(piece) // 4)
        else:
            count += 1
    return count
