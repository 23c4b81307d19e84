"""Issue 27: a fixed-seed fuzz of loader lines. Whatever a line holds, parsing never raises, every
non-blank line gets exactly one result under its own number, and every accepted item is storable: its
index document is strict JSON within the limits and its DynamoDB rows serialise.

``LOADER_FUZZ_EXAMPLES`` raises the example count (the suite runs a few hundred)."""

from __future__ import annotations

import json
import math
import os

from boto3.dynamodb.types import TypeSerializer
from hypothesis import HealthCheck, given, settings
from retrieval_core.adapters.dynamodb_rows import TableNames, rows_of
from retrieval_core.adapters.opensearch.documents import document_of
from retrieval_core.loading.parse import Delete, LineError, Upsert, parse_lines
from retrieval_core.models.limits import FLOAT32_MAX, LIMITS

from tests.loader_fuzz_lines import lines

EXAMPLES = int(os.environ.get("LOADER_FUZZ_EXAMPLES", "250"))
TABLES = TableNames(edges="edges", lineage="lineage")


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(lines)
def test_no_line_crashes_a_load_and_every_line_is_accounted_for(batch: list[str | bytes]) -> None:
    results = list(parse_lines(batch, context_id="acme"))
    expected = [number for number, raw in enumerate(batch, start=1) if raw.strip()]
    # One result per non-blank line, in order; a line's error or item carries its number (a delete
    # names only its id).
    numbers = [
        r.line if isinstance(r, LineError) else r.position if isinstance(r, Upsert) else None for r in results
    ]
    assert len(results) == len(expected)
    assert all(number in (None, line) for number, line in zip(numbers, expected, strict=True))
    for result in results:
        if isinstance(result, LineError):
            assert result.field and result.message
        elif isinstance(result, Upsert):
            _assert_storable(result)
        else:
            assert isinstance(result, Delete) and result.context_id == "acme"


def _assert_storable(parsed: Upsert) -> None:
    item = parsed.item
    vector = item.embedding or [1.0]
    assert all(math.isfinite(v) and abs(v) <= FLOAT32_MAX for v in vector) and any(vector)
    document = json.dumps(document_of(item, vector), allow_nan=False, ensure_ascii=False)
    assert len(document.encode("utf-8")) <= LIMITS.line_bytes * 2
    serializer = TypeSerializer()
    rows = rows_of(item, TABLES)
    for _, attributes in [rows.card, *rows.owned]:
        for value in attributes.values():
            if value is not None:
                serializer.serialize(value)
