"""Issue 27 on the real stack: no tenant can take the engine down, a poison line never sinks an object,
client errors never look like outages, and one pool tenant's keys cannot block another's writes."""

from __future__ import annotations

import gzip
import json
import os
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus_stack import retrieve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from retrieval_core import bootstrap
from retrieval_core.adapters.errors import BackendRefusedError
from retrieval_core.adapters.opensearch.client import IndexLayout
from retrieval_core.adapters.s3_objects import S3ObjectStore
from retrieval_core.bootstrap import Container
from retrieval_core.config import Settings
from retrieval_core.ingest.reading import plan_parts
from retrieval_core.loading.lines import read_lines
from retrieval_core.models.ingest import ObjectRef
from retrieval_core.models.limits import LIMITS
from stack_state import index_documents, load_lines, table_rows
from test_ingest import bucket, report_of, run  # noqa: F401 - the bucket fixture
from test_loader import proposition

from dev.ingest_resources import IngestResources, aws_client
from dev.tables import scratch_space
from tests.loader_fuzz_lines import line as fuzz_line

FIFTY_MB = 50 * 1024 * 1024


def test_a_50_mb_item_is_a_rejected_line_and_the_node_stays_up(
    fresh_settings: Settings, tmp_path: Path, opensearch: Any
) -> None:
    """Case 1: the line is read through in chunks and rejected by size, never decoded or held."""
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as out:
        out.write(proposition("acme:p-1", ["acme:e/a", "acme:e/b"]).encode() + b"\n")
        out.write(b'{"id": "acme:p-huge", "context_id": "acme", "kind": "document", "text": "')
        chunk = b"word " * (1 << 18)
        for _ in range(FIFTY_MB // len(chunk)):
            out.write(chunk)
        out.write(b'", "created_at": "2026-03-02T09:00:00Z"}\n')
        out.write(proposition("acme:p-2", ["acme:e/b", "acme:e/c"]).encode() + b"\n")

    tracemalloc.start()
    with path.open("rb") as stream:
        report = Container(fresh_settings).loader.load_lines(read_lines(stream))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    assert [(e.line, e.field) for e in report.errors] == [(2, "(line)")]
    assert f"at most {LIMITS.line_bytes}" in report.errors[0].message
    assert report.loaded == 2 and not report.unwritten
    assert peak < 16 * 1024 * 1024, f"the load held {peak} bytes at its peak"
    assert sorted(d["id"] for d in index_documents(opensearch, fresh_settings)) == ["acme:p-1", "acme:p-2"]
    assert opensearch.cluster.health()["status"] in {"green", "yellow"}


def test_poison_lines_are_rejected_the_valid_lines_load_and_the_report_is_written(
    fresh_settings: Settings,
    stack_settings: Settings,
    bucket: IngestResources,  # noqa: F811
    opensearch: Any,
    dynamodb: Any,
) -> None:
    """Case 2 through the ingest function: one object, every poison the issue found, and an item larger
    than a line may be (2 MB, small enough for moto)."""
    dimension = Container(fresh_settings).embedder.dimension
    poison = {
        2: "[" * 1000 + "]" * 1000,
        3: '{"id": "acme:p-n", "kind": "record", "text": "n", "created_at": "2026-03-02T09:00:00Z", '
        '"metadata": {"n": ' + "9" * 5000 + "}}",
        4: proposition("acme:p-date", ["acme:e/a"], created_at="9999-12-31T23:59:59-12:00"),
        5: proposition("acme:p-zero", ["acme:e/a", "acme:e/z"], embedding=[0.0] * dimension),
        6: proposition("acme:p-huge", ["acme:e/a", "acme:e/h"], embedding=[1e308] * dimension),
        7: json.dumps({"id": "acme:p-big", "kind": "document", "text": "w " * (1 << 20)}),
    }
    lines = [proposition("acme:p-1", ["acme:e/a", "acme:e/b"]), *poison.values()]
    lines.append(proposition("acme:p-2", ["acme:e/b", "acme:e/c"]))
    key = "contexts/acme/poison.jsonl"
    body = ("\n".join(lines) + "\n").encode()
    s3 = aws_client("s3", stack_settings.dynamodb_endpoint or "")
    put = s3.put_object(Bucket=bucket.bucket, Key=key, Body=body)
    from retrieval_dev.cli.ingest import s3_event

    event = s3_event(bucket.bucket, key, size=len(body), etag=put["ETag"], version_id=put["VersionId"])
    response = run(fresh_settings, event, part_lines=100, queued=False)

    assert response["statusCode"] == 200  # no crash, no retry: every failure here is deterministic
    report = report_of(stack_settings, bucket, key)
    assert (report["status"], report["loaded"], report["rejected"], report["unwritten"]) == (
        "complete",
        2,
        6,
        0,
    )
    assert [r["line"] for r in report["rejected_lines"]] == sorted(poison)
    assert {r["line"]: r["field"] for r in report["rejected_lines"]} == {
        2: "(line)",
        3: "(line)",
        4: "created_at",
        5: "embedding",
        6: "embedding",
        7: "(line)",
    }
    assert sorted(d["id"] for d in index_documents(opensearch, fresh_settings)) == ["acme:p-1", "acme:p-2"]
    # No lineage card or edge is left for a rejected item ("not written" on every run before).
    cards = {
        r["pk"]["S"] for r in table_rows(dynamodb, fresh_settings.lineage_table) if r["sk"]["S"] == "ITEM"
    }
    assert cards == {"acme#acme:p-1", "acme#acme:p-2"}


@pytest.mark.parametrize(
    ("leaf", "path"),
    [
        ({"gte": {"key": "confidence", "value": 1e308}}, "filter.all_of[0].gte.value"),
        ({"lt": {"key": "created_at", "value": "9999-12-31T23:59:59-12:00"}}, "filter.all_of[0].lt.value"),
        ({"equals": {"key": "metadata.team\n", "value": "payments"}}, "filter.all_of[0].equals.key"),
    ],
    ids=["float32-overflow", "unrepresentable-date", "trailing-newline-key"],
)
@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_a_filter_value_the_index_cannot_hold_is_a_422_with_its_path(
    corpus_settings: Settings, mode: str, leaf: dict[str, Any], path: str
) -> None:
    """Case 3: a 422 naming the path, not a 503 with Retry-After (nor a 500)."""
    status, body = retrieve("acme", {"mode": mode, "text": "payments", "filter": {"all_of": [leaf]}})
    assert status == 422, body
    assert body["fields"][0]["field"] == path


def test_a_request_opensearch_refuses_is_a_client_error_not_an_outage(corpus_settings: Settings) -> None:
    """Case 3, the adapter: the real node answers 400 to a value outside float32; that is never a 503."""
    store = Container(corpus_settings).store
    with pytest.raises(BackendRefusedError):
        store._search("acme", {"query": {"range": {"confidence": {"gte": 1e308}}}})


@pytest.fixture
def pool_settings(stack_settings: Settings) -> Iterator[Settings]:
    with scratch_space(stack_settings.model_copy(update={"isolation_model": "pool"}), "k") as settings:
        yield settings


def test_the_pool_caps_each_contexts_metadata_keys_so_no_tenant_blocks_another(
    pool_settings: Settings, opensearch: Any
) -> None:
    """Case 4: acme uses up its key budget; its next new key is a rejected line naming the cap, a known
    key still loads, and globex's new keys load as if acme did not exist."""
    cap = LIMITS.pool_metadata_keys

    def item(item_id: str, keys: list[str]) -> str:
        return proposition(item_id, [f"{item_id.split(':')[0]}:e/a"], metadata={k: "v" for k in keys})

    lines = [
        item("acme:p-1", [f"a{i}" for i in range(60)]),
        item("acme:p-2", [f"a{i}" for i in range(60, cap)]),
        item("acme:p-3", ["a-one-too-many"]),
        item("acme:p-4", ["a0", "a1"]),
    ]
    report = load_lines(pool_settings, lines)
    assert [(e.line, e.field) for e in report.errors] == [(3, "metadata")]
    assert f"at most {cap} distinct" in report.errors[0].message and not report.unwritten
    assert load_lines(pool_settings, [item("globex:p-1", [f"g{i}" for i in range(60)])]).ok
    stored = sorted(d["id"] for d in index_documents(opensearch, pool_settings))
    assert stored == ["acme:p-1", "acme:p-2", "acme:p-4", "globex:p-1"]
    index = IndexLayout.of(pool_settings).index("acme")
    limit = opensearch.indices.get_settings(index=index)[index]["settings"]["index"]["mapping"]
    assert int(limit["total_fields"]["limit"]) == LIMITS.pool_total_fields


def test_a_gzip_of_newlines_is_planned_in_bounded_parts_and_time(
    fresh_settings: Settings,
    stack_settings: Settings,
    bucket: IngestResources,  # noqa: F811
) -> None:
    """Case 5: the 4 KB gzip of newlines (2,098 parts before) is refused by its decompression ratio after
    a bounded read; newlines stored plain plan at most size / part_min_bytes parts."""
    from retrieval_dev.cli.ingest import invoke_with_parts, s3_event

    s3 = aws_client("s3", stack_settings.dynamodb_endpoint or "")

    def ingest(key: str, body: bytes) -> tuple[dict[str, Any], dict[str, Any], float]:
        put = s3.put_object(Bucket=bucket.bucket, Key=key, Body=body)
        event = s3_event(bucket.bucket, key, size=len(body), etag=put["ETag"], version_id=put["VersionId"])
        settings = fresh_settings.model_copy(
            update={"ingest_queue_url": bucket.queue_url, "ingest_part_lines": 2000}
        )
        started = time.monotonic()
        with bootstrap.use(bootstrap.Container(settings)):  # the deployed part sizes, not test_ingest's
            response = invoke_with_parts(event)
        return response, report_of(stack_settings, bucket, key), time.monotonic() - started

    plain = b"\n" * 800_000
    response, report, _ = ingest("contexts/acme/newlines.jsonl", plain)  # also warms the function
    parts = response["body"]["objects"][0]["parts_queued"]
    assert 1 <= parts <= -(-len(plain) // LIMITS.part_min_bytes)
    assert (report["status"], report["lines"], report["loaded"], report["rejected"]) == (
        "complete",
        len(plain),
        0,
        0,
    )

    bomb = gzip.compress(b"\n" * 4_000_000, compresslevel=9)
    assert len(bomb) < 5000
    response, report, seconds = ingest("contexts/acme/newlines.jsonl.gz", bomb)
    assert response["body"]["objects"][0]["parts_queued"] == 0
    assert report["status"] == "rejected" and "100 times its size" in report["reason"]
    assert seconds < 30, f"the invocation took {seconds:.1f} s"  # 11 minutes before
    # Planning itself, over the object as S3 serves it: stopped after about a MiB of decompression.
    started = time.monotonic()
    plan = plan_parts(
        S3ObjectStore(s3).open(ObjectRef(bucket.bucket, "contexts/acme/newlines.jsonl.gz")), 2000
    )
    assert plan.refused and plan.parts == [] and time.monotonic() - started < 2


def test_a_load_stopped_between_rows_and_documents_shows_nothing_half_written_and_a_rerun_repairs(
    fresh_settings: Settings, monkeypatch: pytest.MonkeyPatch, dynamodb: Any
) -> None:
    """Case 8: rows and cards are written before documents; a load stopped in between leaves rows that no
    reader shows (why_explain answers 404 as for a missing id), counts them as not confirmed, and the
    re-run makes the item whole."""
    from retrieval_core.adapters.opensearch import writer
    from retrieval_core.context import CallerContext
    from retrieval_core.errors import BackendUnavailableError
    from retrieval_core.lineage.errors import ItemNotFoundError
    from retrieval_core.lineage.explain import why_explain
    from retrieval_core.lineage.models import WhyExplainRequest
    from retrieval_core.ports import WriteRefusal

    lines = [proposition("acme:p-1", ["acme:e/a", "acme:e/b"], source_ids=["acme:p-0"])]

    def stopped(*_: Any, **__: Any) -> list[WriteRefusal]:
        raise BackendUnavailableError("OpenSearch failed: ConnectionTimeout")

    with monkeypatch.context() as patch:
        patch.setattr(writer, "bulk_index", stopped)
        report = load_lines(fresh_settings, lines)
    assert (report.loaded, report.unwritten, report.stopped) == (0, ["acme:p-1"], report.stopped)
    assert "1 items not written or not confirmed (re-run to repair)" in report.summary()
    assert ("acme#acme:p-1", "ITEM") in {
        (r["pk"]["S"], r["sk"]["S"]) for r in table_rows(dynamodb, fresh_settings.lineage_table)
    }
    container = Container(fresh_settings)
    explain = WhyExplainRequest(item_id="acme:p-1")
    with pytest.raises(ItemNotFoundError):
        why_explain(container.lineage, container.items, CallerContext("acme"), explain)

    assert load_lines(fresh_settings, lines).ok
    answer = why_explain(container.lineage, container.items, CallerContext("acme"), explain)
    assert answer.item.id == "acme:p-1"


FUZZ_LOADS = int(os.environ.get("LOADER_FUZZ_LOADS", "1"))


@settings(
    max_examples=FUZZ_LOADS,
    derandomize=True,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(batch=st.lists(fuzz_line, min_size=150, max_size=150))
def test_a_fuzzed_object_never_crashes_a_load_and_the_report_accounts_for_every_line(
    fresh_settings: Settings, batch: list[str | bytes]
) -> None:
    """A fixed-seed object of 150 fuzzed lines (each item with its own id) through the real loader:
    no line raises, and loaded + rejected + unwritten is every non-blank line. LOADER_FUZZ_LOADS runs
    more objects."""
    numbered = [_own_id(raw, n) for n, raw in enumerate(batch)]
    report = load_lines(fresh_settings, numbered, context_id="acme")
    non_blank = [n for n, raw in enumerate(numbered, start=1) if raw.strip()]
    accounted = report.loaded + report.deleted + report.absent + len(report.errors) + len(report.unwritten)
    assert accounted == len(non_blank), report.summary()
    assert not report.unwritten and report.stopped is None


def _own_id(raw: str | bytes, number: int) -> str | bytes:
    """Give a decodable item line its own id, so no line replaces another (the later would win)."""
    try:
        record = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    if isinstance(record, dict) and "id" in record and record.get("op") != "delete":
        record["id"] = f"acme:f-{number}"
        return json.dumps(record)
    return raw


def test_a_hit_of_the_largest_storable_text_is_cut_to_fit_an_answer(fresh_settings: Settings) -> None:
    """Case 1, the answer: a text at the item limit whose JSON form is six times longer (control
    characters) is answered cut, with truncated: true, so 100 such hits stay under Lambda's 6 MB."""
    from retrieval_core.ports import SearchFilters

    word = "\x01payments "
    text = word * (LIMITS.text_bytes // len(word.encode()))
    item = json.loads(proposition("acme:p-1", ["acme:e/a"]))
    assert load_lines(fresh_settings, [json.dumps({**item, "text": text})]).ok
    (found,) = Container(fresh_settings).store.lexical("acme", "payments", SearchFilters(size=1))
    hit = found.hit(score=found.score, signals={}, found_by=["lexical"])
    assert hit.truncated and text.startswith(hit.text)
    assert len(hit.model_dump_json().encode()) <= LIMITS.hit_text_bytes + LIMITS.hit_fields_bytes
