"""Issue 27: every limit is a rejected line (with its number, field and reason) or a 422, never a crash;
poison lines fail alone; filter values are checked against the index's types; keys full-match."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from retrieval_core.adapters.errors import BackendMisconfiguredError, BackendRefusedError
from retrieval_core.adapters.opensearch.client import failure_of
from retrieval_core.entrypoints.status import status_of
from retrieval_core.errors import BackendUnavailableError
from retrieval_core.ingest.objects import context_of_key
from retrieval_core.loading.lines import OversizedLine, read_lines
from retrieval_core.loading.parse import LineError, Upsert, parse_lines
from retrieval_core.models.filters import Filter
from retrieval_core.models.hits import fit_text, hit_of
from retrieval_core.models.limits import LIMITS, StorageLimits

REPO = Path(__file__).resolve().parents[2]
GOOD = {
    "id": "acme:p-1",
    "context_id": "acme",
    "kind": "proposition",
    "text": "Alice leads Payments.",
    "created_at": "2026-03-02T09:00:00Z",
}


def line(**change: Any) -> str:
    return json.dumps({**GOOD, **change})


def errors_of(*lines: str | bytes) -> list[LineError]:
    return [r for r in parse_lines(lines) if isinstance(r, LineError)]


POISON = {
    "deep": "[" * 1000 + "]" * 1000,
    "deep object": '{"id": ' + '{"a": ' * 900 + "1" + "}" * 900 + "}",
    "5,000 digits": line(confidence=0.5)[:-1] + ', "metadata": {"n": ' + "9" * 5000 + "}}",
    "overflowing date": line(created_at="9999-12-31T23:59:59-12:00"),
    "underflowing date": line(valid_from="0001-01-01T00:00:00+01:00"),
    "zero vector": line(embedding=[0.0, 0.0, 0.0]),
    "1e308 vector": line(embedding=[1e308, 1.0]),
    "float32 overflow": line(embedding=[3.5e38]),
    "1e400 number": line()[:-1] + ', "metadata": {"x": 1e400}}',
    "1e400 in a vector": line()[:-1] + ', "embedding": [0.5, -1e400, 0.25]}',
    "1e400 in a nested list": line()[:-1] + ', "metadata": {"x": [[1.5, 1e400]]}}',
    "NaN": line()[:-1] + ', "metadata": {"x": NaN}}',
    "too much text": line(text="word " * (LIMITS.text_bytes // 5 + 1)),
    "too many mentions": line(
        mentions=[{"entity_id": f"acme:e{i}", "name": "n", "type": "T"} for i in range(LIMITS.mentions + 1)]
    ),
    "too many links": line(source_ids=[f"acme:d{i}" for i in range(LIMITS.links + 1)]),
    "too many keys": line(metadata={f"k{i}": 1 for i in range(LIMITS.metadata_keys + 1)}),
    "metadata too big": line(metadata={"k": "x" * LIMITS.metadata_bytes}),
    "too many dimensions": line(embedding=[1.0] * (LIMITS.embedding_dimension + 1)),
    "long entity id": line(mentions=[{"entity_id": "acme:" + "e" * 600, "name": "n", "type": "T"}]),
    "hit fields too big": line(
        grounding=[{"chunk_id": f"acme:c{i}", "uri": "s3://b/" + "u" * 1000} for i in range(30)]
    ),
}


@pytest.mark.parametrize("name", POISON)
def test_a_poison_line_is_rejected_alone_with_its_number(name: str) -> None:
    good_before, good_after = line(id="acme:p-0"), line(id="acme:p-9")
    results = list(parse_lines([good_before, POISON[name], "", good_after]))
    assert [type(r) for r in results] == [Upsert, LineError, Upsert]
    error = results[1]
    assert isinstance(error, LineError) and error.line == 2 and error.message


def test_the_fields_and_reasons_name_the_limit() -> None:
    (deep,) = errors_of(POISON["deep"])
    assert (deep.field, deep.message) == ("(line)", "nests deeper than 32 levels")
    (digits,) = errors_of(POISON["5,000 digits"])
    assert "more than 19 digits" in digits.message
    (date,) = errors_of(POISON["overflowing date"])
    assert date.field == "created_at" and "years 1-9999" in date.message
    (zeros,) = errors_of(POISON["zero vector"])
    assert zeros.field == "embedding" and "all zeros" in zeros.message
    (huge,) = errors_of(POISON["1e308 vector"])
    assert huge.field == "embedding" and "float32" in huge.message
    (text,) = errors_of(POISON["too much text"])
    assert text.field == "text" and str(LIMITS.text_bytes) in text.message


def test_a_line_past_the_size_limit_is_never_held_or_decoded() -> None:
    """The 50 MB item of case 1, at a tenth of the size: read in chunks, dropped, reported by size."""
    huge = b'{"id": "acme:p-1", "text": "' + b"word " * (1 << 20) + b'"}'
    stream = io.BytesIO(line(id="acme:p-0").encode() + b"\n" + huge + b"\n" + line().encode() + b"\n")
    read = list(read_lines(stream))
    assert isinstance(read[1], OversizedLine) and read[1].size == len(huge)
    results = list(parse_lines(read))
    assert isinstance(results[1], LineError) and f"at most {LIMITS.line_bytes}" in results[1].message
    assert [type(r) for r in results] == [Upsert, LineError, Upsert]


def test_an_oversized_last_line_without_newline_and_str_lines_are_measured() -> None:
    assert list(read_lines(io.BytesIO(b"ab\ncdefgh"), max_line_bytes=4)) == [b"ab", OversizedLine(6)]
    (error,) = errors_of("x" * (LIMITS.line_bytes + 1))
    assert "bytes" in error.message


def test_a_hit_text_is_cut_to_fit_and_says_so() -> None:
    source = {
        "id": "acme:p-1",
        "context_id": "acme",
        "kind": "proposition",
        "status": "ACTIVE",
        "created_at": "2026-01-01T00:00:00Z",
        "text": "\u0001é" * LIMITS.hit_text_bytes,  # escapes to 6 + 2 bytes a pair
    }
    hit = hit_of(source, score=1.0)
    assert hit.truncated and len(json.dumps(hit.text, ensure_ascii=False).encode()) <= LIMITS.hit_text_bytes
    assert source["text"].startswith(hit.text) and len(hit.text) > LIMITS.hit_text_bytes // 10
    short = hit_of({**source, "text": "short"}, score=1.0)
    assert (short.text, short.truncated) == ("short", False)
    assert fit_text("abcdef", 6) == ("abcd", True)  # "abcd" is 6 bytes as JSON


def test_a_full_answer_of_hits_fits_lambdas_response_limit() -> None:
    per_hit = LIMITS.hit_text_bytes + LIMITS.hit_fields_bytes + 2048  # ids, scores, signals, keys
    assert 100 * per_hit <= LIMITS.response_bytes < 6 * 1024 * 1024


def test_a_float32_field_filter_value_out_of_range_is_a_validation_error_with_its_path() -> None:
    with pytest.raises(ValidationError) as raised:
        Filter.model_validate({"all_of": [{"gte": {"key": "confidence", "value": 1e308}}]})
    error = raised.value.errors()[0]
    assert error["loc"][:2] == ("all_of", 0) and "float32" in error["msg"]
    Filter.model_validate({"gte": {"key": "confidence", "value": 0.5}})


def test_an_unrepresentable_filter_date_is_a_validation_error() -> None:
    with pytest.raises(ValidationError, match="years 1-9999"):
        Filter.model_validate({"lt": {"key": "created_at", "value": "9999-12-31T23:59:59-12:00"}})


def test_keys_with_a_trailing_newline_are_refused() -> None:
    with pytest.raises(ValidationError):
        Filter.model_validate({"equals": {"key": "metadata.team\n", "value": "x"}})
    assert context_of_key("contexts/acme\n/x") is None
    assert context_of_key("contexts/acme/x") == "acme"


def test_no_anchored_pattern_is_matched_with_match() -> None:
    """``re.match`` with ``$`` accepts a trailing newline: every anchored pattern uses fullmatch."""
    offenders = []
    for path in [*(REPO / "shared").rglob("*.py"), *(REPO / "functions").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        offenders += [f"{path}:{m.group(0)}" for m in re.finditer(r"(?:_PATTERN|_PATH|re)\.match\(", text)]
    assert offenders == []


@pytest.mark.parametrize(
    ("status", "kind", "http"),
    [
        (400, BackendRefusedError, 422),
        (413, BackendRefusedError, 422),
        (403, BackendMisconfiguredError, 500),
        (404, BackendMisconfiguredError, 500),
        (429, BackendUnavailableError, 503),
        (500, BackendUnavailableError, 503),
        (None, BackendUnavailableError, 503),
    ],
)
def test_opensearch_4xx_is_never_an_outage(status: int | None, kind: type[Exception], http: int) -> None:
    error = failure_of(status)
    assert isinstance(error, kind) and status_of(error) == http


def test_limits_are_documented_with_their_numbers() -> None:
    """docs/API.md and docs/STORAGE.md list every limit with its number."""
    for doc in ("docs/API.md", "docs/STORAGE.md"):
        text = (REPO / doc).read_text(encoding="utf-8")
        section = text[text.index("## Limits") :]
        for name, field in StorageLimits.model_fields.items():
            assert f"`{name}`" in section, f"{doc} lacks {name}"
            assert f"{field.default:,}" in section or _binary(field.default) in section, f"{doc}: {name}"


def _binary(value: int) -> str:
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if value % size == 0:
            return f"{value // size} {unit}"
    return str(value)
