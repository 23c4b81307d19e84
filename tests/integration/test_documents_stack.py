"""Documents through the ingest function against the local stack (moto S3 and DynamoDB, the OpenSearch
node): generated PDF, DOCX, HTML, Markdown, text and CSV files become chunks that cite their file, page
and section, filterable by their sidecars in every mode; bad files fail alone with a reason; overwrites,
removals, late events and re-uploads leave exactly the current file; statuses are the owner's only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from retrieval_core import base64url, bootstrap
from retrieval_core.adapters import s3_objects, sqs_parts
from retrieval_core.config import Settings
from retrieval_core.models.metadata import FieldType
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.ingest import s3_event
from retrieval_dev.cli.lambda_runtime import invoke

from dev.ingest_resources import IngestResources, aws_client, scratch_ingest
from tests import document_fixtures as fixtures

PAGES = [
    "The hangar doors open at dawn. Crews inspect every aircraft before flight.",
    "Wing flutter appears above Mach 0.8 on the prototype. Engineers add stiffeners to the spar.",
    "Landing gear retracts in nine seconds. The test pilot signs the log.",
]
MARKDOWN = b"""# Operations Guide

The Payments Gateway settles card transactions nightly and sends the day's totals to the ledger team,
who reconcile them against the bank's statement each morning.

## Refunds

Refunds above 500 euros need a second approver from the Treasury Desk, who checks the original charge
and the customer's account before any money goes back.
"""


@pytest.fixture
def docs(fresh_settings: Settings) -> Iterator[tuple[Settings, IngestResources]]:
    """Fresh tables, alias, bucket; the handlers run on them (no queue: one-part objects)."""
    endpoint = fresh_settings.dynamodb_endpoint
    assert endpoint
    with scratch_ingest(fresh_settings, "d") as resources, pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ENDPOINT_URL_S3", endpoint)
        s3_objects.s3_client.cache_clear()
        sqs_parts.sqs_client.cache_clear()
        settings = fresh_settings.model_copy(
            update={
                "ingest_queue_url": None,
                "metadata_fields": {"year": FieldType.NUMBER},
                "entity_extractor": "local",
            }
        )
        with bootstrap.use(bootstrap.Container(settings)):
            yield settings, resources


def put(resources: IngestResources, settings: Settings, key: str, body: bytes) -> dict[str, Any]:
    """Upload and run the ingest function on the notification; returns the event (to replay it)."""
    s3 = aws_client("s3", settings.dynamodb_endpoint or "")
    answer = s3.put_object(Bucket=resources.bucket, Key=key, Body=body)
    event = s3_event(
        resources.bucket, key, size=len(body), etag=answer["ETag"], version_id=answer["VersionId"]
    )
    event["Records"][0]["s3"]["object"]["sequencer"] = _sequencer()
    ingest(event)
    return event


def remove(resources: IngestResources, settings: Settings, key: str) -> None:
    aws_client("s3", settings.dynamodb_endpoint or "").delete_object(Bucket=resources.bucket, Key=key)
    event = s3_event(resources.bucket, key, size=0, etag="", version_id=None)
    record = event["Records"][0]
    record["eventName"] = "ObjectRemoved:DeleteMarkerCreated"
    record["s3"]["object"]["sequencer"] = _sequencer()
    ingest(event)


_SEQUENCE = [0x0055AED6DCCC0AAAAA]


def _sequencer() -> str:
    _SEQUENCE[0] += 1
    return f"{_SEQUENCE[0]:018X}"


def ingest(event: dict[str, Any]) -> dict[str, Any]:
    response = invoke("ingest", event)
    assert response["statusCode"] == 200, response
    return dict(response["body"]["objects"][0])


def status(key: str, context_id: str = "acme") -> tuple[int, dict[str, Any]]:
    encoded = quote(key, safe="")
    event = api_event("GET", f"/v1/documents/{encoded}", context_id, path_parameters={"key": encoded})
    response = invoke("retrieve", event)
    return response["statusCode"], json.loads(response["body"])


def retrieve(body: dict[str, Any], context_id: str = "acme") -> list[dict[str, Any]]:
    response = invoke("retrieve", api_event("POST", "/v1/retrieve", context_id, body=body))
    assert response["statusCode"] == 200, response["body"]
    return list(json.loads(response["body"])["hits"])


def test_files_become_chunks_citing_file_page_and_section_filterable_by_sidecar(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    put(resources, settings, "contexts/acme/flight/report.pdf", fixtures.pdf(PAGES))
    put(
        resources,
        settings,
        "contexts/acme/ops/guide.md.metadata.json",
        json.dumps(
            {
                "metadataAttributes": {
                    "team": "payments",
                    "year": {"value": {"type": "NUMBER", "numberValue": 2024}},
                }
            }
        ).encode(),
    )
    put(resources, settings, "contexts/acme/ops/guide.md", MARKDOWN)
    put(
        resources,
        settings,
        "contexts/acme/web/page.html",
        b"<html><body><h1>Fleet</h1><h2>Fuel</h2>"
        b"<p>Jet fuel is stored in the north depot.</p><script>var hidden = 'no';</script></body></html>",
    )
    put(
        resources,
        settings,
        "contexts/acme/manual.docx",
        fixtures.docx(
            [
                ("h1", "Maintenance"),
                ("p", "Check the hydraulic pressure weekly."),
                ("break", 0),
                ("h2", "Tyres"),
                ("p", "Replace tyres after two hundred landings."),
            ]
        ),
    )
    for key in ("flight/report.pdf", "ops/guide.md", "web/page.html", "manual.docx"):
        code, body = status(key)
        assert code == 200 and body["status"] == "indexed" and body["chunks"] >= 1, (key, body)
        assert set(body) == {"key", "status", "version", "chunks", "reason", "updated_at"}

    (flutter,) = retrieve({"mode": "lexical", "text": "wing flutter stiffeners spar", "top_k": 1})
    assert flutter["kind"] == "document" and flutter["id"].startswith("acme:doc/flight/report.pdf#")
    assert flutter["location"]["uri"] == f"s3://{resources.bucket}/contexts/acme/flight/report.pdf"
    assert flutter["location"]["page"] == 2
    assert PAGES[1][flutter["location"]["start"] : flutter["location"]["end"]] == PAGES[1]

    (tyres,) = retrieve({"mode": "lexical", "text": "tyres landings", "top_k": 1})
    assert (tyres["location"]["page"], tyres["location"]["section"]) == (2, "Maintenance > Tyres")
    (fuel,) = retrieve({"mode": "lexical", "text": "jet fuel depot", "top_k": 1})
    assert fuel["location"]["section"] == "Fleet > Fuel" and "hidden" not in fuel["text"]

    # The sidecar's metadata, numbers as numbers, filters inside every mode.
    where = {
        "all_of": [
            {"equals": {"key": "metadata.team", "value": "payments"}},
            {"gte": {"key": "metadata.year", "value": 2024}},
        ]
    }
    for mode in ("lexical", "vector", "hybrid"):
        hits = retrieve({"mode": mode, "text": "refunds approver", "filter": where, "top_k": 10})
        assert hits and {h["id"].split("#")[0] for h in hits} == {"acme:doc/ops/guide.md"}, mode
        assert hits[0]["metadata"] == {"team": "payments", "year": 2024}
    refunds = retrieve({"mode": "lexical", "text": "refunds approver", "top_k": 1})[0]
    assert refunds["location"]["section"] == "Operations Guide > Refunds"

    # Entities without a model: the rule-based extractor's names, and the file every chunk mentions.
    names = {m["name"] for m in refunds["mentions"]}
    assert "Treasury Desk" in names and "ops/guide.md" in names
    same_file = retrieve({"mode": "entity", "entity_id": "acme:doc/ops/guide.md", "top_k": 10})
    assert len(same_file) == status("ops/guide.md")[1]["chunks"] >= 2

    # why_explain shows the chunk's file, version, page and section.
    encoded = quote(flutter["id"], safe="")
    event = api_event("GET", f"/v1/why/{encoded}", "acme", path_parameters={"proposition_id": encoded})
    explained = json.loads(invoke("why_explain", event)["body"])
    (span,) = explained["grounding"]
    assert span["uri"].endswith("report.pdf") and span["page"] == 2 and span["version"]


def test_csv_rows_are_items_with_the_record_structure_of_their_sidecar(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    sidecar = {
        "metadataAttributes": {"source": "crm"},
        "documentStructureConfiguration": {
            "type": "RECORD_BASED_STRUCTURE_METADATA",
            "recordBasedStructureMetadata": {
                "contentFields": [{"fieldName": "note"}],
                "metadataFieldsSpecification": {"fieldsToInclude": [{"fieldName": "region"}]},
            },
        },
    }
    put(resources, settings, "contexts/acme/crm.csv.metadata.json", json.dumps(sidecar).encode())
    put(
        resources,
        settings,
        "contexts/acme/crm.csv",
        b"id,region,note\n1,emea,Customer asked about invoices\n2,apac,Customer renewed the contract\n",
    )
    assert status("crm.csv")[1]["chunks"] == 2
    hits = retrieve(
        {
            "mode": "lexical",
            "text": "renewed contract",
            "top_k": 1,
            "filter": {"equals": {"key": "metadata.region", "value": "apac"}},
        }
    )
    assert hits[0]["text"] == "note: Customer renewed the contract"
    assert hits[0]["metadata"] == {"source": "crm", "region": "apac"}


BAD_FILES: dict[str, tuple[bytes, str]] = {
    "locked.pdf": (fixtures.pdf(["secret"], password="pw"), "encrypted"),
    "half.pdf": (fixtures.truncated(fixtures.pdf(PAGES)), "truncated"),
    "broken.pdf": (fixtures.corrupt_pdf(), "not a readable PDF"),
    "bomb.docx": (fixtures.docx_bomb(), "zip bomb"),
    "binary.txt": (fixtures.BINARY_TEXT, "binary"),
    "empty.md": (b"", "empty"),
    "typed.txt": (b"A note from the year of the audit.", "contradicts the declared type"),
    "sidecar-big.txt": (b"A note with a large sidecar.", "more than 10,240"),
}
SIDECARS = {
    "typed.txt": json.dumps({"metadataAttributes": {"year": "last year"}}).encode(),
    "sidecar-big.txt": json.dumps({"metadataAttributes": {"x": "y" * 11_000}}).encode(),
}


def test_bad_files_fail_alone_with_a_reason(docs: tuple[Settings, IngestResources]) -> None:
    settings, resources = docs
    for name, sidecar in SIDECARS.items():
        put(resources, settings, f"contexts/acme/bad/{name}.metadata.json", sidecar)
    for name, (body, _) in BAD_FILES.items():
        put(resources, settings, f"contexts/acme/bad/{name}", body)
    put(resources, settings, "contexts/acme/bad/good.txt", b"The good file loads beside the bad ones.")
    for name, (_, reason) in BAD_FILES.items():
        code, body = status(f"bad/{name}")
        assert code == 200 and body["status"] == "failed" and body["chunks"] == 0, (name, body)
        assert reason in body["reason"], (name, body["reason"])
    assert status("bad/good.txt")[1]["status"] == "indexed"
    hits = retrieve({"mode": "lexical", "text": "note file loads secret", "top_k": 10})
    assert [h["id"] for h in hits] == ["acme:doc/bad/good.txt#0000"]


def test_overwrites_removals_late_events_and_reuploads_leave_exactly_the_current_file(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    key = "contexts/acme/notes.md"
    long_version = b"# Notes\n\n" + b"\n\n".join(
        f"## Part {n}\n\nThe quartermaster counted {n} crates of lanterns in the north store and wrote the "
        "number in the ledger before the ship sailed at dawn.".encode()  # a section past the chunking floor
        for n in range(1, 5)
    )
    first = put(resources, settings, key, long_version)
    assert status("notes.md")[1]["chunks"] == 4
    put(resources, settings, key, b"# Notes\n\nOnly the ledger of anchors remains.")
    code, body = status("notes.md")
    assert (code, body["status"], body["chunks"]) == (200, "updated", 1)
    for mode in ("lexical", "hybrid"):
        assert not [
            h for h in retrieve({"mode": mode, "text": "quartermaster lanterns"}) if "lanterns" in h["text"]
        ]
    # The first upload's event, delivered late (an older sequencer), changes nothing.
    ingest(first)
    assert status("notes.md")[1]["chunks"] == 1
    assert not retrieve({"mode": "lexical", "text": "quartermaster lanterns"})
    # The same bytes again: unchanged; a sidecar alone: metadata re-applied, nothing embedded.
    put(resources, settings, key, b"# Notes\n\nOnly the ledger of anchors remains.")
    assert status("notes.md")[1]["status"] == "unchanged"
    embedded = _count_embeddings()
    put(resources, settings, key + ".metadata.json", b'{"metadataAttributes": {"shelf": "b2"}}')
    assert embedded() == 0
    (hit,) = retrieve(
        {
            "mode": "lexical",
            "text": "ledger anchors",
            "filter": {"equals": {"key": "metadata.shelf", "value": "b2"}},
        }
    )
    assert hit["metadata"] == {"shelf": "b2"}
    # Removed: its chunks go, its status says so.
    remove(resources, settings, key)
    assert status("notes.md")[1] | {"updated_at": None} == {
        "key": "notes.md",
        "status": "deleted",
        "version": None,
        "chunks": 0,
        "reason": None,
        "updated_at": None,
    }
    assert not retrieve({"mode": "hybrid", "text": "ledger anchors", "kinds": ["document"]})


def _count_embeddings() -> Any:
    """Counts the texts the container's embedder embeds from now on."""
    embedder = bootstrap.container().embedder
    calls: list[int] = []
    original = embedder.embed

    def counting(texts: Any) -> list[list[float]]:
        calls.append(len(texts))
        return original(texts)

    embedder.embed = counting  # type: ignore[method-assign]
    return lambda: sum(calls)


def test_statuses_are_the_owners_only(docs: tuple[Settings, IngestResources]) -> None:
    settings, resources = docs
    put(resources, settings, "contexts/acme/a/one.txt", b"One.")
    put(resources, settings, "contexts/acme/a/two.txt", b"Two.")
    put(resources, settings, "contexts/acme/b/three.txt", b"Three.")
    put(resources, settings, "contexts/globex/a/secret.txt", b"Globex only.")
    response = invoke(
        "retrieve", api_event("GET", "/v1/documents", "acme", query={"prefix": "a/", "limit": "1"})
    )
    page = json.loads(response["body"])
    assert [d["key"] for d in page["documents"]] == ["a/one.txt"] and page["next_token"]
    response = invoke(
        "retrieve",
        api_event("GET", "/v1/documents", "acme", query={"prefix": "a/", "next_token": page["next_token"]}),
    )
    assert [d["key"] for d in json.loads(response["body"])["documents"]] == ["a/two.txt"]
    # The token is acme's: under globex (which has an a/ file after a/one.txt) it is refused exactly as a
    # garbage one is, never answered 200 with globex's page or an empty one; nor does it name the file.
    refusals = [
        invoke(
            "retrieve", api_event("GET", "/v1/documents", context, query={"prefix": "a/", "next_token": t})
        )
        for context, t in [("globex", page["next_token"]), ("globex", "garbage"), ("acme", "garbage")]
    ]
    assert {(r["statusCode"], r["body"]) for r in refusals} == {(400, refusals[0]["body"])}
    assert "one.txt" not in str(base64url.decode(page["next_token"].split(".")[1]))
    foreign, missing = status("a/secret.txt"), status("a/nothing.txt")
    assert foreign[0] == missing[0] == 404 and foreign[1] == missing[1]
    assert status("a/secret.txt", "globex")[0] == 200


def test_sync_mirrors_a_folder_reports_each_file_and_applies_deletes(
    docs: tuple[Settings, IngestResources], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from retrieval_dev.cli.sync import sync

    _, resources = docs
    monkeypatch.setenv("RETRIEVAL_INGEST_BUCKET", resources.bucket)
    folder = tmp_path / "kb"
    (folder / "notes").mkdir(parents=True)
    for n in range(5):
        (folder / "notes" / f"n{n}.md").write_text(f"# Note {n}\n\nThe beacon number {n} blinks green.")
        (folder / "notes" / f"n{n}.md.metadata.json").write_text(
            json.dumps({"metadataAttributes": {"n": str(n)}})
        )
    (folder / "report.pdf").write_bytes(fixtures.pdf(PAGES))
    (folder / "broken.pdf").write_bytes(fixtures.corrupt_pdf())
    report = {entry["key"]: entry for entry in sync(folder, "acme", delete=True)}
    assert {k: v["status"] for k, v in report.items()} == {
        **{f"notes/n{n}.md": "indexed" for n in range(5)},
        "report.pdf": "indexed",
        "broken.pdf": "failed",
    }
    assert report["report.pdf"]["chunks"] == 3 and "not a readable PDF" in report["broken.pdf"]["reason"]
    (hit,) = retrieve(
        {
            "mode": "hybrid",
            "text": "beacon blinks",
            "top_k": 1,
            "filter": {"equals": {"key": "metadata.n", "value": "3"}},
        }
    )
    assert hit["id"] == "acme:doc/notes/n3.md#0000"

    (folder / "notes" / "n1.md").write_text("# Note 1\n\nThe beacon was replaced by a lighthouse.")
    (folder / "notes" / "n2.md").unlink()
    (folder / "notes" / "n2.md.metadata.json").unlink()
    again = {entry["key"]: entry["status"] for entry in sync(folder, "acme", delete=True)}
    assert again == {
        "notes/n0.md": "unchanged",
        "notes/n1.md": "updated",
        "notes/n2.md": "deleted",
        "notes/n3.md": "unchanged",
        "notes/n4.md": "unchanged",
        "report.pdf": "unchanged",
        "broken.pdf": "failed",
    }
    texts = {h["text"] for h in retrieve({"mode": "lexical", "text": "beacon blinks green", "top_k": 10})}
    assert texts == {
        "The beacon number 0 blinks green.",
        "The beacon number 3 blinks green.",
        "The beacon number 4 blinks green.",
        "The beacon was replaced by a lighthouse.",
    }


def test_a_prefix_override_chunks_hierarchically_and_a_child_hit_answers_with_its_parent(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    chunking = {
        "prefixes": {
            "contexts/acme/h/": {
                "strategy": "hierarchical",
                "parent_max_tokens": 120,
                "child_max_tokens": 30,
                "overlap_tokens": 0,
            }
        }
    }
    text = " ".join(f"Sentence {n} of the manual mentions gear {n}." for n in range(30)).encode()
    with bootstrap.use(bootstrap.Container(settings.model_copy(update={"document_chunking": chunking}))):
        put(resources, settings, "contexts/acme/h/manual.txt", text)
        put(resources, settings, "contexts/acme/flat.txt", text)
        hierarchical = status("h/manual.txt")[1]["chunks"]
        assert hierarchical > status("flat.txt")[1]["chunks"]  # children of 30 tokens, not 254-token chunks
        hits = retrieve({"mode": "lexical", "text": "gear 17", "top_k": 10})
        hit = next(h for h in hits if h["id"].startswith("acme:doc/h/"))
    assert hit["id"].startswith("acme:doc/h/manual.txt#")
    assert "gear 17." in hit["text"] and len(hit["text"]) > 3 * len(
        "Sentence 17 of the manual mentions gear 17."
    )


def test_names_in_documents_link_to_the_entities_json_lines_items_gave(
    docs: tuple[Settings, IngestResources],
) -> None:
    from retrieval_core.bootstrap import container

    settings, resources = docs
    item = {
        "id": "acme:p-1",
        "context_id": "acme",
        "kind": "proposition",
        "text": "Dana runs the Payments Gateway.",
        "created_at": "2026-03-02T09:00:00Z",
        "mentions": [{"entity_id": "acme:service/gateway", "name": "Payments Gateway", "type": "Service"}],
    }
    assert container().loader.load_lines([json.dumps(item)]).ok
    put(resources, settings, "contexts/acme/ops/guide.md", MARKDOWN)
    hits = retrieve({"mode": "entity", "entity_id": "acme:service/gateway", "top_k": 10})
    assert {h["id"] for h in hits} >= {"acme:p-1", "acme:doc/ops/guide.md#0000"}


FLEET = b"""# Fleet

The Hangar Crew services the Falcon Jet every night.

## Fuel

Nothing else is said here about crews.
"""
DEPOT = b"The Falcon Jet refuels at the North Depot before dawn."


def test_a_documents_only_context_answers_entity_graph_walk_graph_path_and_auto_with_chunks(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    put(resources, settings, "contexts/acme/fleet/guide.md", FLEET)
    put(resources, settings, "contexts/acme/fleet/depot.txt", DEPOT)
    crew, jet, depot = (f"acme:entity/{slug}" for slug in ("hangar-crew", "falcon-jet", "north-depot"))
    guide_chunk, depot_chunk = "acme:doc/fleet/guide.md#0000", "acme:doc/fleet/depot.txt#0000"

    # entity: the name the extractor found in both files is one entity.
    assert {h["id"] for h in retrieve({"mode": "entity", "entity_id": jet, "top_k": 10})} == {
        guide_chunk,
        depot_chunk,
    }
    # graph_walk: the chunk naming two entities carries their edge; a second hop reaches the other file.
    one_hop = retrieve({"mode": "graph_walk", "entity_id": crew, "depth": 1, "top_k": 10})
    assert [h["id"] for h in one_hop] == [guide_chunk]
    two_hops = retrieve({"mode": "graph_walk", "entity_id": crew, "depth": 2, "top_k": 10})
    assert [h["id"] for h in two_hops] == [guide_chunk, depot_chunk]
    assert two_hops[1]["location"]["uri"].endswith("contexts/acme/fleet/depot.txt")
    # graph_path: the crew reaches the depot through the jet, each hop carried by a chunk.
    query = {"from": crew, "to": depot}
    response = invoke("graph_path", api_event("GET", "/v1/graph/path", "acme", query=query))
    assert response["statusCode"] == 200, response["body"]
    (path,) = json.loads(response["body"])["paths"]
    assert path["entity_ids"] == [crew, jet, depot]
    assert [e["proposition_id"] for e in path["edges"]] == [guide_chunk, depot_chunk]
    assert path["edges"][1]["text"] == DEPOT.decode()
    # auto links the names the documents gave and answers with their chunks.
    response = invoke(
        "retrieve",
        api_event(
            "POST", "/v1/retrieve", "acme", body={"mode": "auto", "text": "Where does the Falcon Jet refuel?"}
        ),
    )
    body = json.loads(response["body"])
    assert jet in [i["value"] for i in body["applied"]["inferred"] if i["became"] == "entity"]
    assert body["hits"][0]["id"] == depot_chunk
    # The file's own mention pairs with nothing: no edge joins every name of a file.
    assert retrieve({"mode": "graph_walk", "entity_id": "acme:doc/fleet/guide.md", "top_k": 10}) == []

    # An edit replaces the chunk's edges: the crew no longer reaches the jet (only the page it is on,
    # "Fleet", whose entity the chunk is about).
    put(resources, settings, "contexts/acme/fleet/guide.md", b"# Fleet\n\nThe Hangar Crew went home.")
    walked = retrieve({"mode": "graph_walk", "entity_id": crew, "depth": 2, "top_k": 10})
    assert [h["id"] for h in walked] == [guide_chunk]
    response = invoke("graph_path", api_event("GET", "/v1/graph/path", "acme", query=query))
    assert json.loads(response["body"])["paths"] == []


def test_why_explain_on_a_chunk_shows_its_file_version_page_and_section_and_reaches_its_siblings(
    docs: tuple[Settings, IngestResources],
) -> None:
    settings, resources = docs
    body = fixtures.docx(
        [
            ("h1", "Maintenance"),
            ("p", "Check the hydraulic pressure weekly."),
            ("break", 0),
            ("h2", "Tyres"),
            ("p", "Replace tyres after two hundred landings."),
        ]
    )
    event = put(resources, settings, "contexts/acme/manual.docx", body)
    version = event["Records"][0]["s3"]["object"]["versionId"]
    (tyres,) = retrieve({"mode": "lexical", "text": "tyres landings", "top_k": 1})
    encoded = quote(tyres["id"], safe="")
    request = api_event("GET", f"/v1/why/{encoded}", "acme", path_parameters={"proposition_id": encoded})
    response = invoke("why_explain", request)
    assert response["statusCode"] == 200, response["body"]
    explained = json.loads(response["body"])
    (span,) = explained["grounding"]
    assert span == {
        "chunk_id": tyres["id"],
        "uri": f"s3://{resources.bucket}/contexts/acme/manual.docx",
        "start": span["start"],
        "end": span["end"],
        "page": 2,
        "section": "Maintenance > Tyres",
        "anchor": None,
        "version": version,
    }
    # The item names its file as an entity: asking for it returns the file's every chunk.
    (file_mention,) = [m for m in explained["item"]["mentions"] if m["type"] == "file"]
    assert file_mention["entity_id"] == "acme:doc/manual.docx"
    siblings = retrieve({"mode": "entity", "entity_id": file_mention["entity_id"], "top_k": 10})
    assert {h["id"] for h in siblings} == {f"acme:doc/manual.docx#{n:04d}" for n in range(2)}
    assert status("manual.docx")[1]["chunks"] == 2


def test_a_mixed_folder_gives_every_file_a_fate_and_a_second_sync_the_same_skips(
    docs: tuple[Settings, IngestResources], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's folder in small: text-like types read by their type (never as JSON Lines), stray
    types skipped with the reason in the report and in GET /v1/documents, the same on the next sync,
    and a sidecar-only change reported ``updated`` (metadata)."""
    import io

    from openpyxl import Workbook
    from retrieval_dev.cli.sync import sync

    _, resources = docs
    monkeypatch.setenv("RETRIEVAL_INGEST_BUCKET", resources.bucket)
    folder = tmp_path / "mixed"
    (folder / "misc").mkdir(parents=True)
    (folder / "misc" / "pip_hash.rst").write_text("pip hash\n========\n\nCompute a digest of a wheel.\n")
    (folder / "guide.adoc").write_text("= Guide\n\n== Setup\n\nThe lantern daemon listens on port 7000.\n")
    (folder / "settings.json").write_text('{"harbour": "Valletta", "ships": 12}\n')
    (folder / "feed.xml").write_text("<feed><entry>The ferry leaves at noon.</entry></feed>")
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["crate", "weight"])
    sheet.append(["anchors", 900])
    out = io.BytesIO()
    book.save(out)
    (folder / "cargo.xlsx").write_bytes(out.getvalue())
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (folder / "Makefile").write_text("all:\n\techo hi\n")
    (folder / "note.md").write_text("# Note\n\nThe beacon blinks.")
    (folder / "note.md.metadata.json").write_text(json.dumps({"metadataAttributes": {"team": "a"}}))
    report = {entry["key"]: entry for entry in sync(folder, "acme", delete=True)}
    assert {k: v["status"] for k, v in report.items()} == {
        "misc/pip_hash.rst": "indexed",
        "guide.adoc": "indexed",
        "settings.json": "indexed",
        "feed.xml": "indexed",
        "cargo.xlsx": "indexed",
        "note.md": "indexed",
        "logo.png": "skipped",
        "Makefile": "skipped",
    }
    assert ".png" in report["logo.png"]["reason"] and "without a suffix" in report["Makefile"]["reason"]
    (hit,) = retrieve({"mode": "lexical", "text": "anchors weight", "top_k": 1})
    assert hit["id"] == "acme:doc/cargo.xlsx#0000" and hit["location"]["section"] == "Sheet > row 2"
    (hit,) = retrieve({"mode": "lexical", "text": "lantern daemon port", "top_k": 1})
    assert hit["location"]["section"] == "Guide > Setup"
    listed = json.loads(invoke("retrieve", api_event("GET", "/v1/documents", "acme"))["body"])["documents"]
    assert {d["key"]: d["status"] for d in listed}["logo.png"] == "skipped"
    assert next(d for d in listed if d["key"] == "Makefile")["reason"] == report["Makefile"]["reason"]

    (folder / "note.md.metadata.json").write_text(json.dumps({"metadataAttributes": {"team": "b"}}))
    again = {entry["key"]: entry for entry in sync(folder, "acme", delete=True)}
    assert {k: v["status"] for k, v in again.items()} == {
        **{k: "unchanged" for k in report if k not in {"logo.png", "Makefile", "note.md"}},
        "logo.png": "skipped",
        "Makefile": "skipped",
        "note.md": "updated",
    }
    assert again["note.md"]["reason"].startswith("metadata only")
    (hit,) = retrieve({"mode": "lexical", "text": "beacon", "top_k": 1})
    assert hit["metadata"]["team"] == "b"
