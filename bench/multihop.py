"""Multi-hop: generated two-hop pages (a building's page names its architect, the architect's page names
a birthplace; distractor pages share the question's words) through the ingest handler, twice in one run:
with the dictionary matcher and back-links (what ships) and without them (no page links); then the same
questions ("Where was the architect of <building> born?") through the retrieve handler as hybrid, as
auto without the walk (``hops`` 1) and as auto with it: latency, OpenSearch round trips per request and
passage recall at 2 (both pages in the top 2)."""

from __future__ import annotations

import random
import time
from typing import Any

from retrieval_core import bootstrap
from retrieval_core.config import Settings

from dev.ingest_resources import scratch_ingest
from dev.tables import scratch_space

from .handlers import timed_call
from .ingest import _aws_endpoints
from .progress import say
from .stats import Latency

CONTEXT = "bench"
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


def measure(base: Settings, chains: int) -> dict[str, Any]:
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
    return results


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
