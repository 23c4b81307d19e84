"""``ComprehendEntities``: Amazon Comprehend DetectEntities as the ``documents.entities.EntityExtractor``
of a deployed stack that opts in (template parameter ``EntityExtraction: comprehend``).

DetectEntities takes at most 100 KB of UTF-8 a document; a chunk is far smaller (the embedder's window),
so each chunk is one document, 25 to a ``BatchDetectEntities`` call. Cost: Comprehend bills units of 100
characters (at least 3 a document), about $0.0001 a unit: a 300-token chunk is 12-15 units, so 1,000
chunks cost about $1.5 (docs/DOCUMENTS.md, "Entities"). Types kept: people, organisations, locations,
commercial items, events and titles (dates and quantities are not entities of the graph).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from ..aws import aws_failures
from ..documents.entities import FoundEntity

BATCH = 25
MAX_DOCUMENT_BYTES = 100 * 1024
KEPT_TYPES = frozenset({"PERSON", "ORGANIZATION", "LOCATION", "COMMERCIAL_ITEM", "EVENT", "TITLE"})
MIN_SCORE = 0.8


@cache
def comprehend_client(region: str) -> Any:
    import boto3

    return boto3.client("comprehend", region_name=region)


class ComprehendEntities:
    def __init__(self, client: Any, language: str = "en") -> None:
        self._client = client
        self._language = language

    def extract(self, texts: Sequence[str]) -> list[list[FoundEntity]]:
        found: list[list[FoundEntity]] = []
        for start in range(0, len(texts), BATCH):
            batch = [_fit(text) for text in texts[start : start + BATCH]]
            with aws_failures("comprehend", "BatchDetectEntities"):
                response = self._client.batch_detect_entities(TextList=batch, LanguageCode=self._language)
            by_index = {result["Index"]: result["Entities"] for result in response.get("ResultList", [])}
            for index in range(len(batch)):
                entities = by_index.get(index, [])  # a document in ErrorList simply gets none
                found.append(
                    [
                        FoundEntity(e["Text"], e["Type"].lower())
                        for e in entities
                        if e["Type"] in KEPT_TYPES and e.get("Score", 0) >= MIN_SCORE
                    ]
                )
        return found


def _fit(text: str) -> str:
    """``text`` cut to Comprehend's 100 KB a document (at a character boundary)."""
    data = text.encode("utf-8")
    return text if len(data) <= MAX_DOCUMENT_BYTES else data[:MAX_DOCUMENT_BYTES].decode("utf-8", "ignore")
