"""The evaluation's embedding cache: a text is embedded once per model, and what comes back is exact."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from retrieval_dev.evaluation.embedding_cache import CachedEmbedder


class CountingEmbedder:
    def __init__(self, name: str = "fake-model") -> None:
        self.name = name
        self.dimension = 3
        self.asked: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.asked.append(list(texts))
        return [[len(t) / 10, 0.1 + len(t) / 7, 1 / 3] for t in texts]


def test_texts_seen_before_are_not_embedded_again_even_by_a_new_process(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    inner = CountingEmbedder()
    first = CachedEmbedder(inner, path).embed(["alpha", "beta", "alpha"])

    again = CachedEmbedder(inner, path)  # a later run, reading the same file
    second = again.embed(["beta", "gamma", "alpha"])

    assert inner.asked == [["alpha", "beta"], ["gamma"]]
    assert first == [inner.embed(["alpha"])[0], inner.embed(["beta"])[0], inner.embed(["alpha"])[0]]
    assert second == [first[1], inner.embed(["gamma"])[0], first[0]]  # bit for bit, in the asked order
    assert (again.hits, again.misses) == (2, 1)


def test_another_model_s_vectors_are_never_reused(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    CachedEmbedder(CountingEmbedder("model-a"), path).embed(["alpha"])
    other = CountingEmbedder("model-b")

    cached = CachedEmbedder(other, path)
    cached.embed(["alpha"])

    assert other.asked == [["alpha"]]
    assert (cached.name, cached.dimension) == ("model-b", 3)
