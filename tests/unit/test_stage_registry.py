"""A stage is one module and one line: a toy stage, written here only, registered with one line
(``STAGES.with_hit_stage``) and run through the real retrieve handler over in-memory fakes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from retrieval_core.retrieval.pipeline import STAGES
from retrieval_core.retrieval.stages.base import Job, Ranked, Step
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import invoke
from toy_registry import served_with


def reversed_ranking(job: Job, ranked: Ranked) -> Step[Ranked]:
    """The toy stage: the ranking upside down (a stage only returns its value and what it applied)."""
    return Step(replace(ranked, hits=ranked.hits[::-1]))


@pytest.fixture
def serve() -> Iterator[Any]:
    """Serves the handler over the fakes with the given stages."""
    yield lambda stages: served_with({"stages": stages})


def ranked_ids(body: dict[str, Any]) -> list[str]:
    event = api_event("POST", "/v1/retrieve", "acme", body=body)
    response = invoke("retrieve", event)
    assert response["statusCode"] == 200, response["body"]
    return [hit["id"] for hit in json.loads(response["body"])["hits"]]


def test_a_toy_stage_registered_with_one_line_runs_in_the_real_handler(serve: Any) -> None:
    body = {"mode": "lexical", "text": "payments team", "top_k": 3}
    with serve(STAGES):
        plain = ranked_ids(body)
    with serve(STAGES.with_hit_stage(lambda capabilities, config: reversed_ranking)):
        toy = ranked_ids(body)
    assert len(plain) == 3 and toy == plain[::-1]


def test_the_declared_stages_are_the_pipeline_s_own() -> None:
    assert len(STAGES.query) == len(STAGES.pool) == 1 and len(STAGES.hits) == 4
    assert STAGES.with_hit_stage(lambda capabilities, config: reversed_ranking).hits[:4] == STAGES.hits


def test_a_stage_whose_line_says_it_has_no_work_is_never_entered(serve: Any) -> None:
    entered: list[str] = []

    def noting(job: Job, ranked: Ranked) -> Step[Ranked]:
        entered.append(job.mode)
        return reversed_ranking(job, ranked)

    body = {"mode": "lexical", "text": "payments team", "top_k": 3}
    with serve(STAGES):
        plain = ranked_ids(body)
    with serve(
        STAGES.with_hit_stage(lambda capabilities, config: noting, when=lambda job: job.mode == "vector")
    ):
        assert ranked_ids(body) == plain and entered == []
        ranked_ids({**body, "mode": "vector"})
    assert entered == ["vector"]
