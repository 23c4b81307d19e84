"""Multi-hop: generated two-hop pages (a building's page names its architect, the architect's page names
a birthplace; distractor pages share the question's words) through the ingest handler, twice in one run:
with the dictionary matcher and back-links (what ships) and without them (no page links); then the same
questions ("Where was the architect of <building> born?") through the retrieve handler as hybrid, as
auto without the walk (``hops`` 1) and as auto with it: latency, OpenSearch round trips per request and
passage recall at 2 (both pages in the top 2). Then the multi-hop development sets (``multihop/<set>/beir``
under ``$RETRIEVAL_EVAL_DATA``, else ``../shared/data`` beside the checkout; skipped with a line when
absent), each synced as Markdown pages as ``retrieval eval --as-files`` syncs it, every question asked as
hybrid and as auto interleaved (``top_k`` 10): issue 68's cost bound, auto's p50 at most 2x hybrid's and at
most two more OpenSearch round trips, with where auto's extra time goes: each kind of round trip's wall
time per request (hybrid's ``_msearch``; auto's first, with the dictionary lookup in it; its focus arms',
with the walk's first fetch when it was made ahead; its walk's fetch of its own) and the load average the
run saw. Then each mode alone over the same questions, for its CPU milliseconds per request: this
worktree's OpenSearch node's and this process's (the handler's own work, as a Lambda would spend it). On
a shared machine the p50 ratio moves with the load; the CPU ratio is what the work itself costs."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from retrieval_core import bootstrap
from retrieval_core.config import Settings

from dev.ingest_resources import scratch_ingest
from dev.tables import scratch_space

from .handlers import timed_call
from .ingest import _aws_endpoints
from .progress import say
from .stats import Latency
from .workspace import environment

CONTEXT = "bench"
REPO = Path(__file__).resolve().parents[1]
FIRST = ["Ada", "Edith", "Tomas", "Ines", "Rafael", "Mirela", "Jonas", "Greta", "Oskar", "Lena", "Pavel"]
LAST = ["Marlowe", "Okafor", "Lindqvist", "Brandt", "Castell", "Novak", "Ferreira", "Halloran", "Vidal"]
TOWNS = ["Whitby", "Tromso", "Gdansk", "Porto", "Ghent", "Brno", "Cork", "Turku", "Split", "Aarhus"]
KINDS = ["Library", "Hall", "Gallery", "Exchange", "Observatory", "Baths", "Pavilion", "Arcade"]
ASKED: dict[str, dict[str, Any]] = {
    "hybrid": {"mode": "hybrid"},
    "auto, hops 1": {"mode": "auto", "hops": 1},
    "auto (the walk)": {"mode": "auto"},
}


def pages(chains: int, seed: int = 49) -> tuple[dict[str, bytes], list[tuple[str, str, str]]]:
    """key -> Markdown page, and per chain (question, building key, architect key)."""
    rng = random.Random(seed)
    files: dict[str, bytes] = {}
    questions = []
    for n in range(chains):
        building = f"{rng.choice(FIRST)}gate {rng.choice(KINDS)} {n}"
        architect = f"{rng.choice(FIRST)} {rng.choice(LAST)} {n}"
        town = rng.choice(TOWNS)
        files[f"b{n}.md"] = (
            f"# {building}\n\nThe {building} is a public building opened in {1850 + n % 90}. Its architect "
            f"was {architect}, who drew the hall and its stair.\n"
        ).encode()
        files[f"a{n}.md"] = (
            f"# {architect}\n\n{architect} was a designer who came into the world at {town} and trained "
            "in the north before working in the capital.\n"
        ).encode()
        files[f"d{n}.md"] = (
            f"# Notes {n}\n\nWhere was the architect born? Town registers record where each architect of "
            f"public buildings was born, from {rng.choice(TOWNS)} to {rng.choice(TOWNS)}.\n"
        ).encode()
        questions.append((f"Where was the architect of the {building} born?", f"b{n}.md", f"a{n}.md"))
    return files, questions


def measure(base: Settings, chains: int, development: bool = True) -> dict[str, Any]:
    """The generated chains with and without the matcher, then (``development``) the development sets."""
    files, questions = pages(chains)
    results: dict[str, Any] = {"pages": len(files), "questions": len(questions)}
    for linked in (False, True):
        side = "with the matcher" if linked else "without the matcher"
        say(f"multihop: {len(files):,} pages through the ingest handler, {side}")
        results[side] = _side(base, files, questions, linked=linked)
    shipped = results["with the matcher"]["asked"]
    results["walk_p50_over_hybrid"] = shipped["auto (the walk)"]["p50_ms"] / shipped["hybrid"]["p50_ms"]
    results["walk_rounds_over_hybrid"] = (
        shipped["auto (the walk)"]["round_trips"] - shipped["hybrid"]["round_trips"]
    )
    if development:
        results["development sets"] = development_sets(base)
    return results


DEV_TOP_K = 10
"""What an agent asks for: the cost bound is read at a realistic page, not the evaluation's 100."""


def development_sets(base: Settings, data: Path | None = None) -> dict[str, Any]:
    """Per multi-hop development set: hybrid's and auto's p50/p95 latency, mean round trips, R@5 and
    all@5, and auto's p50 over hybrid's and round trips beyond hybrid's; {} without the sets."""
    from retrieval_dev.evaluation.beir import read_beir
    from retrieval_dev.evaluation.suite import multihop_sets

    root = data or Path(os.environ.get("RETRIEVAL_EVAL_DATA") or REPO.parent / "shared" / "data")
    sets = multihop_sets(root)
    if not sets:
        say(f"multihop: no development sets under {root / 'multihop'} (<set>/beir/): measured without them")
    found = {}
    for name, folder in sets.items():
        collection = read_beir(folder)
        say(f"multihop: {name}, {len(collection.documents):,} pages and {len(collection.queries)} questions")
        found[name] = _development_set(base, collection)
    return found


def _development_set(base: Settings, collection: Any) -> dict[str, Any]:
    from retrieval_dev.evaluation.as_files import files_index
    from retrieval_dev.evaluation.embedding_cache import DEFAULT_CACHE, CachedEmbedder
    from retrieval_dev.evaluation.runner import Run, run_interleaved

    endpoint = base.dynamodb_endpoint or ""
    with (
        _aws_endpoints(endpoint),
        scratch_space(base, "bench-hopdev") as settings,
        scratch_ingest(base, "bench-hopdev") as resources,
        environment({"RETRIEVAL_INGEST_BUCKET": resources.bucket}),
    ):
        embedder = CachedEmbedder(bootstrap.Container(settings).embedder, REPO / DEFAULT_CACHE)
        with files_index(settings, collection.documents, embedder=embedder, pages=True):
            runs = [Run("hybrid", "hybrid"), Run("auto", "auto")]
            load = os.getloadavg()[0]
            with timed_round_trips(bootstrap.container().store) as spent:
                results = run_interleaved(runs, collection.queries, collection.qrels, DEV_TOP_K)
            load = max(load, os.getloadavg()[0])
            cpu = {run.mode: cpu_per_request(run.mode, [q.text for q in collection.queries]) for run in runs}
    asked: dict[str, dict[str, float]] = {}
    for label, result in results.items():
        summary = result.summary()
        asked[label] = {
            "p50_ms": float(summary["latency_ms_p50"] or 0),
            "p95_ms": float(summary["latency_ms_p95"] or 0),
            "round_trips": float(summary["round_trips_mean"] or 0),
            "recall_at_5": float(summary["recall@5"] or 0),
            "all_found_at_5": float(summary["all_found@5"] or 0),
        }
    requests = len(collection.queries) + 1  # each mode's warm-up call is timed too
    return {
        "asked": asked,
        "auto_p50_over_hybrid": asked["auto"]["p50_ms"] / asked["hybrid"]["p50_ms"],
        "auto_rounds_over_hybrid": asked["auto"]["round_trips"] - asked["hybrid"]["round_trips"],
        "round_trip_ms": {ROUND_TRIPS[name]: sum(ms) / requests for name, ms in spent.items()},
        "load_average": load,
        "cpu_ms": cpu,
        "auto_cpu_over_hybrid": sum(cpu["auto"].values()) / (sum(cpu["hybrid"].values()) or 1.0),
    }


def cpu_per_request(mode: str, questions: list[str], stack: Any = None) -> dict[str, float]:
    """CPU milliseconds per request of ``mode`` asked alone over ``questions`` (``top_k`` as the
    interleaved run): this worktree's OpenSearch node's and this process's."""
    from retrieval_dev.evaluation.runner import retrieve_hits

    from .cpu_meter import stack_pids, stack_seconds

    stack = stack_pids() if stack is None else stack
    node, own = stack_seconds(stack)["opensearch"], time.process_time()
    for question in questions:
        retrieve_hits(mode, question, DEV_TOP_K)
    count = max(1, len(questions))
    return {
        "opensearch": (stack_seconds(stack)["opensearch"] - node) * 1000 / count,
        "client": (time.process_time() - own) * 1000 / count,
    }


ROUND_TRIPS = {
    "hybrid": "hybrid's _msearch",
    "hybrid_and_focused": "auto's _msearch (hybrid's arms and the focus arms, the names held)",
    "hybrid_with_names": "auto's first _msearch (the names looked up in it)",
    "focused": "auto's focus arms",
    "focused_and_neighbourhood": "auto's focus arms with the walk's fetch made ahead",
    "neighbourhood": "auto's walk fetch (of its own)",
}
"""The store's calls each mode's round trips are, by what they are in the report: only hybrid calls
``hybrid``, only auto the others (its walk fetches on its own only when the fetch made ahead, from
hybrid's ranking, was not what it asks)."""


@contextmanager
def timed_round_trips(store: Any) -> Iterator[dict[str, list[float]]]:
    """Wall milliseconds of each of ``store``'s ``ROUND_TRIPS`` calls while the block runs (the store's
    own methods, wrapped on the instance and unwrapped after)."""
    spent: dict[str, list[float]] = {}

    def timed(name: str, call: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                spent.setdefault(name, []).append((time.perf_counter() - started) * 1000)

        return wrapper

    for name in ROUND_TRIPS:
        setattr(store, name, timed(name, getattr(store, name)))
    try:
        yield spent
    finally:
        for name in ROUND_TRIPS:
            delattr(store, name)


def _side(
    base: Settings, files: dict[str, bytes], questions: list[tuple[str, str, str]], *, linked: bool
) -> dict[str, Any]:
    endpoint = base.dynamodb_endpoint or ""
    with (
        _aws_endpoints(endpoint),
        scratch_space(base, "bench-hop") as settings,
        scratch_ingest(base, "bench-hop") as resources,
    ):
        target = settings.model_copy(update={"ingest_queue_url": None})
        with bootstrap.use(bootstrap.Container(target)):
            container = bootstrap.container()
            if not linked:  # no dictionary and no back-links: chunks name only their own file and page
                setattr(container.store, "entity_names", lambda context_id: [])  # noqa: B010
                setattr(container, "chunk_naming", None)  # noqa: B010  (before document_files is built)
            container.embedder.embed(["warm up"])
            seconds = _ingest(files, resources.bucket, endpoint)
            asked = {label: _ask(container, questions, body) for label, body in ASKED.items()}
    return {"index_ms_per_page": seconds * 1000 / len(files), "asked": asked}


def _ingest(files: dict[str, bytes], bucket: str, endpoint: str) -> float:
    from retrieval_dev.cli.ingest import s3_event, sequencer
    from retrieval_dev.cli.lambda_runtime import invoke

    from dev.ingest_resources import aws_client

    s3 = aws_client("s3", endpoint)
    started = time.perf_counter()
    for key, body in files.items():
        full = f"contexts/{CONTEXT}/{key}"
        put = s3.put_object(Bucket=bucket, Key=full, Body=body)
        event = s3_event(bucket, full, size=len(body), etag=put["ETag"], version_id=put["VersionId"])
        event["Records"][0]["s3"]["object"]["sequencer"] = sequencer()
        document = invoke("ingest", event)["body"]["objects"][0]["document"]
        assert document["status"] == "indexed", document
    return time.perf_counter() - started


def _ask(container: Any, questions: list[tuple[str, str, str]], body: dict[str, Any]) -> dict[str, Any]:
    from retrieval_dev.cli.events import api_event

    seconds, rounds, found = [], [], 0.0
    for question, building, architect in questions:
        calls = container.store.backend_calls
        event = api_event("POST", "/v1/retrieve", CONTEXT, body={**body, "text": question, "top_k": 2})
        elapsed, answer = timed_call("retrieve", event)
        seconds.append(elapsed)
        rounds.append(container.store.backend_calls - calls)
        top = {hit["id"] for hit in answer["hits"]}
        found += sum(f"{CONTEXT}:doc/{key}#0000" in top for key in (building, architect)) / 2
    return {
        **Latency.of(seconds).as_dict(),
        "round_trips": sum(rounds) / len(rounds),
        "recall_at_2": found / len(questions),
    }
