"""The multi-collection evaluation ``make eval`` prints: every configuration on Cranfield's dev half, on
CACM, on the multi-hop sets, on the documentation collection and on the agent questions, with its nDCG@10
(and, in a second table, MRR@10) on each, its mean, and its worst change against its baseline (the
one-pass ranking of its mode; ``auto``'s is the deployment's hybrid), each change with a paired
randomisation test.

A default has to hold on every collection, so the rule that picks it reads the worst case, not the
best score on one (``choose``). Each collection is loaded once into its own fresh index and every
configuration runs against it, interleaved query by query; a multi-hop set is loaded as Markdown pages
through the ingest function (its titles are the pages' entities, which ``auto`` links and the walk
follows), as ``retrieval eval --beir DIR --as-files`` loads it; the documentation collection (Sphinx's
manual, ``documentation``) is fetched on first use and synced as its folder of HTML pages, and skipped with
a line saying why when it cannot be fetched; the agent questions are asked in their own contexts, as
``retrieval eval-questions`` asks them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path

from retrieval_core.config import Settings
from retrieval_core.ports import Embedder

from . import documentation
from .as_files import files_index
from .beir import read_beir
from .collection import Collection, CollectionFiles, cacm, cranfield_dev, data_root, read_collection
from .compare import Configuration, randomisation_p
from .metrics import mean
from .provision import evaluation_index, scratch_index
from .questions import DEFAULT_CORPUS, DEFAULT_QUESTIONS, read_questions, run_questions
from .runner import ModeResult, Run, run_interleaved

DOCUMENT_COLLECTIONS: dict[str, Callable[[Path], CollectionFiles]] = {
    "Cranfield dev": cranfield_dev,
    "CACM": cacm,
}
"""Each collection's files under the data folder (``collection.data_root``)."""
MULTIHOP_FOLDER = "multihop"
"""Under the data folder, one folder per multi-hop set, each holding its BEIR folder ``beir/``
(``multihop_sets``); a data folder without it runs the suite without them."""
QUESTIONS = "agent questions"
TOP_K = 100
QUESTION_TOP_K = 10
SIGNIFICANCE = 0.05
"""A change with p below this is significant; a significant loss on any collection rules a
configuration out as a default."""
TIE = 0.005
"""Worst changes this close count as tied (then the mean decides): two runs of the same code differ by
up to 0.003 in a worst change (each builds a fresh index, and the k-NN graph differs a little), so a
closer margin would let that noise pick the default (docs/QUALITY.md)."""

Scores = dict[str, dict[str, dict[str, float]]]
"""collection -> configuration -> query id -> a score (nDCG@10, or MRR@10)."""


@dataclass
class Suite:
    """What a suite run measured: per-query nDCG@10 and MRR@10 on every collection, and the
    documentation collection's own figures per configuration (``documentation.summary``)."""

    ndcg: Scores = field(default_factory=dict)
    mrr: Scores = field(default_factory=dict)
    documentation: dict[str, dict[str, float | None]] = field(default_factory=dict)
    summaries: dict[str, dict[str, dict[str, float | int | None]]] = field(default_factory=dict)
    """collection -> configuration -> ``ModeResult.summary`` (recall, all@5, latency, round trips)."""

    def add(self, collection: str, results: Mapping[str, ModeResult]) -> None:
        self.ndcg[collection] = _per_query(results, "ndcg")
        self.mrr[collection] = _per_query(results, "reciprocal_rank")
        self.summaries[collection] = {name: result.summary() for name, result in results.items()}


def run_suite(
    configurations: Sequence[Configuration],
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    data: Path | None = None,
    docs: Path | None = None,
    docs_questions: Path = documentation.QUESTIONS,
    only: Set[str] | None = None,
) -> Suite:
    """Every configuration's per-query scores on every collection of the suite, the collections read
        from ``data`` (default: ``collection.data_root``), the manual from ``docs`` (default: fetched into
        the cache, ``documentation.fetched_folder``) and asked ``docs_questions``; ``only``: just the
    collections it names."""
    runs = [Run(c.name, c.mode, c.options) for c in configurations]
    suite = Suite()
    root = data_root(data)
    wanted = (lambda name: True) if only is None else (lambda name: name in only)
    for name, files in DOCUMENT_COLLECTIONS.items():
        if not wanted(name):
            continue
        collection = read_collection(*files(root))
        _announce(name, collection)
        with evaluation_index(settings, collection.documents, embedder=embedder, label=name):
            suite.add(name, run_interleaved(runs, collection.queries, collection.qrels, TOP_K))
    sets = multihop_sets(root)
    if not sets:
        print(f"no multi-hop sets under {root / MULTIHOP_FOLDER} (<set>/beir/): the suite runs without them")
    for name, folder in sets.items():
        if not wanted(name):
            continue
        collection = read_beir(folder)
        _announce(name, collection)
        with files_index(settings, collection.documents, embedder=embedder, pages=True):
            suite.add(name, run_interleaved(runs, collection.queries, collection.qrels, TOP_K))
    manual = None if not wanted(documentation.NAME) else docs or documentation.fetched_folder()
    if manual is not None:
        run_documentation(suite, runs, settings, manual, embedder=embedder, questions_file=docs_questions)
    if not wanted(QUESTIONS):
        return suite
    questions = read_questions(DEFAULT_QUESTIONS)
    lines = DEFAULT_CORPUS.read_text(encoding="utf-8").splitlines()
    print(f"{QUESTIONS}: {len(lines)} items, {len(questions)} questions", flush=True)
    with scratch_index(settings, lines, embedder=embedder, label=QUESTIONS):
        asked = {c.name: run_questions(c.mode, questions, QUESTION_TOP_K, c.options) for c in configurations}
    suite.ndcg[QUESTIONS] = {name: run.ndcg10 for name, run in asked.items()}
    suite.mrr[QUESTIONS] = {name: run.mrr10 for name, run in asked.items()}
    return suite


def run_documentation(
    suite: Suite,
    runs: Sequence[Run],
    settings: Settings,
    folder: Path,
    *,
    embedder: Embedder | None = None,
    questions_file: Path = documentation.QUESTIONS,
) -> None:
    """The documentation collection into ``suite``: its pages synced as files, every question asked."""
    questions = documentation.read_questions(questions_file)
    queries, qrels = documentation.queries_and_qrels(questions)
    found = documentation.pages(folder)
    print(f"{documentation.NAME}: {len(found)} pages, {len(questions)} questions ({folder})", flush=True)
    with documentation.folder_index(settings, folder, embedder=embedder):
        results = run_interleaved(runs, queries, qrels, TOP_K)
    suite.add(documentation.NAME, results)
    suite.documentation = {name: documentation.summary(r, questions) for name, r in results.items()}


def multihop_sets(root: Path) -> dict[str, Path]:
    """The BEIR folder of each multi-hop set under ``root`` (``multihop/<set>/beir``), by the set's folder
    name, in name order; empty when there are none."""
    folder = root / MULTIHOP_FOLDER
    if not folder.is_dir():
        return {}
    return {found.name: found / "beir" for found in sorted(folder.iterdir()) if (found / "beir").is_dir()}


def _announce(name: str, collection: Collection) -> None:
    print(f"{name}: {len(collection.documents)} documents, {len(collection.queries)} queries", flush=True)


def _per_query(results: Mapping[str, ModeResult], metric: str) -> dict[str, dict[str, float]]:
    """Per configuration, each judged query's ``metric`` (a ``QueryScore`` field)."""
    found: dict[str, dict[str, float]] = {}
    for label, result in results.items():
        scores = ((q, getattr(s, metric)) for q, s in result.scores.items())
        found[label] = {q: score for q, score in scores if score is not None}
    return found


@dataclass(frozen=True)
class Change:
    """One configuration against its baseline on one collection: mean nDCG@10 change and its p."""

    delta: float
    p: float

    @property
    def significant_loss(self) -> bool:
        return self.delta < 0 and self.p < SIGNIFICANCE


@dataclass(frozen=True)
class Row:
    configuration: Configuration
    ndcg: dict[str, float]
    changes: dict[str, Change]
    """Per collection, against the baseline (empty for a baseline)."""

    @property
    def mean(self) -> float:
        return sum(self.ndcg.values()) / len(self.ndcg)

    @property
    def worst(self) -> tuple[str, Change] | None:
        return min(self.changes.items(), key=lambda kv: kv[1].delta, default=None)


def rows(scores: Scores, configurations: Sequence[Configuration]) -> list[Row]:
    result = []
    for configuration in configurations:
        ndcg: dict[str, float] = {}
        changes: dict[str, Change] = {}
        for collection, by_configuration in scores.items():
            ours = by_configuration.get(configuration.name)
            if ours is None:
                continue
            ndcg[collection] = mean(ours.values()) or 0.0
            theirs = by_configuration.get(configuration.baseline or "")
            if theirs is not None:
                shared = sorted(set(ours) & set(theirs))
                a, b = [ours[q] for q in shared], [theirs[q] for q in shared]
                delta = (sum(a) - sum(b)) / len(shared) if shared else 0.0
                changes[collection] = Change(delta, randomisation_p(a, b))
        if ndcg:
            result.append(Row(configuration, ndcg, changes))
    return result


def choose(table_rows: Sequence[Row], mode: str = "hybrid") -> Row | None:
    """The rule for a default: of ``mode``'s configurations that lose significantly on no collection,
    the one whose worst change against the one-pass ranking is largest; ties (within ``TIE``) go to the
    higher mean. The one-pass ranking itself (worst change 0) is a candidate, so nothing is chosen that
    does worse somewhere than asking once."""
    candidates = [r for r in table_rows if r.configuration.mode == mode]
    eligible = [r for r in candidates if not any(c.significant_loss for c in r.changes.values())]

    def worst(row: Row) -> float:
        found = row.worst
        return 0.0 if found is None else found[1].delta

    if not eligible:
        return None
    best = max(worst(r) for r in eligible)
    return max((r for r in eligible if worst(r) >= best - TIE), key=lambda r: r.mean)


def table(table_rows: Sequence[Row]) -> str:
    """A Markdown table: nDCG@10 per collection (with its change against the baseline), mean, worst."""
    collections = list(dict.fromkeys(c for r in table_rows for c in r.ndcg))
    header = ["configuration", *collections, "mean", "worst change", "significant losses"]
    lines = [header, ["---"] * len(header)]
    for row in table_rows:
        cells = [row.configuration.name]
        for collection in collections:
            score = row.ndcg.get(collection)
            change = row.changes.get(collection)
            cell = "" if score is None else f"{score:.3f}"
            if change is not None:
                cell += f" ({change.delta:+.3f}, p {change.p:.3f})"
            cells.append(cell)
        cells.append(f"{row.mean:.3f}")
        worst = row.worst
        cells.append("baseline" if worst is None else f"{worst[1].delta:+.3f} ({worst[0]})")
        losses = [c for c, change in row.changes.items() if change.significant_loss]
        cells.append(", ".join(losses) if losses else ("" if worst is None else "none"))
        lines.append(cells)
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)
