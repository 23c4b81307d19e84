"""The ranking pipeline: built once per container, one completeness rule for every mode, and a stage
reports what it applied through its ``Step`` alone."""

from __future__ import annotations

import pytest
from fake_functions import fake_functions
from retrieval_core.retrieval import pipeline
from retrieval_core.retrieval.stages.base import Pool
from retrieval_dev.cli.events import api_event


def test_the_pipeline_is_built_once_per_container(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []
    original = pipeline.RankingPipeline.__init__

    def counting(self: pipeline.RankingPipeline, *args: object, **kwargs: object) -> None:
        built.append(self)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline.RankingPipeline, "__init__", counting)
    with fake_functions() as functions:
        for text in ("Alice payments", "Bob ledger"):
            body = {"mode": "lexical", "text": text}
            status, _, _ = functions.api("retrieve", api_event("POST", "/v1/retrieve", "acme", body=body))
            assert status == 200
    assert len(built) == 1


@pytest.mark.parametrize(
    ("exhausted", "cut", "truncated", "complete"),
    [
        (True, False, False, True),  # every arm ran dry
        (False, True, False, True),  # min_score ended the ranking
        (False, False, False, False),  # an arm may hold more
        (True, False, True, False),  # kept fewer than ranked: more below
        (False, True, True, False),
    ],
)
def test_a_ranking_is_complete_by_one_rule(
    exhausted: bool, cut: bool, truncated: bool, complete: bool
) -> None:
    pool = Pool(
        fused=[], arms=("lexical",), kind_weights={}, exhausted=exhausted, cut=cut, truncated=truncated
    )
    assert pipeline.complete(pool) is complete
