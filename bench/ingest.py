"""Ingest throughput: the same JSON Lines file through ``retrieval load`` (the loader in-process) and
through the ingest handler (the object in moto's S3, its parts queued on moto's SQS and each run as the
SQS trigger would), each into fresh tables and a fresh alias; then deleting every item through the
handler. Items per second and backend calls per 1,000 items for each (S3 and SQS calls are the
handler's own; the trigger's receive/delete calls are not counted)."""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from retrieval_core import bootstrap
from retrieval_core.adapters import s3_objects, sqs_parts
from retrieval_core.config import Settings

from dev.ingest_resources import IngestResources, aws_client, scratch_ingest
from dev.tables import scratch_space

from .corpus import Corpus
from .probes import Probe, install
from .progress import say
from .workspace import environment

MAX_ITEMS = 5_000
PART_LINES = 500


def measure(base: Settings, corpus: Corpus, probe: Probe) -> dict[str, Any]:
    from retrieval_core.bootstrap import Container
    from retrieval_dev.cli.ingest import invoke_with_parts

    count = min(len(corpus.items), MAX_ITEMS)
    lines = list(corpus.lines(0, count))
    deletes = [json.dumps({"op": "delete", "id": item["id"]}) for item in corpus.items[:count]]
    endpoint = base.dynamodb_endpoint or ""
    results: dict[str, Any] = {"items": count, "part_lines": PART_LINES}
    with _aws_endpoints(endpoint):
        say(f"ingest: {count:,} items through `retrieval load`")
        with scratch_space(base, "bench-load") as settings:
            loader = Container(settings).loader
            install_on(probe, settings)
            probe.take()
            started = time.perf_counter()
            report = loader.load_lines(lines)
            results["load"] = _side(count, time.perf_counter() - started, probe, Counter())
            assert report.ok, report.summary()

        say(f"ingest: the same file through the ingest handler ({PART_LINES} lines a part)")
        with (
            scratch_space(base, "bench-ingest") as settings,
            scratch_ingest(base, "bench-ingest") as resources,
        ):
            target = settings.model_copy(
                update={"ingest_queue_url": resources.queue_url, "ingest_part_lines": PART_LINES}
            )
            with bootstrap.use(bootstrap.Container(target)):
                bootstrap.container().ingest  # noqa: B018 - the warm container, not its cold start, is measured
                install(probe)
                aws_calls = _count_aws_calls()
                for name, body in (("ingest", lines), ("delete", deletes)):
                    event = _upload(endpoint, resources, f"contexts/bench/{name}.jsonl", body)
                    probe.take()
                    aws_calls.clear()
                    started = time.perf_counter()
                    response = invoke_with_parts(event)
                    results[name] = _side(count, time.perf_counter() - started, probe, aws_calls)
                    parts = [p["objects"][0]["report"] for p in response.get("parts", [])]
                    final = parts[-1] if parts else response["body"]["objects"][0]["report"]
                    assert final and final["status"] == "complete", final
                    results[name]["parts"] = final["parts"]
    results["handler_over_load"] = results["ingest"]["seconds"] / results["load"]["seconds"]
    return results


def install_on(probe: Probe, settings: Settings) -> None:
    from retrieval_core.adapters.dynamodb_client import dynamodb_client, dynamodb_load_client
    from retrieval_core.adapters.opensearch.client import shared_client

    probe.watch_opensearch(shared_client(settings))
    probe.watch_dynamodb(dynamodb_client(settings))
    probe.watch_dynamodb(dynamodb_load_client(settings))  # the loader's rows


def _side(count: int, seconds: float, probe: Probe, aws_calls: Counter[str]) -> dict[str, Any]:
    cost = probe.take()
    per_1000 = 1000 / count
    return {
        "seconds": seconds,
        "items_per_second": count / seconds,
        "opensearch_per_1000": cost.opensearch * per_1000,
        "dynamodb_per_1000": cost.dynamodb_calls * per_1000,
        "dynamodb_operations": cost.dynamodb,
        "s3_per_1000": aws_calls["s3"] * per_1000,
        "sqs_per_1000": aws_calls["sqs"] * per_1000,
    }


def _upload(endpoint: str, resources: IngestResources, key: str, lines: list[str]) -> dict[str, Any]:
    from retrieval_dev.cli.ingest import s3_event

    body = ("\n".join(lines) + "\n").encode("utf-8")
    put = aws_client("s3", endpoint).put_object(Bucket=resources.bucket, Key=key, Body=body)
    return s3_event(resources.bucket, key, size=len(body), etag=put["ETag"], version_id=put["VersionId"])


def _count_aws_calls() -> Counter[str]:
    """Count the handler's S3 and SQS calls (its container-wide clients)."""
    calls: Counter[str] = Counter()
    region = bootstrap.container().settings.aws_region
    for service, client in (("s3", s3_objects.s3_client(region)), ("sqs", sqs_parts.sqs_client(region))):
        client.meta.events.register(
            f"before-call.{service}", lambda service=service, **_: calls.update([service])
        )
    return calls


@contextlib.contextmanager
def _aws_endpoints(endpoint: str) -> Iterator[None]:
    """boto3 reaches this moto for S3 and SQS while the block runs (the bench may run its own moto)."""
    with environment(dict.fromkeys(("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_SQS"), endpoint)):
        s3_objects.s3_client.cache_clear()
        sqs_parts.sqs_client.cache_clear()
        try:
            yield
        finally:
            s3_objects.s3_client.cache_clear()
            sqs_parts.sqs_client.cache_clear()
