"""Section 3: graph_path and why_explain at depths 1 to 5 -- latency, backend calls, DynamoDB rounds and
the DynamoDB read units they cost (``bench/units.py``).

graph_path is asked for pairs whose shortest active path is exactly ``depth`` hops, with
``max_depth=depth``, so each request searches that deep and finds its path. why_explain is asked about
last-generation propositions, whose ancestry is full at every depth up to 5.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from .corpus import MAX_DEPTH, Corpus, pairs_at_distance
from .handlers import HandlerFailedError, graph_path_event, timed_call, why_event
from .probes import Cost, Probe, install
from .progress import say
from .stats import Latency, median
from .units import Ledger, units


def _summary(
    seconds: list[float], costs: list[Cost], reported: list[int], read_units: list[float]
) -> dict[str, Any]:
    return {
        **Latency.of(seconds).as_dict(),
        "read_units": median(read_units),
        "read_units_max": max(read_units),
        "dynamodb_calls": median([c.dynamodb_calls for c in costs]),
        "dynamodb_calls_max": max(c.dynamodb_calls for c in costs),
        "dynamodb_rounds": median([c.dynamodb_rounds for c in costs]),
        "dynamodb_rounds_max": max(c.dynamodb_rounds for c in costs),
        "opensearch_calls": median([c.opensearch for c in costs]),
        "opensearch_calls_max": max(c.opensearch for c in costs),
        "reported_backend_calls": median(reported),
    }


def _run(
    name: str,
    events: list[dict[str, Any]],
    rounds: int,
    probe: Probe,
    ledger: Ledger,
    check: Callable[[dict[str, Any]], bool],
) -> dict[str, Any]:
    seconds: list[float] = []
    costs: list[Cost] = []
    reported: list[int] = []
    read_units: list[float] = []
    answered = out_of_time = 0
    ledger.take()
    for _ in range(rounds):
        for event in events:
            try:
                elapsed, body = timed_call(name, event)
            except HandlerFailedError as failure:
                if failure.status != 503:
                    raise
                # The request's deadline passed (moto serves one call at a time): counted, not timed.
                out_of_time += 1
                probe.take()
                ledger.take()
                continue
            costs.append(probe.take())
            # Both functions only read DynamoDB, so no item needs reading back for its write units.
            read_units.append(units(ledger.take(), reader=None)[1])
            seconds.append(elapsed)
            reported.append(body["explored"]["backend_calls"])
            answered += check(body)
    asked = len(seconds) + out_of_time
    summary = _summary(seconds, costs, reported, read_units) if seconds else {}
    return {**summary, "answered_share": answered / asked, "deadline_share": out_of_time / asked}


def measure(corpus: Corpus, probe: Probe) -> dict[str, Any]:
    scale = corpus.scale
    results: dict[str, Any] = {"graph_path": {}, "why_explain": {}}
    warm_pairs = pairs_at_distance(corpus, 1, 3, seed=1)
    for source, target in warm_pairs:
        timed_call("graph_path", graph_path_event(source, target, 1))
    for item in corpus.deepest[:3]:
        timed_call("why_explain", why_event(item, 1))
    install(probe)
    probe.take()
    ledger = Ledger()
    ledger.watch_container()
    for depth in range(1, MAX_DEPTH + 1):
        pairs = pairs_at_distance(corpus, depth, scale.graph_samples)
        if not pairs:
            say(f"graph_path depth {depth}: the corpus has no pair that far apart, skipped")
            continue
        say(f"graph_path depth {depth}: {len(pairs)} pairs x {scale.rounds} rounds")
        events = [graph_path_event(s, t, depth) for s, t in pairs]
        results["graph_path"][depth] = _run(
            "graph_path",
            events,
            scale.rounds,
            probe,
            ledger,
            partial(_path_of_length, depth),
        )
    items = corpus.deepest[: scale.graph_samples]
    for depth in range(1, MAX_DEPTH + 1):
        say(f"why_explain depth {depth}: {len(items)} items x {scale.rounds} rounds")
        events = [why_event(item, depth) for item in items]
        results["why_explain"][depth] = _run(
            "why_explain",
            events,
            scale.rounds,
            probe,
            ledger,
            partial(_climbed, depth),
        )
    return results


def _path_of_length(depth: int, body: dict[str, Any]) -> bool:
    return bool(body["found"]) and len(body["paths"][0]["edges"]) == depth


def _climbed(depth: int, body: dict[str, Any]) -> bool:
    return bool(body["explored"]["levels"] == depth)
