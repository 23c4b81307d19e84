"""Features that read the passage, tried against the calibration's bar (docs/BEDROCK.md, Scores): can a
relevance read from the hit's text, not only from its place in the ranking, keep 95% of the relevant hits
of a top 10 at 0.4 and drop half of the others, held out, on every development collection?

No cross-encoder ships its weights in a package this project can install (docs/BEDROCK.md, "A reranker
that reads the passage"), so the two features tried are ones comparable across questions that a hit's
text gives without one:

- ``coverage``: the share of the question's IDF mass whose terms the passage contains (BM25's IDF over
  the collection's passages the calibration saw; a term is a word cut to ``STEM`` letters, stopwords
  left out). 1 when the passage holds every term of the question, whatever its length or the question's.
- ``cosine``: the cosine of the question's and the passage's vectors (the local embedder), for every hit,
  where the vector arm's similarity is only there for the hits that arm found.

``retrieval eval --calibration --passages`` (after an observation: it reads the hits saved with their
text) prints, per collection and mode, the AUC of each signal within the top 10 and the held-out keep /
drop at 0.4 of the calibration fitted with them (cross-validated across collections as
``calibration.held_out`` is: each collection scored by the model fitted on the others).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from retrieval_core.retrieval.stages.feedback import STOP_WORDS

from .calibration import (
    AT,
    KEEP,
    THRESHOLD,
    Observation,
    Reliability,
    by_query,
    logistic,
    reliability,
)

if TYPE_CHECKING:
    from retrieval_core.ports import Embedder

STEM = 6
"""Letters a word is cut to: a crude stemmer ("measured", "measurement" and "measures" agree)."""
PASSAGE_FEATURES = ("coverage", "cosine")
BASE = ("score", "log_position")
STUDIED: tuple[tuple[str, ...], ...] = (
    BASE,
    (*BASE, "coverage"),
    (*BASE, "cosine"),
    (*BASE, "coverage", "cosine"),
    ("coverage", "cosine"),
)
SIGNS = {"score": 1.0, "log_position": -1.0, "coverage": 1.0, "cosine": 1.0}
MODES = ("hybrid", "vector")
"""The modes a Bedrock ``Retrieve`` runs."""


def terms(text: str) -> set[str]:
    return {word[:STEM] for word in re.findall(r"[a-z0-9]+", text.lower()) if word not in STOP_WORDS}


def idf_by_collection(observations: Sequence[Observation]) -> dict[str, dict[str, float]]:
    """BM25's IDF of each term over each collection's distinct passages among ``observations``."""
    passages: dict[str, dict[str, set[str]]] = {}
    for o in observations:
        passages.setdefault(o.collection, {}).setdefault(o.extra["id"], terms(o.extra["text"]))
    found = {}
    for collection, texts in passages.items():
        frequency: dict[str, int] = {}
        for words in texts.values():
            for word in words:
                frequency[word] = frequency.get(word, 0) + 1
        n = len(texts)
        found[collection] = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in frequency.items()}
    return found


def coverage(question: set[str], passage: set[str], idf: Mapping[str, float]) -> float:
    """The share of the question's IDF mass the passage's terms hold (a term no passage has weighs as
    the rarest); 0 for a question without terms."""
    rarest = max(idf.values(), default=1.0)
    mass = {word: idf.get(word, rarest) for word in question}
    total = math.fsum(mass.values())
    return math.fsum(v for word, v in mass.items() if word in passage) / total if total else 0.0


def cosines(observations: Sequence[Observation], embedder: Embedder) -> dict[tuple[str, str], float]:
    """(question, hit id) -> the cosine of their vectors (unit length: the dot product)."""
    texts = list(
        dict.fromkeys([o.extra["question"] for o in observations] + [o.extra["text"] for o in observations])
    )
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    return {
        (o.extra["question"], o.extra["id"]): math.fsum(
            a * b for a, b in zip(vectors[o.extra["question"]], vectors[o.extra["text"]], strict=True)
        )
        for o in observations
    }


def feature_rows(
    observations: Sequence[Observation], embedder: Embedder
) -> list[tuple[Observation, dict[str, float]]]:
    """Each top-``AT`` hit of a Bedrock mode with every studied feature."""
    rows = [o for o in observations if o.position <= AT and o.mode in MODES and "text" in o.extra]
    idf = idf_by_collection(rows)
    cosine = cosines(rows, embedder)
    return [
        (
            o,
            {
                "score": min(max(o.score, 0.0), 1.0),
                "log_position": math.log(o.position),
                "coverage": coverage(terms(o.extra["question"]), terms(o.extra["text"]), idf[o.collection]),
                "cosine": cosine[(o.extra["question"], o.extra["id"])],
            },
        )
        for o in rows
    ]


Model = tuple[dict[str, float], float, float]
"""Weights by feature, intercept, and the operating shift on the log-odds."""


def fit(
    rows: Sequence[tuple[Observation, dict[str, float]]], chosen: Sequence[str], *, reordered: bool = False
) -> Model:
    """As ``calibration.fit_model``: each collection weighing the same, a feature whose weight comes out
    with the wrong sign left out, and the shift the least that keeps ``KEEP`` of every collection's
    relevant hits at ``THRESHOLD`` (as ``_capped`` shows it, ``reordered`` or not)."""
    import numpy as np

    sizes: dict[str, int] = {}
    for o, _ in rows:
        sizes[o.collection] = sizes.get(o.collection, 0) + 1
    y = np.array([float(o.relevant) for o, _ in rows])
    weight = np.array([1.0 / sizes[o.collection] for o, _ in rows])
    used = list(chosen)
    while True:
        table = np.array([[f[name] for name in used] for _, f in rows])
        coefficients = logistic(table, y, weight)
        weights = dict(zip(used, (float(c) for c in coefficients[:-1]), strict=True))
        wrong = [name for name, value in weights.items() if value * SIGNS[name] < 0]
        if not wrong:
            break
        used = [name for name in used if name not in wrong]
    intercept = float(coefficients[-1])
    unshifted = (weights, intercept, 0.0)
    keeping = []
    for collection in sizes:
        values = sorted(
            v
            for o, v in _capped(unshifted, rows, reordered=reordered)
            if o.collection == collection and o.relevant
        )
        if values:
            keeping.append(values[min(len(values) - 1, math.floor((1 - KEEP) * len(values)))])
    shift = math.log(THRESHOLD / (1 - THRESHOLD)) - min(keeping)
    return weights, intercept, shift + 1e-4


def _capped(
    model: Model, rows: Sequence[tuple[Observation, dict[str, float]]], *, reordered: bool = False
) -> list[tuple[Observation, float]]:
    """Each hit's log-odds as an answer can show it: in the ranking's order, never above a hit before it
    (the route's running minimum); or, ``reordered``, as it is, the top 10 sorted by it (what a reranker
    that reads the passage does: the order follows the value, so nothing needs capping)."""
    weights, intercept, shift = model
    features = {id(o): f for o, f in rows}
    found = []
    for group in by_query(o for o, _ in rows):
        floor = math.inf
        for o in group:
            f = features[id(o)]
            value = intercept + shift + math.fsum(w * f[name] for name, w in weights.items())
            floor = value if reordered else min(floor, value)
            found.append((o, floor))
    return found


def held_out(
    rows: Sequence[tuple[Observation, dict[str, float]]], chosen: Sequence[str], *, reordered: bool = False
) -> list[Reliability]:
    """Each collection and mode scored by the model fitted on the other collections (that mode)."""
    found = []
    collections = list(dict.fromkeys(o.collection for o, _ in rows))
    for mode in MODES:
        for collection in collections:
            others = [(o, f) for o, f in rows if o.mode == mode and o.collection != collection]
            mine = [(o, f) for o, f in rows if o.mode == mode and o.collection == collection]
            if not others or not mine:
                continue
            model = fit(others, chosen, reordered=reordered)
            scored = [(o, 1 / (1 + math.exp(-v))) for o, v in _capped(model, mine, reordered=reordered)]
            found.append(reliability(scored, collection, mode, model[2]))
    return found


def auc(values: Sequence[tuple[bool, float]]) -> float | None:
    """The chance a relevant hit scores above another (ties half): Mann-Whitney."""
    ordered = sorted(values, key=lambda pair: pair[1])
    positives = sum(relevant for relevant, _ in ordered)
    negatives = len(ordered) - positives
    if not positives or not negatives:
        return None
    rank_sum, i = 0.0, 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j][1] == ordered[i][1]:
            j += 1
        rank_sum += sum(relevant for relevant, _ in ordered[i:j]) * (i + j + 1) / 2
        i = j
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def report(observations: Sequence[Observation], embedder: Embedder) -> str:
    """The tables docs/BEDROCK.md quotes: the AUC within the top 10 of each signal and of each fitted
    model (in sample; as the route shows it, capped down the ranking), and held out the share of the
    relevant kept and of the others dropped at 0.4 per feature set, in the ranking's order and with
    the top 10 reordered by the value."""
    rows = feature_rows(observations, embedder)
    collections = list(dict.fromkeys(o.collection for o, _ in rows))
    header = "| | mode | " + " | ".join(collections) + " |\n|---|---|" + "---|" * len(collections)
    lines = ["AUC within each question's top 10 (pooled per collection):", "", header]
    for mode in MODES:
        mine = [(o, f) for o, f in rows if o.mode == mode]
        for name in (*BASE, *PASSAGE_FEATURES):
            cells = [
                _number(auc([(o.relevant, f[name]) for o, f in mine if o.collection == c]))
                for c in collections
            ]
            lines.append(f"| {name} | {mode} | " + " | ".join(cells) + " |")
        for chosen in STUDIED:
            for reordered in (False, True):
                shown = _capped(fit(mine, chosen, reordered=reordered), mine, reordered=reordered)
                cells = [
                    _number(auc([(o.relevant, v) for o, v in shown if o.collection == c]))
                    for c in collections
                ]
                lines.append(f"| {_label(chosen, reordered)} | {mode} | " + " | ".join(cells) + " |")
    lines += ["", "Held out: relevant kept / others dropped at 0.4 (95% / 50% is the bar):", "", header]
    for chosen in STUDIED:
        for reordered in (False, True):
            held = {(r.mode, r.collection): r for r in held_out(rows, chosen, reordered=reordered)}
            for mode in MODES:
                cells = [_kept_dropped(held.get((mode, c))) for c in collections]
                lines.append(f"| {_label(chosen, reordered)} | {mode} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "In sample, top 10 reordered: the most a threshold of the collection's own drops of the others while "
        "keeping 95% of its relevant (the separation's ceiling):",
        "",
        header,
    ]
    for chosen in STUDIED:
        for mode in MODES:
            mine = [(o, f) for o, f in rows if o.mode == mode]
            shown = _capped(fit(mine, chosen, reordered=True), mine, reordered=True)
            cells = []
            for c in collections:
                scored = [(o, 1 / (1 + math.exp(-v))) for o, v in shown if o.collection == c]
                cells.append(_percent(reliability(scored, c, mode, 0.0).best_dropped))
            lines.append(f"| {' + '.join(chosen)} | {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _label(chosen: Sequence[str], reordered: bool) -> str:
    return " + ".join(chosen) + (", top 10 reordered" if reordered else "")


def _kept_dropped(row: Reliability | None) -> str:
    if row is None:
        return "-"
    kept = None if row.relevant_below is None else 1 - row.relevant_below
    return f"{_percent(kept)} / {_percent(row.irrelevant_dropped)}"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"
