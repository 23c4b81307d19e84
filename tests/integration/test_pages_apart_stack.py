"""Pages kept apart through the real stack: a file whose every section answers the question shows one
chunk in the top k until every other file that ranks has shown its best, in every ranked mode; its
other chunks come on the next page; ``pages_apart: false`` gives the score order back."""

from __future__ import annotations

import json
from typing import Any

import pytest
from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import invoke

from dev.ingest_resources import IngestResources
from tests.integration.test_documents_stack import docs, put

__all__ = ["docs"]  # the fixture, shared with the documents tests

# Each rule's section is long enough to stay a chunk of its own (above the chunking floor, which merges
# a section of a sentence or two into its neighbour).
SECTION = (
    "## Rule {n}\n\nThe retention policy keeps {what} for {days} days; the retention policy is set per "
    "bucket, and a bucket's owner may shorten it for their own data but never lengthen it past the "
    "account's ceiling without a review by the records team.\n\n"
)
RULES = [("logs", 30), ("backups", 90), ("exports", 7), ("metrics", 400)]
RETENTION = "# Retention\n\n" + "".join(SECTION.format(n=n, what=w, days=d) for n, (w, d) in enumerate(RULES))
OTHERS = {
    "contexts/acme/archive.md": "# Archive\n\nAn archive keeps its own retention policy, for years.\n",
    "contexts/acme/quota.md": "# Quota\n\nA quota caps what a bucket holds; its retention policy is apart.\n",
}
QUESTION = "bucket retention policy days"


def page(body: dict[str, Any]) -> dict[str, Any]:
    response = invoke("retrieve", api_event("POST", "/v1/retrieve", "acme", body=body))
    assert response["statusCode"] == 200, response["body"]
    return dict(json.loads(response["body"]))


def files(answer: dict[str, Any]) -> list[str]:
    return [hit["id"].partition("#")[0] for hit in answer["hits"]]


@pytest.mark.parametrize("mode", ["lexical", "vector", "hybrid", "auto"])
def test_a_file_shows_one_chunk_until_every_ranked_file_has_shown_one(
    docs: tuple[Settings, IngestResources], mode: str
) -> None:
    settings, resources = docs
    put(resources, settings, "contexts/acme/retention.md", RETENTION.encode())
    for key, text in OTHERS.items():
        put(resources, settings, key, text.encode())
    body = {"mode": mode, "text": QUESTION, "top_k": 3, "diversify": False}
    together = page(body | {"pages_apart": False, "top_k": 6})
    assert len(together["hits"]) == 6 and len(set(files(together)[:3])) < 3  # score order: side by side
    first = page(body)
    assert sorted(files(first)) == ["acme:doc/archive.md", "acme:doc/quota.md", "acme:doc/retention.md"]
    assert first["applied"]["pages_apart"] is True
    second = page(body | {"next_token": first["next_token"]})
    assert files(second) == ["acme:doc/retention.md"] * 3  # the file's other chunks, reachable by paging
    shown = [hit["id"] for answer in (first, second) for hit in answer["hits"]]
    assert len(set(shown)) == 6 and set(shown) == {hit["id"] for hit in together["hits"]}
