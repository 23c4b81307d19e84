"""How hard the bench's synthetic vectors are for HNSW, against real embeddings (issue 51).

``python -m bench.intrinsic [--data DIR]``: the local model's vectors of the judged collections'
documents (``cranfield/`` and ``cacm/`` under ``--data`` or ``$RETRIEVAL_EVAL_DATA``; ``make`` points it
at the team's shared data set) beside the bench's synthetic vectors (``bench.corpus``: a topic centroid
plus Gaussian noise, normalised) at several counts. For each: the local intrinsic dimension (Levina and
Bickel's maximum-likelihood estimate over the 20 nearest neighbours, the median over points) and the
relative contrast (a point's mean distance to the others over its nearest neighbour's). A graph search
gets harder as the first grows and the second falls toward 1; real embeddings keep a low intrinsic
dimension as a corpus grows, while the synthetic vectors' grows toward the noise's 384 dimensions.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from retrieval_dev.evaluation.collection import (
    CollectionFileError,
    cacm,
    cranfield_dev,
    data_root,
    read_collection,
)

from .corpus import DIMENSION, NOISE, TOPICS, unit_rows

NEIGHBOURS = 20
SYNTHETIC_COUNTS = (3_204, 20_000, 60_000)
ROWS_AT_ONCE = 2_000


def intrinsic_dimension(vectors: np.ndarray, k: int = NEIGHBOURS) -> float:
    """The median over points of the maximum-likelihood estimate from their ``k`` nearest neighbours."""
    estimates = [
        -1 / np.mean(np.log(near[:, :-1] / near[:, -1:]), axis=1) for near, _ in _neighbours(vectors, k)
    ]
    return float(np.median(np.concatenate(estimates)))


def relative_contrast(vectors: np.ndarray) -> float:
    """The median over points of their mean distance to the others over their nearest one's."""
    ratios = [mean / near[:, 0] for near, mean in _neighbours(vectors, 1)]
    return float(np.median(np.concatenate(ratios)))


def _neighbours(vectors: np.ndarray, k: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Per block of rows: the distances to their ``k`` nearest other points, sorted, and the mean distance
    to all others (unit vectors, so a distance is ``sqrt(2 - 2 cos)``)."""
    unit = unit_rows(vectors.astype(np.float64)).astype(np.float32)
    for start in range(0, len(unit), ROWS_AT_ONCE):
        squared = np.maximum(2 - 2 * unit[start : start + ROWS_AT_ONCE] @ unit.T, 0)
        rows = np.arange(squared.shape[0])
        distances = np.sqrt(squared)
        mean = (distances.sum(axis=1) - distances[rows, start + rows]) / (len(unit) - 1)
        squared[rows, start + rows] = np.inf  # not its own neighbour
        near = np.sqrt(np.sort(np.partition(squared, k, axis=1)[:, :k], axis=1))
        yield np.maximum(near, 1e-12), mean


def synthetic(count: int, seed: int = 7) -> np.ndarray:
    """``count`` vectors by the bench's recipe: a random topic's centroid plus noise, normalised."""
    rng = np.random.default_rng(seed)
    centroids = unit_rows(rng.standard_normal((TOPICS, DIMENSION)))
    topics = rng.integers(0, TOPICS, count)
    return unit_rows(centroids[topics] + rng.standard_normal((count, DIMENSION)) * NOISE)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.intrinsic", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="the folder holding cranfield/ and cacm/")
    args = parser.parse_args(argv)
    from retrieval_core.embedding.local import LocalEmbedder

    embedder = LocalEmbedder()
    print("| vectors | count | intrinsic dimension | relative contrast |\n| --- | --- | --- | --- |")
    try:
        root = data_root(args.data)
        collections = {"Cranfield": cranfield_dev(root), "CACM": cacm(root)}
        for name, files in collections.items():
            documents = read_collection(*files).documents
            vectors = np.array(embedder.embed([d.text[:2_000] for d in documents]))
            _row(f"local model ({embedder.name}), {name}", vectors)
    except CollectionFileError as error:
        print(f"no real embeddings: {error}", file=sys.stderr)
    for count in SYNTHETIC_COUNTS:
        _row("bench synthetic", synthetic(count))
    return 0


def _row(name: str, vectors: np.ndarray) -> None:
    dimension, contrast = intrinsic_dimension(vectors), relative_contrast(vectors)
    print(f"| {name} | {len(vectors):,} | {dimension:.1f} | {contrast:.2f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
