"""Agent questions over the sample corpus (data/agent-questions): ``auto`` beside ``hybrid``, nDCG@5/@10.

Each question is asked through the retrieve handler in its own context (an API Gateway event with that
context's authorizer claim), exactly as an agent's call arrives; ``auto`` is also given the question's
``now`` (the time relative cues are read against: the corpus is a snapshot, the questions were asked in
it). Scores are split by the questions' ``split`` (``dev``: the half the arm weights were tuned on;
``test``: the half they were not) and over all of them.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter

from .metrics import mean, ndcg, reciprocal_rank
from .runner import EvalQueryError, percentile

DEFAULT_QUESTIONS = Path(__file__).resolve().parents[3] / "data" / "agent-questions" / "questions.jsonl"
DEFAULT_CORPUS = Path(__file__).resolve().parents[3] / "dev" / "sample" / "corpus.jsonl"
MODES = ("hybrid", "auto")
TOP_K = 10
SPLITS = ("dev", "test", "all")


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    context_id: str
    text: str
    now: str
    split: str
    judgments: dict[str, int]


_QUESTION: TypeAdapter[Question] = TypeAdapter(Question)


def read_questions(path: Path) -> list[Question]:
    return [_QUESTION.validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@dataclass
class QuestionRun:
    """One mode over every question: per-question nDCG@5 and @10, latencies and OpenSearch calls."""

    mode: str
    ndcg5: dict[str, float] = field(default_factory=dict)
    ndcg10: dict[str, float] = field(default_factory=dict)
    mrr10: dict[str, float] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    round_trips: list[int] = field(default_factory=list)
    inferred: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def means(self, ids: Sequence[str]) -> tuple[float | None, float | None]:
        return mean(self.ndcg5[i] for i in ids), mean(self.ndcg10[i] for i in ids)


def ask(
    question: Question, mode: str, top_k: int = TOP_K, options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The handler's response body for one question in ``mode``; ``options`` are further request fields
    (fusion, feedback, rerank)."""
    from ..cli.events import api_event
    from ..cli.lambda_runtime import invoke

    body: dict[str, Any] = {**(options or {}), "mode": mode, "text": question.text, "top_k": top_k}
    if mode == "auto":
        body["now"] = question.now
    sink = io.StringIO()
    with redirect_stdout(sink), redirect_stderr(sink):
        response = invoke("retrieve", api_event("POST", "/v1/retrieve", question.context_id, body=body))
    payload: dict[str, Any] = json.loads(response["body"])
    if response["statusCode"] != 200 or not payload.get("supported", True):
        raise EvalQueryError(f"{mode} question {question.id} failed with {response['statusCode']}: {payload}")
    return payload


def run_questions(
    mode: str, questions: Sequence[Question], top_k: int = TOP_K, options: Mapping[str, Any] | None = None
) -> QuestionRun:
    """Every question once in ``mode`` (with ``options``), timed, with its OpenSearch calls counted (one
    warm-up first)."""
    from retrieval_core import bootstrap

    if questions:
        ask(questions[0], mode, top_k, options)
    store = bootstrap.container().store
    run = QuestionRun(mode)
    for question in questions:
        calls = store.backend_calls
        started = time.perf_counter()
        payload = ask(question, mode, top_k, options)
        run.latencies_ms.append((time.perf_counter() - started) * 1000)
        run.round_trips.append(store.backend_calls - calls)
        ranking = [hit["id"] for hit in payload["hits"]]
        run.ndcg5[question.id] = ndcg(ranking, question.judgments, 5) or 0.0
        run.ndcg10[question.id] = ndcg(ranking, question.judgments, 10) or 0.0
        run.mrr10[question.id] = reciprocal_rank(ranking, question.judgments, 10) or 0.0
        run.inferred[question.id] = payload["applied"].get("inferred") or []
    return run


def split_ids(questions: Sequence[Question]) -> dict[str, list[str]]:
    return {
        split: [q.id for q in questions if split == "all" or q.split == split]
        for split in SPLITS
        if split == "all" or any(q.split == split for q in questions)
    }


def table(runs: Mapping[str, QuestionRun], questions: Sequence[Question]) -> str:
    """One row per split and mode, then auto's nDCG@5 as a multiple of hybrid's."""
    rows = [
        f"{'split':<6} {'mode':<7} {'questions':>9} {'nDCG@5':>7} {'nDCG@10':>8} {'calls':>6} {'p50 ms':>7}"
    ]
    ratios = []
    for split, ids in split_ids(questions).items():
        for mode, run in runs.items():
            at5, at10 = run.means(ids)
            calls = mean(run.round_trips)
            rows.append(
                f"{split:<6} {mode:<7} {len(ids):>9} {at5 or 0:>7.3f} {at10 or 0:>8.3f} {calls or 0:>6.2f} "
                f"{percentile(run.latencies_ms, 50) or 0:>7.1f}"
            )
        if "auto" in runs and "hybrid" in runs:
            auto5, hybrid5 = runs["auto"].means(ids)[0], runs["hybrid"].means(ids)[0]
            if auto5 is not None and hybrid5:
                ratios.append(f"{split}: auto/hybrid nDCG@5 = {auto5 / hybrid5:.2f}x")
    return "\n".join([*rows, "", *ratios])
