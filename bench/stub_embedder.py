"""A bench-only embedder for measuring a sync's own growth (``sync-scale --embedder stub``).

At the local model's speed 50,000 pages take 5-8 hours on this machine, and the model's cost is the
same for the 50th file and the 50,000th: it only hides what grows. ``HashEmbedder`` gives each text a
deterministic unit 384-dimensional vector drawn from a hash of the text, in microseconds, so a run
measures what the sync itself costs per file. Its tokens are counted by the local model's tokenizer
(no model loaded) and its window is the local model's, so pages chunk exactly as they do with it.

Never used by the product: only ``bench.sync_scale``'s children and its handler loop build it
(``tests/unit/test_bench_stub_embedder.py`` checks nothing under ``shared/``, ``functions/`` or
``layers/`` names it). Its vectors mean nothing: no quality figure may be taken from a run with it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from retrieval_core.embedding.local import DIMENSION, LocalEmbedder


class HashEmbedder:
    """``Embedder``: a text's vector is a unit Gaussian draw seeded by the text's BLAKE2b digest."""

    def __init__(self) -> None:
        self._tokens = LocalEmbedder()

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def name(self) -> str:
        return "bench:hash-stub-384"

    def count_tokens(self, text: str) -> int:
        return self._tokens.count_tokens(text)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            vectors[row] = np.random.default_rng(seed).standard_normal(DIMENSION)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors.tolist()


EMBEDDERS = ("model", "stub")
"""``--embedder``: the configured one (the local model), or ``HashEmbedder``."""
