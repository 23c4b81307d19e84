"""``retrieval eval-questions``: ``auto`` beside ``hybrid`` on judged agent questions over the sample corpus.

Loads the corpus (both contexts) into a fresh alias, asks every question of data/agent-questions in its
own context through the retrieve handler in each mode, prints nDCG@5/@10 per split (dev, test, all)
with OpenSearch calls per question, and saves a JSON record under ``.eval/``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..evaluation.questions import Question, QuestionRun


def configure(parser: argparse.ArgumentParser) -> None:
    from ..evaluation.embedding_cache import add_cache_arguments
    from ..evaluation.questions import DEFAULT_CORPUS, DEFAULT_QUESTIONS, MODES, TOP_K

    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--top-k", type=int, default=TOP_K)
    parser.add_argument("--out", type=Path, default=Path(".eval"), help="Folder for the JSON record.")
    add_cache_arguments(parser)
    parser.add_argument("--show", action="store_true", help="Print each question's scores and inferences.")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .environment import use_local_stack_env

    use_local_stack_env()
    from retrieval_core import bootstrap
    from retrieval_core.config import Settings
    from retrieval_core.errors import RetrievalError

    from ..evaluation.embedding_cache import cached_embedder
    from ..evaluation.provision import scratch_index
    from ..evaluation.questions import read_questions, run_questions, table

    questions = read_questions(args.questions)
    lines = args.corpus.read_text(encoding="utf-8").splitlines()
    print(f"loading {len(lines)} items from {args.corpus}; {len(questions)} questions", flush=True)
    try:
        embedder = cached_embedder(args, bootstrap.container().embedder)
        with scratch_index(Settings.from_env(), lines, embedder=embedder):
            runs = {mode: run_questions(mode, questions, args.top_k) for mode in args.modes}
    except RetrievalError as error:
        print(f"retrieval eval-questions: {error.message}", file=sys.stderr)
        return 1
    now = datetime.now(UTC)
    print(f"\n{args.questions.name}: {len(questions)} questions, top_k={args.top_k}, {now:%Y-%m-%d}\n")
    print(table(runs, questions))
    if args.show:
        _show(questions, runs)
    path = _save(args, now, runs)
    print(f"saved {path}")
    return 0


def _show(questions: Sequence[Question], runs: Mapping[str, QuestionRun]) -> None:
    """``--show``: each question's scores in every mode, and what ``auto`` inferred from it."""
    for question in questions:
        scores = "  ".join(
            f"{m} {r.ndcg5[question.id]:.2f}/{r.ndcg10[question.id]:.2f}" for m, r in runs.items()
        )
        print(f"\n{question.id} [{question.split}] {question.text}\n  {scores}")
        if "auto" in runs:
            for inference in runs["auto"].inferred[question.id]:
                print(f"  inferred {inference['span']!r} -> {inference['became']} {inference['value']}")


def _save(args: argparse.Namespace, now: datetime, runs: Mapping[str, QuestionRun]) -> Path:
    """The JSON record under ``--out``, named by ``now``; its path."""
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"questions-{now:%Y%m%dT%H%M%SZ}.json"
    record = {
        "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "questions": str(args.questions),
        "corpus": str(args.corpus),
        "top_k": args.top_k,
        "runs": {
            mode: {
                "ndcg@5": r.ndcg5,
                "ndcg@10": r.ndcg10,
                "round_trips": r.round_trips,
                "latencies_ms": r.latencies_ms,
                "inferred": r.inferred,
            }
            for mode, r in runs.items()
        },
    }
    path.write_text(json.dumps(record, indent=2))
    return path
