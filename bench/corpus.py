"""A reproducible synthetic corpus (fixed seed) with the exact item and edge counts of a scale.

Shape, chosen so every measurement has something real to do:

* documents (a tenth of the items) are the roots of lineage; propositions come in six generations, each
  derived from one or two items of the generation before, so ``why_explain`` has full ancestry at every
  depth from 1 to 5;
* each proposition mentions two or three entities; the loader writes one edge row per ordered pair, so
  the mix of two- and three-mention propositions is solved to hit the scale's edge count exactly;
* entities sit on a ring and propositions mostly link near neighbours (plus a few long-range links), so
  shortest paths of every length from 1 to 5 exist and ``graph_path`` can be asked for each depth;
* texts draw words from a Zipf-distributed vocabulary plus the entity names, so BM25 has realistic
  posting lists; vectors are unit vectors around topic centroids when synthetic.

Everything lives in one context (``bench``); isolation costs the same filter whatever the count of
contexts, which the query bodies already carry.
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from retrieval_core.models.metadata import FieldType

from .scales import SEED, Scale

CONTEXT = "bench"
GENERATIONS = 6
MAX_DEPTH = 5
DIMENSION = 384
NEIGHBOUR_SPAN = 4
LONG_RANGE_SHARE = 0.02
SUPERSEDED_SHARE = 0.03
TOPICS = 64
NOISE = 0.08
"""A synthetic vector's noise per dimension around its topic's centroid (norm about 1.6 in 384
dimensions, against the centroid's 1): nearly random within a topic, HNSW's hard case
(``bench.intrinsic``)."""
_SYLLABLES = [
    "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "fi", "gu", "he", "jo", "be",
    "ca", "de", "ro", "ta", "li", "mo", "na", "ve", "xu", "yo", "qi", "wa", "so", "ri", "el", "an",
]  # fmt: skip
_BASE_TIME = datetime(2024, 1, 1, tzinfo=UTC)
BUCKETS = 100
METADATA_FIELDS = {"bucket": FieldType.NUMBER}
"""Declared for the bench: ``metadata.bucket`` (item number mod 100) lets filters keep any share of it."""


class CorpusShapeError(ValueError):
    """The scale's item and edge counts cannot be met with two- and three-mention propositions."""


@dataclass
class Corpus:
    """The items to load and what the measurements ask about them."""

    scale: Scale
    items: list[dict[str, Any]]
    vocabulary: list[str]
    entity_names: list[str]
    edge_rows: int
    adjacency: dict[int, set[int]] = field(repr=False)
    """Active co-mention graph (entity index -> neighbours), for choosing graph_path pairs."""
    deepest: list[str]
    """Active propositions of the last generation: ancestry reaches every depth up to 5."""
    vectors: np.ndarray | None = field(default=None, repr=False)

    def lines(self, start: int, stop: int) -> Iterator[str]:
        """The JSON lines of ``items[start:stop]``, synthetic vectors attached as they are rendered (kept
        out of the item dicts, where 100,000 lists of 384 floats would cost over a gigabyte)."""
        for n, item in enumerate(self.items[start:stop], start=start):
            if self.vectors is not None:
                item = {**item, "embedding": [round(v, 6) for v in self.vectors[n].tolist()]}
            yield json.dumps(item, separators=(",", ":"))


def entity_id(index: int) -> str:
    return f"{CONTEXT}:entity/e{index:06d}"


def document_count(scale: Scale) -> int:
    """One item in ten is a document; the rest are propositions."""
    return scale.items // 10


def mention_mix(propositions: int, edges: int) -> tuple[int, int]:
    """(three-mention, two-mention) proposition counts giving exactly ``edges`` ordered-pair rows."""
    threes, remainder = divmod(edges - 2 * propositions, 4)
    if remainder or not 0 <= threes <= propositions:
        raise CorpusShapeError(f"{propositions} propositions cannot carry exactly {edges} edge rows")
    return threes, propositions - threes


def _words(rng: np.random.Generator, count: int) -> list[str]:
    words: dict[str, None] = {}
    while len(words) < count:
        length = int(rng.integers(2, 5))
        words["".join(_SYLLABLES[int(i)] for i in rng.integers(0, len(_SYLLABLES), length))] = None
    return list(words)


def unit_rows(rows: np.ndarray) -> np.ndarray:
    unit: np.ndarray = rows / np.linalg.norm(rows, axis=-1, keepdims=True)
    return unit


class _Generator:
    def __init__(self, scale: Scale) -> None:
        self.scale = scale
        self.rng = np.random.default_rng(SEED)
        self.vocabulary = _words(self.rng, 3000)
        ranks = np.arange(1, len(self.vocabulary) + 1)
        self.zipf = (1 / ranks**1.1) / np.sum(1 / ranks**1.1)
        taken = set(self.vocabulary)
        candidates = _words(self.rng, scale.entities + len(taken))
        self.names = [w.capitalize() for w in candidates if w not in taken][: scale.entities]
        self.centroids = unit_rows(self.rng.standard_normal((TOPICS, DIMENSION)))

    def text(self, entities: list[int], count: int) -> str:
        words = [self.vocabulary[int(i)] for i in self.rng.choice(len(self.vocabulary), count, p=self.zipf)]
        names = [self.names[e] for e in entities]
        return " ".join([names[0], *words[: count // 2], *names[1:], *words[count // 2 :]]) + "."

    def mentions(self, size: int) -> list[int]:
        n = self.scale.entities
        anchor = int(self.rng.integers(0, n))
        chosen = [anchor]
        while len(chosen) < size:
            if self.rng.random() < LONG_RANGE_SHARE:
                other = int(self.rng.integers(0, n))
            else:
                other = (anchor + int(self.rng.integers(1, NEIGHBOUR_SPAN + 1))) % n
            if other not in chosen:
                chosen.append(other)
        return chosen

    def build(self) -> Corpus:
        scale = self.scale
        documents = document_count(scale)
        propositions = scale.items - documents
        threes, _twos = mention_mix(propositions, scale.edges)
        sizes = self.rng.permutation([3] * threes + [2] * (propositions - threes))
        items: list[dict[str, Any]] = []
        topics: list[int] = []
        generations: list[list[str]] = [[f"{CONTEXT}:doc-{d:06d}" for d in range(documents)]]
        for d, doc_id in enumerate(generations[0]):
            entities = self.mentions(1)
            items.append(self._item(doc_id, "document", entities, d, text_words=40))
            topics.append(entities[0] * TOPICS // scale.entities)
        per_generation = math.ceil(propositions / GENERATIONS)
        mentioned: list[list[int]] = []
        for p in range(propositions):
            generation = 1 + p // per_generation
            if len(generations) <= generation:
                generations.append([])
            prop_id = f"{CONTEXT}:prop-{p:06d}"
            entities = self.mentions(int(sizes[p]))
            mentioned.append(entities)
            parents = generations[generation - 1]
            picks = self.rng.integers(0, len(parents), int(self.rng.integers(1, 3)))
            sources = {parents[int(i)] for i in picks}
            item = self._item(prop_id, "proposition", entities, documents + p, text_words=14)
            item["source_ids"] = sorted(sources)
            if generation == 1:
                item["grounding"] = [{"chunk_id": f"{next(iter(sources))}#c0", "start": 0, "end": 80}]
            items.append(item)
            topics.append(entities[0] * TOPICS // scale.entities)
            generations[generation].append(prop_id)
        self._supersede(items, documents, propositions)
        adjacency: dict[int, set[int]] = {}
        for item, ends in zip(items[documents:], mentioned, strict=True):
            if item["status"] == "ACTIVE":
                for a in ends:
                    adjacency.setdefault(a, set()).update(b for b in ends if b != a)
        vectors = None
        if not scale.real_embeddings:
            noise = self.rng.standard_normal((len(items), DIMENSION)) * NOISE
            vectors = unit_rows(self.centroids[np.array(topics)] + noise).astype(np.float32)
        last = set(generations[-1])
        deepest = [i["id"] for i in items if i["id"] in last and i["status"] == "ACTIVE"]
        return Corpus(
            scale=scale,
            items=items,
            vocabulary=self.vocabulary,
            entity_names=self.names,
            edge_rows=sum(len(i["mentions"]) * (len(i["mentions"]) - 1) for i in items[documents:]),
            adjacency=adjacency,
            deepest=deepest,
            vectors=vectors,
        )

    def _item(self, item_id: str, kind: str, entities: list[int], n: int, text_words: int) -> dict[str, Any]:
        return {
            "context_id": CONTEXT,
            "id": item_id,
            "kind": kind,
            "text": self.text(entities, text_words),
            "mentions": [
                {"entity_id": entity_id(e), "name": self.names[e], "type": "thing"} for e in entities
            ],
            "confidence": round(float(self.rng.uniform(0.5, 1.0)), 2),
            "status": "ACTIVE",
            "created_at": (_BASE_TIME + timedelta(minutes=n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "metadata": {"bucket": n % BUCKETS},
        }

    def _supersede(self, items: list[dict[str, Any]], documents: int, propositions: int) -> None:
        """A few propositions of the middle generations are superseded by a later one (lineage links)."""
        count = int(propositions * SUPERSEDED_SHARE)
        newer = items[documents + propositions - count :]
        older = self.rng.choice(np.arange(documents, documents + propositions // 2), count, replace=False)
        for item, old in zip(newer, older, strict=True):
            items[int(old)]["status"] = "SUPERSEDED"
            item["supersedes"] = [items[int(old)]["id"]]


def generate(scale: Scale) -> Corpus:
    """The corpus of ``scale``; the same scale always gives the same corpus."""
    return _Generator(scale).build()


def pairs_at_distance(corpus: Corpus, depth: int, count: int, seed: int = SEED) -> list[tuple[str, str]]:
    """Up to ``count`` entity pairs whose shortest active path has exactly ``depth`` hops."""
    rng = np.random.default_rng(seed + depth)
    nodes = sorted(corpus.adjacency)
    pairs: list[tuple[str, str]] = []
    for _attempt in range(count * 20):
        if len(pairs) >= count or not nodes:
            break
        source = nodes[int(rng.integers(0, len(nodes)))]
        at_depth = _ring(corpus.adjacency, source, depth)
        if at_depth:
            pairs.append((entity_id(source), entity_id(at_depth[int(rng.integers(0, len(at_depth)))])))
    return pairs


def _ring(adjacency: dict[int, set[int]], source: int, depth: int) -> list[int]:
    """Nodes exactly ``depth`` hops from ``source`` (breadth-first, stopping at that level)."""
    distance = {source: 0}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        if distance[node] == depth:
            continue
        for other in adjacency.get(node, ()):
            if other not in distance:
                distance[other] = distance[node] + 1
                queue.append(other)
    return sorted(n for n, d in distance.items() if d == depth)


def query_texts(corpus: Corpus, count: int, seed: int = SEED) -> list[str]:
    """``count`` distinct query texts: an entity name and two or three mid-frequency words."""
    rng = np.random.default_rng(seed + 100)
    texts: dict[str, None] = {}
    mid = corpus.vocabulary[20:600]
    while len(texts) < count:
        words = [mid[int(i)] for i in rng.integers(0, len(mid), int(rng.integers(2, 4)))]
        name = corpus.entity_names[int(rng.integers(0, len(corpus.entity_names)))]
        texts[" ".join([name, *words])] = None
    return list(texts)


def synthetic_query_vectors(corpus: Corpus, count: int, seed: int = SEED) -> list[list[float]]:
    """Unit vectors near random items' vectors (for scales whose item vectors are synthetic)."""
    assert corpus.vectors is not None
    rng = np.random.default_rng(seed + 200)
    picks = corpus.vectors[rng.integers(0, len(corpus.vectors), count)]
    vectors = unit_rows(picks + rng.standard_normal(picks.shape) * 0.05)
    return [[round(float(v), 6) for v in row] for row in vectors]
