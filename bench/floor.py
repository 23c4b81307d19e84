"""Section ``floor``: where retrieve's overhead budget goes. The lexical and vector searches of section 1
are also sent by handlers that do less and less of what the retrieve function does, all interleaved
with the raw call per query, so each step's share of the overhead can be read off as a ratio:

- ``search``: the event's body validated as ``RetrieveRequest``, the function's bounded search (node
  ``timeout``, ``cancel_after_time_interval``, ``request_timeout``: ``adapters.opensearch.store``)
  and the hits' ``_source`` as JSON;
- ``+ instruments``: that inside the function's Powertools Logger and Metrics decorators, one count
  flushed as an EMF line (``Instruments.wrap``);
- ``+ API frame``: that as a route behind the Powertools resolver and ``lambda_entry`` (claims, CORS,
  the deadline, error counts, the ``answered`` line, the validated-body middleware);
- ``+ response hits``: the hits built as the response's pydantic ``Hit`` models and written by pydantic;
- ``retrieve``: the function itself (session policy and receipt, page token, the ranking pipeline).

Every side runs in the dev runtime's stdout redirect, as ``invoke`` runs the function.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from aws_lambda_powertools.event_handler import Response
from pydantic import BaseModel
from retrieval_core import backend_calls
from retrieval_core.adapters.opensearch import queries
from retrieval_core.adapters.opensearch.client import IndexLayout, build_client
from retrieval_core.adapters.opensearch.store import bounded, cancel_after
from retrieval_core.config import Settings
from retrieval_core.entrypoints.api import api_function, lambda_entry, validated_body
from retrieval_core.entrypoints.instruments import Handler, Instruments
from retrieval_core.models.hits import Hit, Signal, hit_of
from retrieval_core.ports import SearchFilters
from retrieval_core.retrieval.requests import RetrieveRequest
from retrieval_dev.cli.lambda_runtime import FUNCTION_OUTPUT, LambdaContext, handler_module, invoke

from .corpus import CONTEXT, Corpus
from .handlers import HandlerFailedError, retrieve_event
from .progress import say
from .retrieve import TOP_K, WARMUP, Query, RawClient, build_queries, request_body
from .stats import Latency, median_ratio

MODES = ("lexical", "vector")


Call = Callable[[dict[str, Any]], dict[str, Any]]
"""One side: an API Gateway event in, the function's answer out."""


class _Answer(BaseModel):
    mode: str
    hits: list[Hit]


class _Search:
    """The retrieve function's search for a validated request, as its store sends it: ``top_k + 1`` deep
    (the first page asks one more to know whether another exists)."""

    def __init__(self, settings: Settings) -> None:
        self._client = build_client(settings)
        self._alias = IndexLayout.of(settings).alias(CONTEXT)
        self._timeout = settings.opensearch_timeout_seconds
        self._filters = SearchFilters(size=TOP_K + 1)

    def __call__(self, request: RetrieveRequest) -> list[dict[str, Any]]:
        if request.mode == "lexical":
            body = queries.lexical_body(CONTEXT, request.text or "", self._filters, TOP_K + 1)
        else:
            vector = [float(v) for v in request.vector or ()]
            body = queries.knn_body(CONTEXT, vector, self._filters, TOP_K + 1)
        timeout = backend_calls.timeout(self._timeout)  # cut to the invocation's deadline, as the store does
        response = self._client.search(
            index=self._alias,
            body=bounded(body, timeout),
            routing=CONTEXT,
            ignore_unavailable=True,
            request_timeout=timeout,
            cancel_after_time_interval=cancel_after(timeout),
        )
        hits: list[dict[str, Any]] = response["hits"]["hits"][:TOP_K]
        return hits

    def close(self) -> None:
        self._client.close()


def _sources_json(mode: str, hits: list[dict[str, Any]]) -> str:
    return json.dumps({"mode": mode, "hits": [{"score": h["_score"], **h["_source"]} for h in hits]})


def _hits_json(mode: str, hits: list[dict[str, Any]]) -> str:
    built = [
        hit_of(
            h["_source"],
            score=h["_score"],
            signals={mode: Signal(rank=n, score=h["_score"])},
            found_by=[mode],
        )
        for n, h in enumerate(hits, start=1)
    ]
    return _Answer(mode=mode, hits=built).model_dump_json()


def _bare(search: _Search, tools: Instruments | None) -> Handler:
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        request = RetrieveRequest.model_validate_json(event["body"])
        hits = search(request)
        if tools is not None:
            tools.count(f"Retrieve_{request.mode}")
        return {"statusCode": 200, "body": _sources_json(request.mode, hits)}

    return handler if tools is None else tools.wrap(handler)


def _framed(search: _Search, write: Callable[[str, list[dict[str, Any]]], str]) -> Handler:
    tools, app = api_function()

    @app.post("/v1/retrieve", enable_validation=False, middlewares=[validated_body(RetrieveRequest, "query")])
    def retrieve(query: RetrieveRequest) -> Response[str]:
        hits = search(query)
        tools.count(f"Retrieve_{query.mode}")
        return Response(status_code=200, content_type="application/json", body=write(query.mode, hits))

    return lambda_entry(app, lambda _context, _invocation: _Answer(mode="", hits=[]), tools)


def _in_runtime(handler: Handler, event: dict[str, Any]) -> dict[str, Any]:
    """``handler`` called as ``lambda_runtime.invoke`` calls a function: stdout redirected, a context."""
    with contextlib.redirect_stdout(FUNCTION_OUTPUT):
        try:
            return handler(event, LambdaContext(function_name="retrieve"))
        finally:
            FUNCTION_OUTPUT.flush()


def measure(settings: Settings, corpus: Corpus, rounds: int) -> dict[str, Any]:
    handler_module("retrieve")  # the function's Lambda environment, which the frames' Powertools read
    all_queries = build_queries(corpus, corpus.scale.queries)
    raw, search = RawClient(settings), _Search(settings)
    sides: dict[str, Call] = {
        "search": partial(_in_runtime, _bare(search, None)),
        "+ instruments": partial(_in_runtime, _bare(search, Instruments.create())),
        "+ API frame": partial(_in_runtime, _framed(search, _sources_json)),
        "+ response hits": partial(_in_runtime, _framed(search, _hits_json)),
        "retrieve": partial(invoke, "retrieve"),
    }
    results: dict[str, Any] = {}
    try:
        for mode in MODES:
            results[mode] = _measure_mode(mode, all_queries, raw, sides, rounds)
    finally:
        raw.close()
        search.close()
    return results


def _measure_mode(
    mode: str, all_queries: list[Query], raw: RawClient, sides: dict[str, Call], rounds: int
) -> dict[str, Any]:
    events = [retrieve_event(request_body(mode, query)) for query in all_queries]
    for event, query in zip(events[:WARMUP], all_queries, strict=False):
        raw.search(mode, query)
        for side, call in sides.items():
            answer = call(event)
            if answer["statusCode"] != 200:
                raise HandlerFailedError(
                    f"floor side {side!r} answered {answer['body']}", answer["statusCode"]
                )
    order = ["raw", *sides]
    samples: dict[str, list[list[float]]] = {side: [] for side in order}
    for round_number in range(rounds):
        say(f"floor {mode}: round {round_number + 1}/{rounds}")
        for side in order:
            samples[side].append([])
        for n, (event, query) in enumerate(zip(events, all_queries, strict=True)):
            shift = n % len(order)
            for side in order[shift:] + order[:shift]:
                started = time.perf_counter()
                if side == "raw":
                    raw.search(mode, query)
                else:
                    sides[side](event)
                samples[side][-1].append(time.perf_counter() - started)
    return {
        side: {
            "p50_ms": Latency.of([s for run in samples[side] for s in run]).p50,
            "over_raw_p50": median_ratio(samples[side], samples["raw"]),
        }
        for side in order
    }
