"""Section 4: what the retrieval policy adds per request -- lexical retrieve with a session against the
same queries without one (a sessionless first page never touches DynamoDB) -- and the DynamoDB units
one request's session calls cost as its session grows (1, 50 and 500 queries, the limit raised for the
measurement), in a warm container and in a container new to the session.

Units: computed from each call's request and response as on-demand DynamoDB bills them (``bench/units.py``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from retrieval_core.bootstrap import Container, container, use
from retrieval_core.config import Settings

from dev.tables import dynamodb_client

from .corpus import Corpus, query_texts
from .handlers import retrieve_event, timed_call
from .probes import Cost, Probe, install
from .progress import say
from .stats import Latency, median, median_ratio
from .units import Ledger, units

QUERIES_PER_SESSION = 40
"""Below the default session limit (50), so every request is accepted."""


def measure(settings: Settings, corpus: Corpus, probe: Probe) -> dict[str, Any]:
    scale = corpus.scale
    texts = query_texts(corpus, scale.queries, seed=7)
    timed_call("retrieve", retrieve_event({"mode": "lexical", "text": texts[0], "session_id": "warm-up"}))
    install(probe)
    probe.take()
    with_session: list[list[float]] = []
    without: list[list[float]] = []
    costs: dict[str, list[Cost]] = {"with": [], "without": []}
    for round_number in range(scale.rounds):
        say(f"policy: round {round_number + 1}/{scale.rounds}")
        samples: dict[str, list[float]] = {"with": [], "without": []}
        session = ""
        for n, text in enumerate(texts):
            if n % QUERIES_PER_SESSION == 0:
                session = f"bench-{uuid.uuid4().hex[:12]}"
            sides = [("without", {}), ("with", {"session_id": session})]
            for side, extra in sides[n % 2 :] + sides[: n % 2]:
                event = retrieve_event({"mode": "lexical", "text": text, **extra})
                elapsed, _ = timed_call("retrieve", event)
                samples[side].append(elapsed)
                costs[side].append(probe.take())
        with_session.append(samples["with"])
        without.append(samples["without"])
    return {
        "without_session": {
            **Latency.of([s for r in without for s in r]).as_dict(),
            "dynamodb_calls": median([c.dynamodb_calls for c in costs["without"]]),
        },
        "with_session": {
            **Latency.of([s for r in with_session for s in r]).as_dict(),
            "dynamodb_calls": median([c.dynamodb_calls for c in costs["with"]]),
            "dynamodb_rounds": median([c.dynamodb_rounds for c in costs["with"]]),
            "dynamodb_rounds_max": max(c.dynamodb_rounds for c in costs["with"]),
            "dynamodb_operations": _operations(costs["with"]),
        },
        "with_over_without_p50": median_ratio(with_session, without),
        "added_ms_p50": (_pooled_median(with_session) - _pooled_median(without)) * 1000,
        "by_session_size": by_session_size(settings, corpus, probe),
    }


def by_session_size(settings: Settings, corpus: Corpus, probe: Probe) -> dict[int, dict[str, Any]]:
    """One session grown to the largest size; at each reported size, the units of the request that
    reaches it in a warm container, and of the next request in a container new to the session."""
    sizes = corpus.scale.session_sizes
    largest = max(sizes)
    texts = query_texts(corpus, largest + 2 * len(sizes), seed=11)
    reader = dynamodb_client(settings.dynamodb_endpoint or "", settings.aws_region)
    ledger = Ledger()
    session = f"bench-size-{uuid.uuid4().hex[:12]}"
    found: dict[int, dict[str, Any]] = {}
    sessions_table = settings.sessions_table
    with _session_limit(settings, largest + 2 * len(sizes)):
        text = iter(texts)

        def ask(fresh_container: bool, key: str | None = None, question: str | None = None) -> dict[str, Any]:
            # A container new to the session: the same deployment, nothing cached yet.
            scope = use(Container(container().settings)) if fresh_container else nullcontext()
            with scope:
                install(probe)
                ledger.watch_container()
                ledger.take()
                body = {"mode": "lexical", "text": question or next(text), "session_id": session}
                event = retrieve_event(body)
                if key is not None:
                    event["headers"]["Idempotency-Key"] = key
                timed_call("retrieve", event)
                rounds = probe.take().dynamodb_rounds
                calls = [call for call in ledger.take() if call[1].get("TableName") == sessions_table]
            operations: dict[str, int] = {}
            for operation, _, _ in calls:
                operations[operation] = operations.get(operation, 0) + 1
            writes, reads = units(calls, reader)
            return {"write_units": writes, "read_units": reads, "rounds": rounds, "operations": operations}

        answered = 0
        for size in sizes:
            say(f"policy: growing a session to {size} queries")
            while answered < size - 1:
                ask(fresh_container=False)
                answered += 1
            warm = ask(fresh_container=False)
            cold = ask(fresh_container=True)
            answered += 2
            found[size] = warm | {f"new_container_{name}": value for name, value in cold.items()}
        # An idempotent request at the largest size: its first answer, then the same request again.
        key, question = uuid.uuid4().hex, next(text)
        found[largest] |= {
            "idempotent": {
                name: ask(fresh_container=fresh, key=key, question=question)
                for name, fresh in (("first", False), ("replay", False), ("replay_new_container", True))
            }
        }
    return found


@contextmanager
def _session_limit(settings: Settings, limit: int) -> Iterator[None]:
    """Raise the deployment's session limit for the handlers (as ``SessionLimit`` would) for a while."""
    with use(Container(settings.model_copy(update={"session_limit": limit}))):
        yield


def _pooled_median(runs: list[list[float]]) -> float:
    return median([s for run in runs for s in run])


def _operations(costs: list[Cost]) -> dict[str, float]:
    names = sorted({op for c in costs for op in c.dynamodb})
    return {op: median([c.dynamodb.get(op, 0) for c in costs]) for op in names}
