"""How much text an embedder sees: its window in tokens, and a token count that never falls short of
the embedders' own tokenizers on English prose, without loading any of them (the Lambda layer has
none). Text past the window is left out of the item's vector, so chunking keeps below it and the loader
reports items whose text passes it."""

from __future__ import annotations

import re

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
