"""Issue 40: the index's refusal of a document says what to do when it is the mapping's field limit (a
silo index filled by its tenant's keys), and still never quotes OpenSearch's reason text (which can name
the index). The response is OpenSearch 2.19's own ``_bulk`` answer for that refusal."""

from __future__ import annotations

from typing import Any

from retrieval_core.adapters.opensearch.writer import FIELD_LIMIT_REFUSAL, _send


class OneBulkAnswer:
    def __init__(self, error: dict[str, str]) -> None:
        self._error = error

    def bulk(self, body: str, request_timeout: float) -> dict[str, Any]:
        item = {"_index": "retrieval-acme-v3", "_id": "acme:p-1", "status": 400, "error": self._error}
        return {"took": 3, "errors": True, "items": [{"index": item}]}


def test_the_field_limit_is_named_with_what_to_do_and_the_index_is_not() -> None:
    error = {"type": "illegal_argument_exception", "reason": "Limit of total fields [1000] has been exceeded"}
    (refusal,) = _send(OneBulkAnswer(error), "index", [("acme:p-1", "{}\n{}")])  # type: ignore[arg-type]
    assert refusal.final and FIELD_LIMIT_REFUSAL in refusal.reason
    assert "illegal_argument_exception" not in refusal.reason and "retrieval-acme" not in refusal.reason


def test_another_refusal_gives_its_type_only() -> None:
    error = {
        "type": "mapper_parsing_exception",
        "reason": "failed to parse field [x] in index [retrieval-acme]",
    }
    (refusal,) = _send(OneBulkAnswer(error), "index", [("acme:p-1", "{}\n{}")])  # type: ignore[arg-type]
    assert refusal.reason == "the index refused the item (mapper_parsing_exception)"
