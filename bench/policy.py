"""Section 4: what the retrieval policy adds per request -- lexical retrieve with a session against the
same queries without one (sessionless requests keep their state in memory and never touch DynamoDB).

Write units: moto does not meter capacity, so they are computed the way DynamoDB bills on-demand writes:
every write costs ceil(item size / 1 KB) units, where an UpdateItem's size is the larger of the item
before and after; the session item only grows during a request, so its size after the request bounds
both. Strongly consistent reads cost ceil(size / 4 KB). Item size follows DynamoDB's rules (attribute
names plus values; numbers one byte per two digits plus one).
"""

from __future__ import annotations

import math
import uuid
from typing import Any

from retrieval_core import keys
from retrieval_core.config import Settings

from dev.tables import dynamodb_client

from .corpus import CONTEXT, Corpus, query_texts
from .handlers import retrieve_event, timed_call
from .probes import Cost, Probe, install
from .progress import say
from .stats import Latency, median, median_ratio

QUERIES_PER_SESSION = 40
"""Below the default session limit (50), so every request is accepted."""


def item_size(item: dict[str, Any]) -> int:
    """Bytes DynamoDB counts for a low-level item (``{"name": {"S": ...}}``)."""
    return sum(len(name.encode()) + _value_size(value) for name, value in item.items())


def _value_size(value: dict[str, Any]) -> int:
    ((kind, raw),) = value.items()
    if kind == "S":
        return len(raw.encode())
    if kind == "N":
        digits = raw.lstrip("-").replace(".", "").strip("0") or "0"
        return math.ceil(len(digits) / 2) + 1
    if kind == "B":
        return len(raw)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "M":
        return 3 + sum(len(k.encode()) + _value_size(v) + 1 for k, v in raw.items())
    if kind == "L":
        return 3 + sum(_value_size(v) + 1 for v in raw)
    return sum(len(str(v).encode()) for v in raw)  # SS / NS / BS


def measure(settings: Settings, corpus: Corpus, probe: Probe) -> dict[str, Any]:
    scale = corpus.scale
    texts = query_texts(corpus, scale.queries, seed=7)
    reader = dynamodb_client(settings.dynamodb_endpoint or "", settings.aws_region)
    timed_call("retrieve", retrieve_event({"mode": "lexical", "text": texts[0], "session_id": "warm-up"}))
    install(probe)
    probe.take()
    with_session: list[list[float]] = []
    without: list[list[float]] = []
    costs: dict[str, list[Cost]] = {"with": [], "without": []}
    units: list[tuple[int, int]] = []
    sizes: list[int] = []
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
                cost = probe.take()
                costs[side].append(cost)
                if side == "with":
                    size = _session_size(reader, settings.sessions_table, session)
                    sizes.append(size)
                    units.append(_units(cost, size))
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
            "dynamodb_operations": _operations(costs["with"]),
            "write_units": median([w for w, _ in units]),
            "read_units": median([r for _, r in units]),
            "session_item_bytes_p50": median(sizes),
            "session_item_bytes_max": max(sizes),
        },
        "with_over_without_p50": median_ratio(with_session, without),
        "added_ms_p50": (_pooled_median(with_session) - _pooled_median(without)) * 1000,
    }


def _pooled_median(runs: list[list[float]]) -> float:
    return median([s for run in runs for s in run])


def _session_size(reader: Any, table: str, session: str) -> int:
    response = reader.get_item(TableName=table, Key={"pk": {"S": keys.partition(CONTEXT, session)}})
    return item_size(response.get("Item") or {})


def _units(cost: Cost, size_after: int) -> tuple[int, int]:
    """(write units, read units) of one request's session calls, per the module's billing rules."""
    writes = sum(cost.dynamodb.get(op, 0) for op in ("UpdateItem", "PutItem", "DeleteItem"))
    reads = cost.dynamodb.get("GetItem", 0)
    return writes * max(1, math.ceil(size_after / 1024)), reads * max(1, math.ceil(size_after / 4096))


def _operations(costs: list[Cost]) -> dict[str, float]:
    names = sorted({op for c in costs for op in c.dynamodb})
    return {op: median([c.dynamodb.get(op, 0) for c in costs]) for op in names}
