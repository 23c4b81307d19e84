"""``retrieval eval``: retrieval quality on a judged collection (Cranfield by default), end to end.

Loads the documents with the project's loader into a fresh index, runs every query through the retrieve
handler in each mode, prints one table row per mode (nDCG@10 first, then Recall@100, MRR@10 and
latency) and saves a JSON record with the configuration used under ``.eval/``. ``--beir DIR`` reads a
BEIR folder instead of the three JSON files; ``--suite`` runs every configuration on every collection of
the team's suite (Cranfield dev, CACM, the multi-hop sets, Sphinx's manual, the agent questions) and
prints the multi-collection tables.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel
    from retrieval_core.config import Settings
    from retrieval_core.ports import Embedder

    from ..evaluation.collection import Document, Query
    from ..evaluation.compare import Configuration
    from ..evaluation.runner import ModeResult
    from ..evaluation.suite import Suite


def configure(parser: argparse.ArgumentParser) -> None:
    from ..evaluation.beir import DEFAULT_SPLIT
    from ..evaluation.collection import DATA_ENV
    from ..evaluation.embedding_cache import add_cache_arguments
    from ..evaluation.runner import MODE_CHOICES, MODES, TOP_K

    parser.add_argument(
        "--data",
        type=Path,
        metavar="DIR",
        help=f"The folder holding the collections (cranfield/, cacm/); default ${DATA_ENV}.",
    )
    parser.add_argument("--documents", type=Path, help="Default: DIR/cranfield/documents.json.")
    parser.add_argument("--queries", type=Path, help="Default: DIR/cranfield/queries-dev.json.")
    parser.add_argument("--qrels", type=Path, help="Default: DIR/cranfield/qrels-dev.json.")
    parser.add_argument(
        "--beir",
        type=Path,
        metavar="DIR",
        help="A BEIR folder (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv).",
    )
    parser.add_argument("--split", default=DEFAULT_SPLIT, help="--beir: the qrels split to evaluate.")
    _suite_arguments(parser)
    _calibration_arguments(parser)
    add_cache_arguments(parser)
    parser.add_argument("--modes", nargs="+", choices=MODE_CHOICES, default=list(MODES))
    parser.add_argument("--top-k", type=int, default=TOP_K, help="Hits asked for per query (max 100).")
    parser.add_argument("--limit", type=int, help="Only the first N queries (smoke runs).")
    parser.add_argument("--out", type=Path, default=Path(".eval"), help="Folder for the JSON record.")
    parser.add_argument(
        "--as-files",
        action="store_true",
        help="Ingest the documents as files through the ingest function (parsed, chunked) instead of "
        "loading them as JSON Lines: .txt files, or with --beir Markdown pages (# title, then the text: "
        "the title is the page's entity), scored the same way (docs/QUALITY.md).",
    )
    parser.add_argument(
        "--compare",
        nargs="*",
        metavar="CONFIGURATION",
        help="Configurations for the comparison table (default: all of evaluation/compare.py's); "
        "give none to skip the table.",
    )
    parser.set_defaults(run=run)


def _suite_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--suite",
        action="store_true",
        help="Every configuration on Cranfield dev, CACM, the multi-hop sets, Sphinx's manual (fetched "
        "from Debian on first use) and the agent questions: the multi-collection tables (docs/QUALITY.md) "
        "and the configuration its rule picks.",
    )
    parser.add_argument(
        "--docs",
        type=Path,
        metavar="DIR",
        help="--suite: the documentation folder of Sphinx's manual (default: fetched into .cache/).",
    )


def _calibration_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--calibration",
        action="store_true",
        help="Ask every question of the suite's collections in hybrid, vector and lexical, save each "
        "judged hit under .eval/calibration/, refit the relevance calibration and print its reliability "
        "per collection (docs/BEDROCK.md, Scores).",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="COLLECTION",
        help="--suite, --calibration: only these collections ('Cranfield dev', CACM, a multi-hop set's "
        "folder name, 'Sphinx manual', 'agent questions'); --calibration keeps the others' saved hits.",
    )
    parser.add_argument(
        "--saved",
        action="store_true",
        help="--calibration: refit from the hits saved by the last run, without the stack.",
    )
    parser.add_argument(
        "--passages",
        action="store_true",
        help="--calibration: also try the features that read the passage (the share of the question's IDF "
        "mass it holds, the cosine of its vector and the question's) held out (docs/BEDROCK.md, Scores).",
    )


def run(args: argparse.Namespace) -> int:
    if args.calibration and args.saved:
        return _calibration(args, None)
    from .environment import use_local_stack_env

    use_local_stack_env()
    from retrieval_core import bootstrap
    from retrieval_core.errors import RetrievalError

    from ..evaluation.embedding_cache import cached_embedder

    started = time.perf_counter()
    embedder = cached_embedder(args, bootstrap.container().embedder)
    if args.suite:
        return _suite(args, embedder)
    if args.calibration:
        return _calibration(args, embedder)
    if not args.beir:
        args.documents, args.queries, args.qrels = _files(args)
    try:
        judged = _read(args)
        measured = _evaluate(args, embedder, judged)
    except RetrievalError as error:
        print(f"retrieval eval: {error.message}", file=sys.stderr)
        return 1
    run_info = _run_info(args, judged, measured, started)
    _print_report(args, judged, measured, run_info)
    path = _save(args.out, measured, run_info)
    print(f"saved {path}")
    return 0


@dataclass(frozen=True, slots=True)
class _Judged:
    """The judged collection as this run uses it: where it was read from, its documents, the queries
    asked (``--limit`` applied) and their judgments."""

    source: Path
    documents: list[Document]
    queries: list[Query]
    qrels: dict[str, dict[str, int]]
    blank: int
    """Documents without text: the loader skips them."""


@dataclass(frozen=True, slots=True)
class _Measurements:
    """What the run measured in the evaluation index, and when (``perf_counter`` times)."""

    results: list[ModeResult]
    compared: list[Configuration]
    comparisons: dict[str, ModeResult]
    configuration: dict[str, Any]
    loaded: float
    finished: float
    """After the evaluation index was taken down."""
    now: datetime


def _read(args: argparse.Namespace) -> _Judged:
    """The collection ``--beir`` or the three files name; with ``--beir``, ``args.queries`` and
    ``args.qrels`` become its qrels file, which the report and the record name."""
    from ..evaluation.beir import read_beir
    from ..evaluation.collection import read_collection

    source = args.beir or args.documents
    if args.beir:
        print(f"reading the BEIR folder {args.beir} (split {args.split})", flush=True)
        collection = read_beir(args.beir, args.split)
        args.queries = args.qrels = args.beir / "qrels" / f"{args.split}.tsv"
    else:
        collection = read_collection(args.documents, args.queries, args.qrels)
    queries = collection.queries[: args.limit] if args.limit else collection.queries
    blank = sum(not doc.text for doc in collection.documents)
    print(
        f"loading {len(collection.documents)} documents ({blank} blank, skipped) from {source}",
        flush=True,
    )
    return _Judged(source, collection.documents, queries, collection.qrels, blank)


def _evaluate(args: argparse.Namespace, embedder: Embedder | None, judged: _Judged) -> _Measurements:
    """Load the documents into a fresh index, then run every mode and every compared configuration."""
    from retrieval_core.config import Settings

    from ..evaluation.as_files import files_index
    from ..evaluation.provision import evaluation_index
    from ..evaluation.runner import Run, run_interleaved, run_mode

    provision = (
        partial(files_index, embedder=embedder, pages=bool(args.beir))
        if args.as_files
        else partial(evaluation_index, embedder=embedder)
    )
    queries, qrels = judged.queries, judged.qrels
    with provision(Settings.from_env(), judged.documents) as settings:
        loaded = time.perf_counter()
        results = [
            _measured(f"eval {mode}", len(queries), partial(run_mode, mode, queries, qrels, args.top_k))
            for mode in args.modes
        ]
        compared = _configurations(args.compare)
        # Interleaved query by query: on a shared machine, load changes weigh on every row alike.
        runs = [Run(c.name, c.mode, c.options) for c in compared]
        comparisons = _measured(
            "eval comparisons",
            len(queries) * len(runs),
            partial(run_interleaved, runs, queries, qrels, args.top_k),
        )
        configuration = _configuration(settings, args.top_k)
    finished = time.perf_counter()
    return _Measurements(results, compared, comparisons, configuration, loaded, finished, datetime.now(UTC))


def _configuration(settings: Settings, top_k: int) -> dict[str, Any]:
    """What the scores were measured with: the index, the ranking's settings and the embedder."""
    from retrieval_core import bootstrap

    from ..evaluation.provision import describe_index

    container = bootstrap.container()
    return {
        "index": describe_index(settings),
        "fusion": container.retrieval_config.fusion.model_dump(),
        "feedback": _dumped(container.retrieval_config.feedback),
        "rerank": container.retrieval_config.rerank.model_dump(),
        "embedder": container.embedder.name,
        "top_k": top_k,
        "gain": "linear (gain = grade), discount 1/log2(rank+1), trec_eval ndcg_cut",
    }


def _run_info(
    args: argparse.Namespace, judged: _Judged, measured: _Measurements, started: float
) -> dict[str, Any]:
    """The record's ``run``: what was evaluated, when, and how long loading and querying took."""
    return {
        "date": measured.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "documents": str(judged.source),
        "queries": str(args.queries),
        "qrels": str(args.qrels),
        "index_alias": measured.configuration["index"]["alias"],
        "document_count": len(judged.documents),
        "blank_documents_skipped": judged.blank,
        "query_count": len(judged.queries),
        "load_seconds": round(measured.loaded - started, 1),
        "query_seconds": round(measured.finished - measured.loaded, 1),
    }


def _print_report(
    args: argparse.Namespace, judged: _Judged, measured: _Measurements, run_info: dict[str, Any]
) -> None:
    """The table per mode, hybrid's gain, the comparison table (if any) and what the run used."""
    from ..evaluation.report import comparison, hybrid_gain, table

    print(
        f"\n{args.queries.name} ({len(judged.queries)} queries, {len(judged.documents)} documents), "
        f"{measured.now:%Y-%m-%d}, top_k={args.top_k}, through the retrieve handler\n"
    )
    print(table(measured.results))
    gain = hybrid_gain(measured.results)
    if gain is not None:
        print(f"\nhybrid vs the better single mode: {gain:+.1%} nDCG@10")
    if measured.comparisons:
        print(
            "\nconfigurations (request options over the deployment default; p: paired randomisation test)\n"
        )
        print(comparison(measured.comparisons, measured.compared))
    configuration = measured.configuration
    print(
        f"fusion: {configuration['fusion']}; feedback: {configuration['feedback']}; "
        f"embedder: {configuration['embedder']}; "
        f"load {run_info['load_seconds']} s, queries {run_info['query_seconds']} s"
    )


def _save(out: Path, measured: _Measurements, run_info: dict[str, Any]) -> Path:
    """The JSON record under ``out``, named by the run's time; its path."""
    from ..evaluation.report import record

    out.mkdir(parents=True, exist_ok=True)
    path = out / f"eval-{measured.now:%Y%m%dT%H%M%SZ}.json"
    saved = record(measured.results, run=run_info, configuration=measured.configuration)
    saved["comparison"] = {
        "configurations": _described(measured.compared),
        "summary": {name: result.summary() for name, result in measured.comparisons.items()},
        "per_query": {
            name: {q: vars(s) for q, s in r.scores.items()} for name, r in measured.comparisons.items()
        },
    }
    path.write_text(json.dumps(saved, indent=2))
    return path


def _suite(args: argparse.Namespace, embedder: Embedder | None) -> int:
    """The multi-collection tables (nDCG@10, MRR@10), the documentation collection's own, the
    configuration the default rule picks, and a JSON record."""
    from retrieval_core.config import Settings
    from retrieval_core.errors import RetrievalError

    from ..evaluation.suite import run_suite

    compared = _configurations(args.compare)
    started = time.perf_counter()
    try:
        suite = run_suite(
            compared,
            Settings.from_env(),
            embedder=embedder,
            data=args.data,
            docs=args.docs,
            only=None if args.only is None else set(args.only),
        )
    except RetrievalError as error:
        print(f"retrieval eval: {error.message}", file=sys.stderr)
        return 1
    now = datetime.now(UTC)
    chosen = _print_suite(suite, compared, now)
    print(f"{round(time.perf_counter() - started)} s")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"suite-{now:%Y%m%dT%H%M%SZ}.json"
    saved = {
        "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "configurations": _described(compared),
        "per_query_ndcg@10": suite.ndcg,
        "per_query_mrr@10": suite.mrr,
        "documentation": suite.documentation,
        "summaries": suite.summaries,
        "chosen": chosen,
    }
    path.write_text(json.dumps(saved, indent=2))
    print(f"saved {path}")
    return 0


def _print_suite(suite: Suite, compared: list[Configuration], now: datetime) -> str | None:
    """The suite's tables and the configuration the rule picks (its name, or None)."""
    from ..evaluation import documentation
    from ..evaluation.suite import choose, rows, table

    table_rows = rows(suite.ndcg, compared)
    print(
        f"\nnDCG@10 per collection ({now:%Y-%m-%d}, through the retrieve handler; in brackets the change "
        "against the configuration's baseline and its paired randomisation test)\n"
    )
    print(table(table_rows))
    print("\nMRR@10 per collection (the same runs, the same test)\n")
    print(table(rows(suite.mrr, compared)))
    print("\nlatency and OpenSearch round trips per request (p50 ms / round trips)\n")
    print(_costs(suite.summaries))
    if suite.documentation:
        print(f"\n{documentation.NAME}, page level (a page ranks where its best chunk does)\n")
        print(documentation.table(suite.documentation))
    chosen = choose(table_rows)
    print(
        "\nthe rule (no significant loss on any collection, then the best worst change, within 0.005, then "
        "the best mean) "
        f"picks: {chosen.configuration.name if chosen else 'nothing'}"
    )
    return chosen.configuration.name if chosen else None


def _costs(summaries: dict[str, dict[str, dict[str, Any]]]) -> str:
    """A Markdown table: per collection and configuration, the p50 latency and mean round trips."""
    names = list(dict.fromkeys(name for by_name in summaries.values() for name in by_name))
    lines = [["collection", *names], ["---"] * (len(names) + 1)]
    for collection, by_name in summaries.items():
        cells = [by_name.get(name) for name in names]
        lines.append(
            [
                collection,
                *("" if c is None else _cost(c["latency_ms_p50"], c["round_trips_mean"]) for c in cells),
            ]
        )
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def _cost(p50: float | None, round_trips: float | None) -> str:
    return f"{p50 or 0:.1f} / {round_trips or 0:.1f}"


def _calibration(args: argparse.Namespace, embedder: Embedder | None) -> int:
    """Observe the suite's collections (unless ``--saved``), then the fit and its reliability tables."""
    from retrieval_core.errors import RetrievalError

    from ..evaluation.calibration import CALIBRATION_FOLDER, observe, read, report

    if not args.saved:
        from retrieval_core.config import Settings

        try:
            observe(Settings.from_env(), embedder=embedder, data=args.data, only=args.only)
        except RetrievalError as error:
            print(f"retrieval eval: {error.message}", file=sys.stderr)
            return 1
    observations = read(CALIBRATION_FOLDER)
    if not observations:
        print(f"retrieval eval: no hits saved under {CALIBRATION_FOLDER}: leave out --saved", file=sys.stderr)
        return 1
    print(report(observations))
    if args.passages:
        from ..evaluation import passage_study

        if embedder is None:  # --saved: the local model, behind the cache the observation filled
            from retrieval_core import bootstrap

            from ..evaluation.embedding_cache import cached_embedder

            embedder = cached_embedder(args, bootstrap.container().embedder)
        assert embedder is not None, "--passages embeds the passages: leave out --no-cache"
        print("\npassage features:\n")
        print(passage_study.report(observations, embedder))
    return 0


def _files(args: argparse.Namespace) -> tuple[Path, Path, Path]:
    """``--documents``, ``--queries`` and ``--qrels``, each defaulting to Cranfield dev's under ``--data``."""
    from ..evaluation.collection import cranfield_dev, data_root

    if args.documents and args.queries and args.qrels:
        return args.documents, args.queries, args.qrels
    default = cranfield_dev(data_root(args.data))
    return args.documents or default.documents, args.queries or default.queries, args.qrels or default.qrels


T = TypeVar("T")


def _measured(label: str, total: int, work: Callable[..., T]) -> T:
    """``work(progress=...)`` with a bar of ``total`` queries on a terminal."""
    from .progress import Progress

    bar = Progress(total, label=label, unit="queries", quiet=not total)
    try:
        return work(progress=bar.update)
    finally:
        bar.close()


def _configurations(names: list[str] | None) -> list[Configuration]:
    """The named configurations (and the baselines they are tested against), in table order."""
    from ..evaluation.compare import CONFIGURATIONS

    if names is None:
        return list(CONFIGURATIONS)
    wanted = set(names)
    unknown = wanted - {c.name for c in CONFIGURATIONS}
    if unknown:
        raise SystemExit(f"retrieval eval: unknown configuration(s) {sorted(unknown)}")
    wanted |= {c.baseline for c in CONFIGURATIONS if c.name in wanted and c.baseline}
    return [c for c in CONFIGURATIONS if c.name in wanted]


def _described(compared: list[Configuration]) -> dict[str, dict[str, Any]]:
    """The record's account of each compared configuration: its mode, options and baseline."""
    return {c.name: {"mode": c.mode, "options": dict(c.options), "baseline": c.baseline} for c in compared}


def _dumped(model: BaseModel | None) -> dict[str, Any] | None:
    return None if model is None else model.model_dump()
