"""The ingest function against the local stack (OpenSearch, and moto's DynamoDB, S3 and SQS): an object
with good, bad, foreign, updating and deleting lines ends in exactly the state `retrieval load` of the
same lines gives, with an exact report; a replay changes nothing; a crash midway then a replay loses and
duplicates nothing."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from retrieval_core import bootstrap
from retrieval_core.adapters import s3_objects, sqs_parts
from retrieval_core.adapters.opensearch import writer
from retrieval_core.config import Settings
from retrieval_dev.cli.ingest import invoke_with_parts, s3_event
from stack_state import edge_propositions, index_documents, load_lines, snapshot, table_rows
from test_delete import delete, small_world
from test_loader import proposition

from dev.ingest_resources import IngestResources, aws_client, scratch_ingest
from dev.tables import scratch_space
from tests.processes import finished

A, B, C = "acme:e/a", "acme:e/b", "acme:e/c"


@pytest.fixture
def bucket(stack_settings: Settings) -> Iterator[IngestResources]:
    """A fresh bucket and parts queue; boto3 in this process reaches moto for S3 and SQS."""
    endpoint = stack_settings.dynamodb_endpoint
    assert endpoint
    with scratch_ingest(stack_settings, "t") as resources, pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ENDPOINT_URL_S3", endpoint)
        patch.setenv("AWS_ENDPOINT_URL_SQS", endpoint)
        s3_objects.s3_client.cache_clear()
        sqs_parts.sqs_client.cache_clear()
        yield resources


def upload(
    stack_settings: Settings, resources: IngestResources, key: str, lines: list[str]
) -> dict[str, Any]:
    body = ("\n".join(lines) + "\n").encode("utf-8")
    s3 = aws_client("s3", stack_settings.dynamodb_endpoint or "")
    put = s3.put_object(Bucket=resources.bucket, Key=key, Body=body)
    return s3_event(resources.bucket, key, size=len(body), etag=put["ETag"], version_id=put["VersionId"])


def run(settings: Settings, event: dict[str, Any], *, part_lines: int, queued: bool) -> dict[str, Any]:
    target = settings.model_copy(
        update={
            "ingest_part_lines": part_lines,
            "ingest_part_min_bytes": 0,  # cut these small objects by lines alone
            "ingest_queue_url": settings.ingest_queue_url if queued else None,
        }
    )
    with bootstrap.use(bootstrap.Container(target)):
        return invoke_with_parts(event)


def report_of(stack_settings: Settings, resources: IngestResources, key: str) -> dict[str, Any]:
    s3 = aws_client("s3", stack_settings.dynamodb_endpoint or "")
    return json.loads(s3.get_object(Bucket=resources.bucket, Key=f"reports/{key}.json")["Body"].read())


MIXED_OBJECT = [
    proposition("acme:p-10", [A, C]),  # 1 new
    proposition("acme:p-2", [A, B], text="p-2 now links a and b instead."),  # 2 update
    json.dumps({"id": "acme:p-12", "context_id": "acme", "kind": "proposition"}),  # 3 no text
    proposition("globex:p-1", ["globex:e/x", "globex:e/y"]),  # 4 another context
    delete("acme:p-3"),  # 5 delete
    "{not json",  # 6
    proposition("acme:p-11", [B, C], source_ids=["acme:p-10"]),  # 7 new
    delete("acme:p-404"),  # 8 delete of nothing
    "",  # 9 blank
    delete("globex:p-1"),  # 10 delete in another context
]


def test_a_mixed_object_ends_in_the_state_load_gives_with_an_exact_report(
    fresh_settings: Settings,
    stack_settings: Settings,
    bucket: IngestResources,
    opensearch: Any,
    dynamodb: Any,
) -> None:
    settings = fresh_settings.model_copy(update={"ingest_queue_url": bucket.queue_url})
    assert load_lines(settings, small_world()).ok
    key = "contexts/acme/2026/mixed batch.jsonl"
    event = upload(stack_settings, bucket, key, MIXED_OBJECT)
    response = run(settings, event, part_lines=3, queued=True)

    assert response["statusCode"] == 200
    assert response["body"]["objects"][0]["parts_queued"] == 4
    assert [part["objects"][0]["parts_loaded"] for part in response["parts"]] == [[0], [1], [2], [3]]
    report = report_of(stack_settings, bucket, key)
    assert report == {
        "bucket": bucket.bucket,
        "key": key,
        "version_id": event["Records"][0]["s3"]["object"]["versionId"],
        "context_id": "acme",
        "status": "complete",
        "reason": None,
        "lines": 10,
        "parts": 4,
        "missing_parts": [],
        "loaded": 3,
        "updated": 1,
        "deleted": 1,
        "absent": 1,
        "rejected": 4,
        "unwritten": 0,
        "rejected_lines": [
            {"line": 3, "field": "text", "reason": "Field required"},
            {"line": 4, "field": "context_id", "reason": "must be 'acme', the context of this load"},
            {
                "line": 6,
                "field": "(line)",
                "reason": "not valid JSON: Expecting property name enclosed in double quotes at column 2",
            },
            {"line": 10, "field": "id", "reason": "must start with 'acme:' (deletes may not cross contexts)"},
        ],
        "unwritten_ids": [],
    }
    documents = {d["id"]: d for d in index_documents(opensearch, settings)}
    assert sorted(documents) == ["acme:doc-1", "acme:p-0", "acme:p-1", "acme:p-10", "acme:p-11", "acme:p-2"]
    assert documents["acme:p-2"]["text"] == "p-2 now links a and b instead."
    lineage = table_rows(dynamodb, settings.lineage_table)
    assert not [r for r in lineage if r["pk"]["S"] == "acme#acme:p-3" or r["sk"]["S"].endswith("#acme:p-3")]
    assert "acme:p-3" not in edge_propositions(table_rows(dynamodb, settings.edges_table))

    # The same lines through `retrieval load` semantics give the same state, row for row.
    with scratch_space(stack_settings, "ref") as reference:
        assert load_lines(reference, small_world()).ok
        load_lines(reference, MIXED_OBJECT, context_id="acme")
        assert snapshot(settings, opensearch, dynamodb) == snapshot(reference, opensearch, dynamodb)

    before = snapshot(settings, opensearch, dynamodb)
    replay = run(settings, event, part_lines=3, queued=True)
    assert replay["statusCode"] == 200
    assert all(not part["objects"][0]["parts_loaded"] for part in replay["parts"])  # nothing reloaded
    assert snapshot(settings, opensearch, dynamodb) == before
    assert report_of(stack_settings, bucket, key) == report


def test_a_crash_midway_then_a_replay_loses_and_duplicates_nothing(
    fresh_settings: Settings,
    stack_settings: Settings,
    bucket: IngestResources,
    opensearch: Any,
    dynamodb: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = [proposition(f"acme:p-{n}", [A, f"acme:e/{n}"], source_ids=["acme:doc-1"]) for n in range(6)]
    key = "contexts/acme/six.jsonl"
    event = upload(stack_settings, bucket, key, lines)
    real_bulk_index = writer.bulk_index
    calls = []

    def dies_on_the_second_part(*args: Any, **kwargs: Any) -> list[str]:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the container was killed")
        return real_bulk_index(*args, **kwargs)

    monkeypatch.setattr(writer, "bulk_index", dies_on_the_second_part)
    with pytest.raises(RuntimeError, match="killed"):
        run(fresh_settings, event, part_lines=2, queued=False)
    assert [d["id"] for d in index_documents(opensearch, fresh_settings)] == [
        "acme:p-0",
        "acme:p-1",
    ]
    monkeypatch.setattr(writer, "bulk_index", real_bulk_index)

    response = run(fresh_settings, event, part_lines=2, queued=False)
    summary = response["body"]["objects"][0]
    assert (summary["parts_reused"], summary["parts_loaded"]) == (1, [1, 2])
    report = summary["report"]
    # Part 2 had written its rows before the crash, so its items count as updates on the replay.
    assert (report["status"], report["lines"], report["loaded"], report["updated"]) == ("complete", 6, 6, 2)
    with scratch_space(stack_settings, "ref") as reference:
        assert load_lines(reference, lines).ok
        assert snapshot(fresh_settings, opensearch, dynamodb) == snapshot(reference, opensearch, dynamodb)


def test_a_key_outside_a_context_is_reported_and_loads_nothing(
    fresh_settings: Settings, stack_settings: Settings, bucket: IngestResources, opensearch: Any
) -> None:
    for key in ("uploads/a.jsonl", "contexts/ACME/a.jsonl", "contexts/acme"):
        event = upload(stack_settings, bucket, key, [proposition("acme:p-1", [A, B])])
        assert run(fresh_settings, event, part_lines=10, queued=False)["statusCode"] == 200
        report = report_of(stack_settings, bucket, key)
        assert (report["status"], report["loaded"]) == ("rejected", 0)
        assert "contexts/<context_id>/" in report["reason"]
    assert index_documents(opensearch, fresh_settings) == []


def test_gzip_objects_load_like_plain_ones(
    fresh_settings: Settings,
    stack_settings: Settings,
    bucket: IngestResources,
    opensearch: Any,
    dynamodb: Any,
) -> None:
    import gzip

    lines = [proposition(f"acme:p-{n}", [A, f"acme:e/{n}"]) for n in range(5)] + ["oops"]
    key = "contexts/acme/five.jsonl.gz"
    body = gzip.compress(("\n".join(lines)).encode("utf-8"))  # no final newline
    put = aws_client("s3", stack_settings.dynamodb_endpoint or "").put_object(
        Bucket=bucket.bucket, Key=key, Body=body
    )
    event = s3_event(bucket.bucket, key, size=len(body), etag=put["ETag"], version_id=put["VersionId"])
    settings = fresh_settings.model_copy(update={"ingest_queue_url": bucket.queue_url})
    run(settings, event, part_lines=2, queued=True)
    report = report_of(stack_settings, bucket, key)
    assert (report["parts"], report["lines"], report["loaded"], report["rejected"]) == (3, 6, 5, 1)
    assert report["rejected_lines"][0]["line"] == 6
    with scratch_space(stack_settings, "ref") as reference:
        load_lines(reference, lines)
        assert snapshot(settings, opensearch, dynamodb) == snapshot(reference, opensearch, dynamodb)


def test_an_event_that_is_not_an_ingest_event_is_a_422_and_changes_nothing(fresh_settings: Settings) -> None:
    with bootstrap.use(bootstrap.Container(fresh_settings)):
        from retrieval_dev.cli.lambda_runtime import invoke

        for event in (
            {},
            {"Records": [{"eventSource": "aws:sns"}]},
            {"Records": [{"eventSource": "aws:sqs"}]},
        ):
            response = invoke("ingest", event)
            assert response["statusCode"] == 422 and response["body"]["error"] == "invalid_request"


def test_the_ingest_events_run_through_retrieval_invoke_after_the_upload(
    fresh_settings: Settings, stack_settings: Settings, bucket: IngestResources, opensearch: Any
) -> None:
    """As events/README.md says: upload the sample to the local bucket, then `retrieval invoke ingest`."""
    import sys

    from stack_state import REPO

    from dev.ingest_resources import create_ingest_resources

    events = REPO / "events" / "ingest"
    created = json.loads((events / "200-object-created.json").read_text())["Records"][0]["s3"]
    stack_bucket = create_ingest_resources(stack_settings.dynamodb_endpoint or "").bucket  # as `make up` does
    assert created["bucket"]["name"] == stack_bucket
    aws_client("s3", stack_settings.dynamodb_endpoint or "").put_object(
        Bucket=stack_bucket, Key=created["object"]["key"], Body=(events / "acme-sample.jsonl").read_bytes()
    )
    retrieval = str(Path(sys.executable).with_name("retrieval"))
    outcomes = {}
    # A fresh process finds the scratch space through its environment, as a deployed function would.
    env = os.environ | fresh_settings.to_env() | {"RETRIEVAL_INGEST_QUEUE_URL": ""}
    for name in ("200-object-created.json", "422-not-an-ingest-event.json"):
        done = finished([retrieval, "invoke", "ingest", f"events/ingest/{name}"], env=env)
        outcomes[name] = json.loads(done.stdout)
    assert outcomes["422-not-an-ingest-event.json"]["statusCode"] == 422
    created_outcome = outcomes["200-object-created.json"]
    assert created_outcome["statusCode"] == 200
    report = created_outcome["body"]["objects"][0]["report"]
    assert (report["status"], report["loaded"], report["absent"], report["rejected"]) == ("complete", 2, 1, 0)
    ids = [d["id"] for d in index_documents(opensearch, fresh_settings)]
    assert ids == ["acme:doc-9001", "acme:p-9001"]
