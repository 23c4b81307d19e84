"""How far one warm hybrid request wanders through the product's code (``bench.flow``): the files it
enters and how often control changes file, through the real retrieve handler over the real stack. The
ceilings are today's figures (a change that makes the request wander further fails here), which meet
issue 50's aim of 30 files and 100 switches."""

from __future__ import annotations

import contextlib
import json

from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import FUNCTION_OUTPUT, LambdaContext, handler_module

from bench.flow import counted

FILES = 30
SWITCHES = 92


def test_one_warm_hybrid_request_enters_few_files(corpus_settings: Settings) -> None:
    body = {"mode": "hybrid", "text": "which supplier ships the widget parts", "top_k": 5}
    event = api_event("POST", "/v1/retrieve", "acme", body=body)
    with contextlib.redirect_stdout(FUNCTION_OUTPUT):
        handler = handler_module("retrieve").lambda_handler
        warm = handler(event, LambdaContext(function_name="retrieve"))
        answer, flow = counted(lambda: handler(event, LambdaContext(function_name="retrieve")))
    assert warm["statusCode"] == answer["statusCode"] == 200
    assert json.loads(answer["body"])["hits"], "the request must rank something for the count to mean much"
    print(flow.summary(), *flow.files.most_common(), *flow.crossings.most_common(), sep="\n  ")
    assert len(flow.files) <= FILES, flow.summary()
    assert flow.switches <= SWITCHES, flow.summary()
