"""The deployed embedder's throughput (issue 51): ``BedrockEmbedder`` through real botocore against the
Bedrock Runtime stand-in (``dev.bedrock_stub``) answering after a model-like latency, at several bounds
on the calls in flight, once more with every tenth call throttled; texts/s and tokens/s for each.

Then the loader at that speed: the same texts as items without vectors through the real loader (its
DynamoDB rows and OpenSearch documents on the stack) with the embedder at 8 calls in flight, beside the
embedder alone on the same texts; a chunk is embedded while the one before it is written, so the
loader's rate should be the embedder's.

Lambda gives a function CPU in proportion to its memory (one vCPU at 1,769 MB): the client's own CPU
time per call, measured here, bounds what a smaller function can send, so the report gives the rate
each memory size can reach at each bound (the lower of the measured rate and the CPU's bound).
"""

from __future__ import annotations

import json
import time
from contextlib import AbstractContextManager
from typing import Any

from retrieval_core.config import Settings

from dev.bedrock_stub import own_process, stats

from .progress import say
from .workspace import environment

LATENCY_SECONDS = 0.040
LOADER_BOUND = 8
"""Calls in flight for the loader's run: the deployed default (``RETRIEVAL_BEDROCK_EMBED_CONCURRENCY``)."""
LOADER_TEXTS = 1025
"""Four of the loader's chunks (256) after the one line that creates the index, so chunks overlap."""
BOUNDS = (1, 2, 4, 8, 16)
TEXTS = 320
DIMENSION = 1024
LAMBDA_FULL_VCPU_MB = 1769
MEMORY_SIZES_MB = (512, 1024, 1769, 3008)
QUOTA_PER_SECOND = 100.0
"""The stand-in's quota for the throttled run: below what 16 calls in flight would send (about 250/s),
so the client must find the account's rate rather than stop."""
_FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_SESSION_TOKEN": "bench",
}


def measure(base: Settings | None = None, count: int = TEXTS) -> dict[str, Any]:
    """``count`` texts of about 120 words at each bound (a tiny run takes a few seconds); with ``base``
    (the stack), the loader on them too."""
    texts = _texts(count)
    runs = [_run(texts, bound) for bound in BOUNDS]
    loader = None if base is None else _loader_run(base, _texts(LOADER_TEXTS), LOADER_BOUND)
    throttled = _run(texts, 16, quota=QUOTA_PER_SECOND)
    cpu_per_call = min(run["cpu_ms_per_call"] for run in runs)
    return {
        "latency_ms": LATENCY_SECONDS * 1000,
        "texts": count,
        "dimension": DIMENSION,
        "runs": runs,
        "quota_per_second": QUOTA_PER_SECOND,
        "over_quota_at_16": throttled,
        "cpu_ms_per_call": cpu_per_call,
        "loader": loader,
        "by_memory": {
            str(memory): {
                str(run["bound"]): round(min(run["texts_per_s"], _cpu_bound(memory, cpu_per_call)), 1)
                for run in runs
            }
            for memory in MEMORY_SIZES_MB
        },
    }


def _texts(count: int) -> list[str]:
    return [f"chunk {n}: " + " ".join(f"word{(n * 7 + k) % 997}" for k in range(120)) for n in range(count)]


def _cpu_bound(memory_mb: int, cpu_ms_per_call: float) -> float:
    """Calls a second a function of ``memory_mb`` can prepare and parse with its share of a vCPU."""
    return min(memory_mb, LAMBDA_FULL_VCPU_MB) / LAMBDA_FULL_VCPU_MB * 1000 / cpu_ms_per_call


def _run(texts: list[str], bound: int, *, quota: float = 0.0) -> dict[str, Any]:
    from retrieval_core.embedding.bedrock import BedrockEmbedder

    with own_process(LATENCY_SECONDS * 1000, quota) as endpoint, _pointed_at(endpoint):
        embedder = BedrockEmbedder(dimension=DIMENSION, region="us-east-1", concurrency=bound)
        embedder.embed(["warm the client and its connections"] * bound)
        before = stats(endpoint)
        cpu, wall = time.process_time(), time.perf_counter()
        embedder.embed(texts)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        after = stats(endpoint)
    calls = after["calls"] - before["calls"]
    result = {
        "bound": bound,
        "seconds": round(wall, 2),
        "texts_per_s": round(len(texts) / wall, 1),
        "tokens_per_s": round((after["tokens"] - before["tokens"]) / wall),
        "calls": calls,
        "throttled": after["throttled"] - before["throttled"],
        "most_in_flight": after["most_in_flight"],
        "cpu_ms_per_call": round(cpu * 1000 / calls, 2),
    }
    say(f"embedder: bound {bound}, quota {quota or 'none'}: {result['texts_per_s']} texts/s")
    return result


def _loader_run(base: Settings, texts: list[str], bound: int) -> dict[str, Any]:
    """``texts`` as items without vectors through the real loader into scratch tables and a fresh
    index, embedded by the stand-in at ``bound`` calls in flight, beside the embedder alone."""
    from retrieval_core.bootstrap import Container
    from retrieval_core.embedding.bedrock import BedrockEmbedder

    from dev.tables import scratch_space

    lines = [
        json.dumps(
            {
                "id": f"bench:e-{n}",
                "context_id": "bench",
                "kind": "proposition",
                "text": text,
                "created_at": "2026-12-05T00:00:00Z",
                "mentions": [
                    {"entity_id": f"bench:n-{n % 97}", "name": f"name {n % 97}", "type": "thing"},
                    {"entity_id": f"bench:n-{n % 89}", "name": f"other {n % 89}", "type": "thing"},
                ],
            }
        )
        for n, text in enumerate(texts)
    ]
    alone = _run(texts, bound)
    declared = base.model_copy(update={"embedding_dimension": DIMENSION})
    with (
        own_process(LATENCY_SECONDS * 1000, 0.0) as endpoint,
        _pointed_at(endpoint),
        scratch_space(declared, "bench-embedder") as settings,
    ):
        embedder = BedrockEmbedder(dimension=DIMENSION, region="us-east-1", concurrency=bound)
        embedder.embed(["warm the client and its connections"] * bound)
        loader = Container(settings, overrides={"embedder": embedder}).loader
        loader.load_lines(lines[:1])  # the index and the clients, before the clock
        started = time.perf_counter()
        report = loader.load_lines(lines[1:])
        wall = time.perf_counter() - started
    if not report.ok:
        raise RuntimeError(f"the loader did not load the embedder's texts: {report.summary()}")
    result = {
        "bound": bound,
        "items": len(lines) - 1,
        "items_per_s": round((len(lines) - 1) / wall, 1),
        "embedder_alone_texts_per_s": alone["texts_per_s"],
        "share_of_embedder": round((len(lines) - 1) / wall / alone["texts_per_s"], 3),
    }
    say(f"embedder: the loader at {result['items_per_s']} items/s, the embedder alone {alone['texts_per_s']}")
    return result


def _pointed_at(endpoint: str) -> AbstractContextManager[None]:
    """boto3 sends Bedrock Runtime calls to ``endpoint``, with fake credentials, for the block."""
    return environment({**_FAKE_CREDENTIALS, "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": endpoint})


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"Bedrock embedder against a stand-in answering in {result['latency_ms']:.0f} ms a call "
        f"({result['texts']} texts of ~120 words, {result['dimension']} dimensions):",
        "",
        "| calls in flight | texts/s | tokens/s | most in flight | client CPU ms/call |",
        "| --- | --- | --- | --- | --- |",
    ]
    for run in result["runs"]:
        lines.append(
            f"| {run['bound']} | {run['texts_per_s']} | {run['tokens_per_s']} | {run['most_in_flight']} | "
            f"{run['cpu_ms_per_call']} |"
        )
    throttled = result["over_quota_at_16"]
    lines += [
        "",
        f"A quota of {result['quota_per_second']:.0f} calls/s, 16 in flight: {throttled['texts_per_s']} "
        f"texts/s, {throttled['throttled']} throttled answers retried, every text embedded.",
        "",
        "| Lambda memory (MB) | " + " | ".join(f"{b} in flight" for b in BOUNDS) + " |",
        "| --- |" + " --- |" * len(BOUNDS),
    ]
    for memory, rates in result["by_memory"].items():
        lines.append(f"| {memory} | " + " | ".join(str(rates[str(b)]) for b in BOUNDS) + " |")
    loader = result.get("loader")
    if loader:
        lines += [
            "",
            f"The loader on {loader['items']} of these texts as items without vectors ({loader['bound']} "
            f"calls in flight, rows and documents on the stack): {loader['items_per_s']} items/s against "
            f"the embedder alone's {loader['embedder_alone_texts_per_s']} texts/s "
            f"({loader['share_of_embedder']:.2f}x).",
        ]
    return "\n".join(lines)
