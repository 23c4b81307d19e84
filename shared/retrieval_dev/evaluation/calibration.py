"""The calibration of ``relevance`` (``retrieval_core/retrieval/relevance.py``): what every development
collection's questions get back through the retrieve handler, judged, fitted, and its reliability.

``retrieval eval --calibration`` runs in two steps, so a refit never embeds a collection again:

1. ``observe``: each collection of the suite (Cranfield dev, CACM, the multi-hop sets as pages, the Sphinx
   manual synced as files, the agent questions' dev split) loaded once into its own index, every question
   asked in each mode a Bedrock ``Retrieve`` may run (``hybrid``, ``vector``) and in ``lexical``, ``TOP_K``
   deep; each hit saved with what the calibration reads (its position, ranking score, arms' ranks and raw
   scores), its id and text, and whether the collection judges it relevant, one JSON line per hit under
   ``.eval/calibration/``.
2. ``fit`` and ``reliability``: a logistic regression per mode on the saved hits, and per collection the
   table docs/BEDROCK.md quotes (the share of the top 10 above 0.4 that is relevant, the share of the
   relevant top 10 below it, and whether the strands ``retrieve`` tool's default ``min_score`` keeps 95%
   of the relevant results and drops half of the rest).
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from retrieval_core.retrieval.pager import hit_features, log_odds
from retrieval_core.retrieval.relevance import FEATURES, RELEVANCE, RelevanceModel

if TYPE_CHECKING:
    from retrieval_core.config import Settings
    from retrieval_core.ports import Embedder

    from .collection import Query

CALIBRATION_FOLDER = Path(".eval") / "calibration"
MODES = ("hybrid", "vector", "lexical")
TOP_K = 20
"""Hits saved per question: the fit reads the top 10 (what the strands tool and most agents ask for),
the rest shows how the scores fall below it."""
ORDER = {"diversify": False}
"""The ranking's order, as the Bedrock route asks (``relevance`` is a hit's, wherever diversity puts it)."""


@dataclass(frozen=True, slots=True)
class Observation:
    """One hit as the handler returned it for one question, and its judgment."""

    collection: str
    mode: str
    query_id: str
    position: int
    """1-based, in the page as returned."""
    score: float
    signals: dict[str, list[float]]
    """Per arm: [rank, raw score]."""
    relevant: bool
    relevance: float | None = None
    """The calibrated value the handler returned (None before it had one)."""
    extra: dict[str, Any] = field(default_factory=dict)


def observations_of(
    collection: str,
    mode: str,
    query_id: str,
    hits: Sequence[Mapping[str, Any]],
    judged: Mapping[str, int],
    question: str = "",
) -> list[Observation]:
    """The hits of one answer as observations; ``judged`` maps a hit's judged id (a document id, or an
    item id for the agent questions) to its grade, and a hit is relevant when its grade is above 0.
    Each keeps the question and the hit's id and text (``extra``), for features that read the passage
    (``passage_study``)."""
    from .collection import doc_id_of

    found = []
    for position, hit in enumerate(hits, start=1):
        key = doc_id_of(hit["id"]) or hit["id"]
        found.append(
            Observation(
                collection=collection,
                mode=mode,
                query_id=query_id,
                position=position,
                score=float(hit["score"]),
                signals={arm: [s["rank"], s["score"]] for arm, s in hit.get("signals", {}).items()},
                relevant=judged.get(key, 0) > 0,
                relevance=hit.get("relevance"),
                extra={"question": question, "id": hit["id"], "text": str(hit.get("text", ""))[:TEXT_KEPT]},
            )
        )
    return found


TEXT_KEPT = 4000
"""Characters of a hit's text saved with it (more than a chunk holds)."""


def save(path: Path, observations: Iterable[Observation]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for observation in observations:
            out.write(json.dumps(asdict(observation)) + "\n")


def read(folder: Path) -> list[Observation]:
    return [
        Observation(**json.loads(line))
        for path in sorted(folder.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line
    ]


def by_query(observations: Iterable[Observation]) -> Iterator[list[Observation]]:
    """The observations grouped per (collection, mode, question), in position order."""
    groups: dict[tuple[str, str, str], list[Observation]] = {}
    for o in observations:
        groups.setdefault((o.collection, o.mode, o.query_id), []).append(o)
    for group in groups.values():
        yield sorted(group, key=lambda o: o.position)


def observe(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    data: Path | None = None,
    folder: Path = CALIBRATION_FOLDER,
    only: Collection[str] | None = None,
) -> list[Path]:
    """Every collection of the suite (or those named in ``only``) loaded once, each question asked in
    each of ``MODES``, each hit saved judged (one file per collection under ``folder``); the files
    written."""
    from . import documentation
    from .as_files import files_index
    from .beir import read_beir
    from .collection import data_root, read_collection
    from .provision import evaluation_index
    from .suite import DOCUMENT_COLLECTIONS, QUESTIONS, multihop_sets

    written = []
    root = data_root(data)
    for name, files in DOCUMENT_COLLECTIONS.items():
        if only is None or name in only:
            collection = read_collection(*files(root))
            judged = [q for q in collection.queries if q.id in collection.qrels]
            with evaluation_index(settings, collection.documents, embedder=embedder, label=name):
                written.append(_asked(folder, name, judged, collection.qrels))
    for name, beir in multihop_sets(root).items():
        if only is None or name in only:
            collection = read_beir(beir)
            with files_index(settings, collection.documents, embedder=embedder, pages=True):
                written.append(_asked(folder, name, collection.queries, collection.qrels))
    if only is None or documentation.NAME in only:
        manual = documentation.fetched_folder()
        if manual is not None:
            queries, qrels = documentation.queries_and_qrels(documentation.read_questions())
            with documentation.folder_index(settings, manual, embedder=embedder):
                written.append(_asked(folder, documentation.NAME, queries, qrels))
    if only is None or QUESTIONS in only:
        written.append(_asked_agents(settings, embedder, folder))
    return written


def _asked(folder: Path, name: str, queries: Sequence[Query], qrels: Mapping[str, Mapping[str, int]]) -> Path:
    """Every question of a loaded collection in each mode, its hits saved judged; the file."""
    from .runner import answered_hits

    found = [
        observation
        for query in queries
        for mode in MODES
        for observation in observations_of(
            name,
            mode,
            query.id,
            answered_hits(mode, query.text, TOP_K, ORDER),
            qrels.get(query.id, {}),
            query.text,
        )
    ]
    path = folder / f"{_file_name(name)}.jsonl"
    save(path, found)
    print(f"{name}: {len(queries)} questions, {len(found)} hits saved to {path}", flush=True)
    return path


def _asked_agents(settings: Settings, embedder: Embedder | None, folder: Path) -> Path:
    """The agent questions' dev split, each in its own context over the sample corpus; the file."""
    from .provision import scratch_index
    from .questions import DEFAULT_CORPUS, DEFAULT_QUESTIONS, ask, read_questions
    from .suite import QUESTIONS

    questions = [q for q in read_questions(DEFAULT_QUESTIONS) if q.split == DEVELOPMENT_SPLIT]
    lines = DEFAULT_CORPUS.read_text(encoding="utf-8").splitlines()
    with scratch_index(settings, lines, embedder=embedder, label=QUESTIONS):
        found = [
            observation
            for question in questions
            for mode in MODES
            for observation in observations_of(
                QUESTIONS,
                mode,
                question.id,
                ask(question, mode, TOP_K, ORDER)["hits"],
                question.judgments,
                question.text,
            )
        ]
    path = folder / f"{_file_name(QUESTIONS)}.jsonl"
    save(path, found)
    print(
        f"{QUESTIONS}: {len(questions)} questions (dev split), {len(found)} hits saved to {path}", flush=True
    )
    return path


DEVELOPMENT_SPLIT = "dev"
"""The agent questions' half that may be tuned on (the other is their test half)."""


def _file_name(collection: str) -> str:
    return collection.lower().replace(" ", "-")


# --- fitting ---------------------------------------------------------------------------------------------

AT = 10
"""The top the fit and the reliability table read."""
THRESHOLD = 0.4
"""The strands ``retrieve`` tool's default ``min_score`` (and ``BedrockKnowledgeBaseStore``'s)."""
KEEP = 0.95
DROP = 0.5
"""The issue's bar: at ``THRESHOLD``, at least ``KEEP`` of the relevant top-``AT`` hits kept and at least
``DROP`` of the others left out, on every collection."""
RIDGE = 0.01
"""The L2 penalty on the weights (not the intercept), in units of one collection's total weight."""
SIGNS = {"score": 1.0, "log_position": -1.0, "similarity": 1.0, "both_arms": 1.0}
"""The sign each feature's weight must have (``RelevanceModel``'s bounds): a feature that comes out of
the fit with the other sign is left out and the rest refitted."""


def features(observation: Observation) -> tuple[float, ...]:
    """``relevance.hit_features`` of the observed hit: what the pager reads."""
    arm_scores = {arm: signal[1] for arm, signal in observation.signals.items()}
    return hit_features(observation.score, observation.position, arm_scores)


def fit_model(
    observations: Sequence[Observation], mode: str, chosen: Collection[str] = FEATURES
) -> RelevanceModel:
    """``mode``'s logistic model on the top-``AT`` hits of ``observations`` (each collection weighing
    the same in total) over the ``chosen`` features (the others weigh 0), its ``operating_shift`` the
    least that keeps ``KEEP`` of every collection's relevant hits at ``THRESHOLD`` or above."""
    import numpy as np

    rows = [o for o in observations if o.mode == mode and o.position <= AT]
    sizes: dict[str, int] = {}
    for o in rows:
        sizes[o.collection] = sizes.get(o.collection, 0) + 1
    table_ = np.array([features(o) for o in rows])
    y = np.array([float(o.relevant) for o in rows])
    weight = np.array([1.0 / sizes[o.collection] for o in rows])
    used = [name for name in FEATURES if name in chosen]
    while True:
        columns = [FEATURES.index(name) for name in used]
        coefficients = logistic(table_[:, columns], y, weight)
        fitted = dict(zip(used, (float(c) for c in coefficients[:-1]), strict=True))
        wrong = [name for name, value in fitted.items() if value * SIGNS[name] < 0]
        if not wrong:
            break
        used = [name for name in used if name not in wrong]
    weights = {name: round(fitted.get(name, 0.0), 4) + 0.0 for name in FEATURES}
    unshifted = RelevanceModel(intercept=round(float(coefficients[-1]), 4), operating_shift=0.0, **weights)
    shift = max(
        _logit(THRESHOLD) - _quantile(relevant_log_odds(unshifted, rows, collection), 1 - KEEP)
        for collection in sizes
    )
    return unshifted.model_copy(update={"operating_shift": round(shift + 1e-4, 4)})


def logistic(table_: Any, y: Any, weight: Any) -> Any:
    """The coefficients (one per column of ``table_``, then the intercept) of a logistic regression of
    ``y`` on ``table_`` with each row weighing ``weight``, the weights (not the intercept) penalised by
    ``RIDGE``: Newton's method on the penalised log-likelihood (it is convex). numpy arrays."""
    import numpy as np

    x = np.hstack([table_, np.ones((len(y), 1))])
    penalty = RIDGE * np.diag([1.0] * table_.shape[1] + [0.0])
    coefficients = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-x @ coefficients))
        gradient = x.T @ (weight * (p - y)) + penalty @ coefficients
        hessian = (x.T * (weight * p * (1 - p))) @ x + penalty
        step = np.linalg.solve(hessian, gradient)
        coefficients -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return coefficients


def relevant_log_odds(model: RelevanceModel, rows: Sequence[Observation], collection: str) -> list[float]:
    """The log-odds the pager gives ``collection``'s relevant top-``AT`` hits (each capped by the hits
    above it, as a page never rises)."""
    return [
        value
        for o, value in answered_log_odds(model, [r for r in rows if r.collection == collection])
        if o.relevant
    ]


def answered_log_odds(model: RelevanceModel, rows: Iterable[Observation]) -> list[tuple[Observation, float]]:
    """Each observation's log-odds as the pager answers it: the model's, never above a hit before it in
    its question's answer."""
    answered = []
    for group in by_query(rows):
        floor = math.inf
        for o in group:
            floor = min(floor, log_odds(model, features(o)))
            answered.append((o, floor))
    return answered


@dataclass(frozen=True, slots=True)
class Reliability:
    """One collection and mode at ``THRESHOLD``, over each question's top ``AT``."""

    collection: str
    mode: str
    hits: int
    relevant: int
    precision_above: float | None
    """The share of hits at or above the threshold that are relevant."""
    relevant_below: float | None
    """The share of relevant hits below it."""
    irrelevant_dropped: float | None
    mean_probability: float
    """The model's own probability (the shift taken off), averaged: beside the share relevant."""
    best_dropped: float | None = None
    """The trade-off on this collection alone: the share of the others below the highest threshold that
    still keeps ``KEEP`` of its relevant hits (what any threshold on these values can drop here)."""
    half_threshold: float | None = None
    """The least threshold that drops ``DROP`` of the others here, and the share of the relevant it keeps."""
    kept_at_half: float | None = None

    @property
    def holds(self) -> bool:
        kept = self.relevant_below is None or 1 - self.relevant_below >= KEEP
        return kept and self.irrelevant_dropped is not None and self.irrelevant_dropped >= DROP


def reliability(
    scored: Sequence[tuple[Observation, float]], collection: str, mode: str, shift: float
) -> Reliability:
    """The table's row from each observation's relevance (as the handler answered it, or as a model
    gives it)."""
    rows = [(o, r) for o, r in scored if o.position <= AT]
    above = [o for o, r in rows if r >= THRESHOLD]
    relevant = [r for o, r in rows if o.relevant]
    irrelevant = [r for o, r in rows if not o.relevant]
    probabilities = [_sigmoid(_logit(min(max(r, 1e-6), 1 - 1e-6)) - shift) for _, r in rows]
    keeping = _quantile(relevant, 1 - KEEP)
    halving = sorted(irrelevant)[math.ceil(DROP * len(irrelevant)) - 1] if irrelevant else None
    half = None if halving is None else min((r for r in irrelevant + relevant if r > halving), default=1.0)
    return Reliability(
        collection=collection,
        mode=mode,
        hits=len(rows),
        relevant=len(relevant),
        precision_above=_share(sum(o.relevant for o in above), len(above)),
        relevant_below=_share(sum(r < THRESHOLD for r in relevant), len(relevant)),
        irrelevant_dropped=_share(sum(r < THRESHOLD for r in irrelevant), len(irrelevant)),
        mean_probability=math.fsum(probabilities) / max(len(probabilities), 1),
        best_dropped=_share(sum(r < keeping for r in irrelevant), len(irrelevant)) if relevant else None,
        half_threshold=half,
        kept_at_half=None if half is None else _share(sum(r >= half for r in relevant), len(relevant)),
    )


def table(rows: Sequence[Reliability]) -> str:
    """The Markdown table docs/BEDROCK.md quotes."""
    lines = [
        "| collection | mode | top-10 hits | relevant | relevant among >= 0.4 | relevant below 0.4 | "
        "relevant kept at 0.4 | others dropped at 0.4 | mean model probability | keeps 95%, drops half | "
        "own threshold keeping 95%: others dropped | own threshold dropping half: relevant kept |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        kept = None if row.relevant_below is None else 1 - row.relevant_below
        half = (
            "-"
            if row.half_threshold is None
            else f"{_percent(row.kept_at_half)} (at {row.half_threshold:.2f})"
        )
        lines.append(
            f"| {row.collection} | {row.mode} | {row.hits} | "
            f"{row.relevant} ({row.relevant / row.hits:.0%}) | "
            f"{_percent(row.precision_above)} | {_percent(row.relevant_below)} | {_percent(kept)} | "
            f"{_percent(row.irrelevant_dropped)} | {row.mean_probability:.0%} | "
            f"{'yes' if row.holds else 'no'} | {_percent(row.best_dropped)} | {half} |"
        )
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _quantile(values: Sequence[float], q: float) -> float:
    """The lower ``q`` quantile: the largest value with at most ``q`` of the values below it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.floor(q * len(ordered)))] if ordered else math.inf


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def fit(observations: Sequence[Observation], chosen: Collection[str] = FEATURES) -> dict[str, RelevanceModel]:
    """A model per mode observed, over the ``chosen`` features."""
    return {mode: fit_model(observations, mode, chosen) for mode in _modes(observations)}


def scored_by(models: Mapping[str, RelevanceModel], observations: Sequence[Observation]) -> list[Reliability]:
    """Each collection and mode's row with ``models``' relevance."""
    rows = []
    for mode, model in models.items():
        for collection in _collections(observations):
            mine = [o for o in observations if o.mode == mode and o.collection == collection]
            scored = [(o, _sigmoid(v)) for o, v in answered_log_odds(model, mine)]
            rows.append(reliability(scored, collection, mode, model.operating_shift))
    return rows


def held_out(observations: Sequence[Observation], chosen: Collection[str] = FEATURES) -> list[Reliability]:
    """Each collection scored by the models fitted on every other collection (its weights and shift)."""
    rows = []
    for collection in _collections(observations):
        others = [o for o in observations if o.collection != collection]
        mine = [o for o in observations if o.collection == collection]
        rows += scored_by(fit(others, chosen), mine)
    return rows


SHIPPED = ("score", "log_position")
"""The features ``relevance.py``'s models are fitted on (the others weigh 0): of ``STUDIED``, the set
whose held-out figures hold best on every collection (docs/BEDROCK.md, Scores)."""
STUDIED = (
    ("score", "log_position"),
    ("score", "log_position", "similarity"),
    ("score", "log_position", "both_arms"),
    FEATURES,
)
"""The feature sets the report compares (docs/BEDROCK.md, Scores): the ranking alone, then what is
comparable across questions (the vector arm's similarity) and the arms' agreement."""


def study(observations: Sequence[Observation]) -> str:
    """Per feature set, mode and collection: held out, the share of the relevant kept and of the others
    dropped at ``THRESHOLD``; and the most any threshold on that fit drops on the collection alone while
    keeping ``KEEP`` of its relevant (fitted on every collection: how far the features separate)."""
    lines = [
        "| features | mode | " + " | ".join(_collections(observations)) + " |",
        "|---|---|" + "---|" * len(_collections(observations)),
    ]
    for chosen in STUDIED:
        held = {(r.mode, r.collection): r for r in held_out(observations, chosen)}
        inside = {(r.mode, r.collection): r for r in scored_by(fit(observations, chosen), observations)}
        for mode in ("hybrid", "vector"):
            if (mode, _collections(observations)[0]) not in held:
                continue
            cells = []
            for collection in _collections(observations):
                out, best = held[(mode, collection)], inside[(mode, collection)]
                kept = None if out.relevant_below is None else 1 - out.relevant_below
                cells.append(
                    f"{_percent(kept)} / {_percent(out.irrelevant_dropped)} ({_percent(best.best_dropped)})"
                )
            lines.append(f"| {' + '.join(chosen)} | {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def answered(observations: Sequence[Observation], models: Mapping[str, RelevanceModel]) -> list[Reliability]:
    """Each collection and mode's row with the relevance the handler answered (observed with it)."""
    rows = []
    for mode in _modes(observations):
        for collection in _collections(observations):
            mine = [
                (o, o.relevance)
                for o in observations
                if o.mode == mode and o.collection == collection and o.relevance is not None
            ]
            if mine:
                shift = models[mode].operating_shift if mode in models else 0.0
                rows.append(reliability(mine, collection, mode, shift))
    return rows


def report(observations: Sequence[Observation]) -> str:
    """The fitted constants for ``relevance.py``, the table in and out of sample, and the handler's own."""
    models = fit(observations, SHIPPED)
    sections = [
        "fitted (paste into retrieval_core/retrieval/relevance.py's RELEVANCE.models):",
        "{\n" + "".join(f'    "{mode}": {model!r},\n' for mode, model in models.items()) + "}",
        f"\nin sample (fitted on every collection; top {AT}, threshold {THRESHOLD}):\n",
        table(sorted(scored_by(models, observations), key=_order)),
        "\nheld out (each collection scored by the models fitted on the others):\n",
        table(sorted(held_out(observations, SHIPPED), key=_order)),
        "\nfeature sets, held out: relevant kept / others dropped at 0.4 (in sample, the most a threshold "
        "keeping 95% drops on the collection alone):\n",
        study(observations),
    ]
    measured = answered(observations, RELEVANCE.models)
    if measured:
        sections += [
            "\nas the handler answered (relevance.py's RELEVANCE when the hits were observed):\n",
            table(sorted(measured, key=_order)),
        ]
    return "\n".join(sections)


def _order(row: Reliability) -> tuple[int, str]:
    return (MODES.index(row.mode) if row.mode in MODES else len(MODES), row.collection)


def _modes(observations: Iterable[Observation]) -> list[str]:
    return list(dict.fromkeys(o.mode for o in observations))


def _collections(observations: Iterable[Observation]) -> list[str]:
    return list(dict.fromkeys(o.collection for o in observations))
