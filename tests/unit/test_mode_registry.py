"""A mode is one entry and one line: a toy mode, written here only, registered with one line
(``MODES.with_mode``, the container's ``modes`` override) and run through the real retrieve handler over
in-memory fakes; a name no registry serves is refused as before."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from retrieval_core.ports import Capabilities, LexicalSearch
from retrieval_core.retrieval.config import RetrievalConfig
from retrieval_core.retrieval.errors import CapabilityMissingError
from retrieval_core.retrieval.feedback import FeedbackOptions
from retrieval_core.retrieval.modes import MODES, ModeSpec
from retrieval_core.retrieval.plans import Plan, plan_as
from retrieval_core.retrieval.requests import SERVED_MODES, Mode, RetrieveRequest
from retrieval_core.retrieval.stages.base import FirstPass, Job, Searched, SearchQuery, Step
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import invoke
from toy_registry import served_with


@dataclass(frozen=True, slots=True, kw_only=True)
class LastWordPlan(Plan):
    """The toy mode's plan: it searches by the question's last word alone."""

    word: str


def last_word_plan(request: RetrieveRequest) -> LastWordPlan:
    text = request.text or ""
    return LastWordPlan(text=text, word=text.split()[-1])


class LastWordArm:
    """The toy mode's arm: BM25 over the plan's word (and no feedback)."""

    def __init__(self, capabilities: Capabilities) -> None:
        self._lexical = capabilities.lexical

    def _store(self) -> LexicalSearch:
        if self._lexical is None:
            raise CapabilityMissingError("lexical")
        return self._lexical

    def check(self, job: Job) -> None:
        self._store()

    def first_pass(self, job: Job, query: SearchQuery, options: FeedbackOptions) -> FirstPass | None:
        return None

    def search(self, job: Job, query: SearchQuery) -> Step[Searched]:
        word = plan_as(job.plan, LastWordPlan).word
        found = self._store().lexical(job.context_id, word, job.filters)
        return Step(Searched({"last_word": found}, asked=job.size, fuse=False, single="by_best"))


def last_word_arms(capabilities: Capabilities, config: RetrievalConfig) -> LastWordArm:
    return LastWordArm(capabilities)


LAST_WORD = ModeSpec("last_word", last_word_plan, last_word_arms, needs=("text",))


@pytest.fixture
def serve() -> Iterator[Any]:
    """Serves the handler over the fakes with the given modes."""
    yield lambda modes: served_with({"modes": modes})


def retrieve(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = invoke("retrieve", api_event("POST", "/v1/retrieve", "acme", body=body))
    return response["statusCode"], json.loads(response["body"])


def test_a_toy_mode_registered_with_one_line_runs_in_the_real_handler(serve: Any) -> None:
    with serve(MODES.with_mode(LAST_WORD)):
        status, body = retrieve({"mode": "last_word", "text": "who runs the office", "top_k": 3})
    assert status == 200, body
    assert (body["mode"], body["supported"], body["arms"]) == ("last_word", True, ["last_word"])
    assert [hit["id"] for hit in body["hits"]] == ["acme:p-2"]  # "office" alone, not the question


def test_a_registered_mode_still_needs_its_fields(serve: Any) -> None:
    with serve(MODES.with_mode(LAST_WORD)):
        status, body = retrieve({"mode": "last_word", "entity_id": "acme:e"})
    assert status == 422 and "text is required for mode 'last_word'" in json.dumps(body)


def test_a_mode_no_registry_serves_is_refused_as_before(serve: Any) -> None:
    with serve(MODES):
        status, body = retrieve({"mode": "last_word", "text": "who runs the office"})
    assert status == 422 and "mode" in json.dumps(body)
    with pytest.raises(ValueError, match="Input should be 'lexical'"):
        RetrieveRequest.model_validate({"mode": "last_word", "text": "x"})  # no registry: public modes only


def test_the_registry_holds_the_public_modes_each_once() -> None:
    assert list(MODES.specs) == [
        Mode.LEXICAL,
        Mode.VECTOR,
        Mode.HYBRID,
        Mode.AUTO,
        Mode.ENTITY,
        Mode.TEMPORAL,
        Mode.GRAPH_WALK,
    ]
    assert set(MODES.specs) == set(Mode) and MODES.served_needs == {}
    assert MODES.with_mode(LAST_WORD).specs.keys() - MODES.specs.keys() == {"last_word"}


def test_the_toy_plan_reads_the_request_once() -> None:
    request = RetrieveRequest.model_validate(
        {"mode": "last_word", "text": "payments office"},
        context={SERVED_MODES: MODES.with_mode(LAST_WORD).served_needs},
    )
    planned = MODES.with_mode(LAST_WORD).specs["last_word"].plan(request)
    assert planned == LastWordPlan(text="payments office", word="office")
