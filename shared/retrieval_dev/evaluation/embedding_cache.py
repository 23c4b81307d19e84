"""Embeddings remembered across evaluation runs, so a re-run (or another configuration) does not embed a
collection again: embedding is almost all of an evaluation's time on a small machine.

The cache is keyed by the embedder's name and a hash of the text, and holds exactly what the embedder
returned (float64), so a cached run indexes and queries with the same vectors as an uncached one. It
lives under ``.eval/`` (ignored by git); delete the file to start afresh. Development code only.
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import threading
from array import array
from collections.abc import Sequence
from pathlib import Path

from retrieval_core.models.text_window import token_counter
from retrieval_core.ports import Embedder

DEFAULT_CACHE = Path(".eval") / "embeddings.sqlite"


def add_cache_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags every evaluation command takes for the cache."""
    parser.add_argument(
        "--embedding-cache",
        type=Path,
        default=DEFAULT_CACHE,
        help="Where embeddings are remembered between runs (keyed by model and text).",
    )
    parser.add_argument("--no-cache", action="store_true", help="Embed everything afresh.")


def cached_embedder(args: argparse.Namespace, inner: Embedder) -> Embedder | None:
    """What the flags chose: ``inner`` behind the cache, or None (the deployment's embedder, afresh)."""
    return None if args.no_cache else CachedEmbedder(inner, args.embedding_cache)


class CachedEmbedder:
    """An ``Embedder`` that asks ``inner`` only for texts it has not seen under the same model name."""

    def __init__(self, inner: Embedder, path: Path = DEFAULT_CACHE) -> None:
        self._inner = inner
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors"
            " (model TEXT, digest TEXT, vector BLOB, PRIMARY KEY (model, digest))"
        )
        self._lock = threading.Lock()  # the feedback first pass embeds on a worker thread
        self.hits = 0
        self.misses = 0

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    @property
    def name(self) -> str:
        return self._inner.name

    def count_tokens(self, text: str) -> int:
        """The inner embedder's count (chunking sizes by it), exact when the inner one can count."""
        return token_counter(self._inner)(text)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        digests = [hashlib.sha256(text.encode("utf-8")).hexdigest() for text in texts]
        with self._lock:
            found = self._lookup(digests)
        missing = list(dict.fromkeys(d for d in digests if d not in found))
        if missing:
            by_digest = dict(zip(digests, texts, strict=True))
            fresh = self._inner.embed([by_digest[d] for d in missing])
            with self._lock:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                    [(self.name, d, array("d", v).tobytes()) for d, v in zip(missing, fresh, strict=True)],
                )
                self._db.commit()
            found.update(zip(missing, fresh, strict=True))
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        return [list(found[d]) for d in digests]

    def _lookup(self, digests: Sequence[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        unique = list(dict.fromkeys(digests))
        for start in range(0, len(unique), 500):  # under SQLite's bound-parameter limit
            batch = unique[start : start + 500]
            marks = ",".join("?" * len(batch))
            rows = self._db.execute(
                f"SELECT digest, vector FROM vectors WHERE model = ? AND digest IN ({marks})",
                [self.name, *batch],
            )
            for digest, blob in rows:
                found[digest] = array("d", blob).tolist()
        return found
