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
from hypothesis import strategies as st
from retrieval_core.adapters.opensearch.documents import document_of
from retrieval_core.loading.parse import DeleteLine, LineError, ParsedLine, parse_lines
from retrieval_core.loading.rows import TableNames, rows_of
from retrieval_core.models.limits import FLOAT32_MAX, LIMITS

EXAMPLES = int(os.environ.get("LOADER_FUZZ_EXAMPLES", "300"))
TABLES = TableNames(edges="edges", lineage="lineage")
BASE = {
    "id": "acme:p-1",
    "context_id": "acme",
    "kind": "proposition",
    "text": "Alice leads Payments.",
    "created_at": "2026-03-02T09:00:00Z",
    "mentions": [{"entity_id": "acme:e/alice", "name": "Alice", "type": "Person"}],
    "embedding": [0.1, 0.2, 0.3],
}
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**25), max_value=10**25)
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(
        [
            "9999-12-31T23:59:59-12:00",
            "0001-01-01T00:00:00+14:00",
            "2026-01-01T00:00:00Z",
            "2026-01-01",
            1e308,
            -1e308,
            3.5e38,
            2**63,
            0.0,
            "\ud800",
            "acme:x",
            "globex:x",
        ]
    )
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)
fields = st.sampled_from([*BASE, "metadata", "grounding", "source_ids", "valid_from", "valid_to", "op", "x"])
mutated = st.builds(
    lambda changes, drops: json.dumps(
        {k: v for k, v in {**BASE, **changes}.items() if k not in drops}, allow_nan=True
    ),
    st.dictionaries(fields, values, max_size=3),
    st.sets(fields, max_size=2),
)
raw_text = st.text(max_size=60) | st.binary(max_size=60)
special = st.sampled_from(
    [
        "[" * 1000 + "]" * 1000,
        '{"a": ' * 40 + "1" + "}" * 40,
        '{"n": ' + "9" * 5000 + "}",
        '{"x": 1e400}',
        '{"x": -Infinity}',
        b'{"text": "\xff\xfe"}',
        '{"op": "delete", "id": "acme:p-1"}',
        '{"op": "delete", "id": "globex:p-1", "context_id": "acme"}',
    ]
)
lines = st.lists(mutated | raw_text | special, min_size=1, max_size=8)


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
    assert [r.line for r in results] == expected
    for result in results:
        if isinstance(result, LineError):
            assert result.field and result.message
        elif isinstance(result, ParsedLine):
            _assert_storable(result)
        else:
            assert isinstance(result, DeleteLine) and result.context_id == "acme"


def _assert_storable(parsed: ParsedLine) -> None:
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
