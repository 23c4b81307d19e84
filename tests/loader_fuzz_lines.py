"""Loader lines for fuzzing (tests/unit/test_loader_fuzz.py, tests/integration/test_limits_stack.py):
mostly-valid items with fields replaced, dropped or added, raw text and bytes, and every poison line
issue 27 found."""

from __future__ import annotations

import json

from hypothesis import strategies as st

BASE: dict[str, object] = {
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
line = mutated | raw_text | special
lines = st.lists(line, min_size=1, max_size=6)
