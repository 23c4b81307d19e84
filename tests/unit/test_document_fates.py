"""Every file in a folder has a fate by its type: a document parsed by its own parser, JSON Lines only
for .jsonl/.ndjson, and anything else ``skipped`` with the reason, listed like any other status and
never mistaken for ``unchanged`` or a failure."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from typing import Any

import pytest
from fakes_documents import MemoryDocumentStatuses
from fakes_ingest import MemoryObjects, RecordingSink, ScriptedLoader
from retrieval_core.documents.entities import MentionFinder
from retrieval_core.documents.errors import DocumentRejectedError
from retrieval_core.documents.formats import DocumentFormat, format_of, is_lines, skip_reason
from retrieval_core.documents.limits import DOCUMENT_LIMITS, DocumentLimits
from retrieval_core.documents.parsers import parse
from retrieval_core.documents.policy import ChunkingPolicy
from retrieval_core.documents.sidecar import RecordStructure
from retrieval_core.ingest.document_files import DocumentFiles, is_document_key
from retrieval_core.ingest.service import IngestService
from retrieval_core.loading.parse import Delete
from retrieval_core.models.ingest import ObjectRef
from retrieval_core.models.metadata import FieldType

from tests import document_fixtures as fixtures
from tests.unit.test_document_units import Embedder, Vectors


@pytest.mark.parametrize(
    ("key", "fmt"),
    [
        ("contexts/a/pip_hash.rst", DocumentFormat.RESTRUCTUREDTEXT),
        ("contexts/a/guide.ADOC", DocumentFormat.ASCIIDOC),
        ("contexts/a/conf/settings.json", DocumentFormat.TEXT),
        ("contexts/a/feed.xml", DocumentFormat.XML),
        ("contexts/a/budget.xlsx", DocumentFormat.XLSX),
        ("contexts/a/notes.txt", DocumentFormat.TEXT),
    ],
)
def test_text_like_types_are_documents_of_their_own_type(key: str, fmt: DocumentFormat) -> None:
    assert format_of(key) is fmt and skip_reason(key) is None and is_document_key(key)


def test_json_lines_are_named_jsonl_or_ndjson_only_and_everything_else_has_a_reason() -> None:
    for key in ("contexts/a/b.jsonl", "contexts/a/b.NDJSON", "contexts/a/b.jsonl.gz"):
        assert is_lines(key) and not is_document_key(key) and skip_reason(key) is None
    reason = "its type (.png) is not one that is read (docs/DOCUMENTS.md, Files)"
    assert skip_reason("contexts/a/logo.png") == reason
    assert "a name without a suffix" in (skip_reason("contexts/a/Makefile") or "")
    assert skip_reason("contexts/a/x.pdf.metadata.json") is None  # a sidecar, not a stray file
    assert is_document_key("contexts/a/logo.png")  # the documents use case lists it as skipped


def test_restructuredtext_sections_follow_their_underline_styles() -> None:
    text = "Title\n=====\n\nIntro words.\n\nHashes\n------\n\nUse sha256.\n\nOther\n=====\n\nLast.\n"
    blocks = parse(DocumentFormat.RESTRUCTUREDTEXT, text.encode(), DOCUMENT_LIMITS).blocks
    assert [(b.text, b.section) for b in blocks] == [
        ("Intro words.", ("Title",)),
        ("Use sha256.", ("Title", "Hashes")),
        ("Last.", ("Other",)),
    ]
    assert all(text[b.start : b.end] == b.text for b in blocks)


def test_asciidoc_titles_nest_and_listing_blocks_are_not_titles() -> None:
    text = "= Guide\n\nOpening.\n\n== Install\n\n----\n== not a title\n----\n\nRun it.\n"
    blocks = parse(DocumentFormat.ASCIIDOC, text.encode(), DOCUMENT_LIMITS).blocks
    assert [b.section for b in blocks] == [("Guide",), ("Guide", "Install"), ("Guide", "Install")]
    assert "== not a title" in blocks[1].text and all(text[b.start : b.end] == b.text for b in blocks)


def test_xml_is_its_text_and_entities_are_refused() -> None:
    xml = b"<feed><title>Release notes</title><entry>Fixed <b>the</b> parser.</entry></feed>"
    texts = [b.text for b in parse(DocumentFormat.XML, xml, DOCUMENT_LIMITS).blocks]
    assert texts == ["Release notes", "Fixed", "the", "parser."]
    bomb = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>'
    with pytest.raises(DocumentRejectedError, match="entities"):
        parse(DocumentFormat.XML, bomb, DOCUMENT_LIMITS)


def _xlsx(rows: list[list[Any]], title: str = "Budget") -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = title
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_xlsx_rows_are_records_under_their_sheet_and_follow_the_record_structure() -> None:
    rows = [["item", "cost", "region"], ["Servers", 1200, "eu"], [None, None, None], ["Cloud", 30.5, "us"]]
    data = _xlsx(rows)
    parsed = parse(DocumentFormat.XLSX, data, DOCUMENT_LIMITS)
    assert parsed.records
    assert [(b.text, b.section) for b in parsed.blocks] == [
        ("item: Servers\ncost: 1200\nregion: eu", ("Budget", "row 2")),
        ("item: Cloud\ncost: 30.5\nregion: us", ("Budget", "row 4")),
    ]
    records = RecordStructure(content_fields=("item",), include=(), exclude=("cost",))
    (first, _) = parse(DocumentFormat.XLSX, data, DOCUMENT_LIMITS, records).blocks
    assert (first.text, first.metadata) == ("item: Servers", {"region": "eu"})


def test_xlsx_bounds_and_damage_are_reasons() -> None:
    data = _xlsx([["a"], *[[n] for n in range(5)]])
    with pytest.raises(DocumentRejectedError, match="more than 3 rows"):
        parse(DocumentFormat.XLSX, data, DocumentLimits(rows=3))
    with pytest.raises(DocumentRejectedError, match="not an XLSX"):
        parse(DocumentFormat.XLSX, b"PK\x03\x04 no zip", DOCUMENT_LIMITS)
    with pytest.raises(DocumentRejectedError, match="inflates to"):
        parse(DocumentFormat.XLSX, data, DocumentLimits(decompressed_bytes=100))


def _document_files(
    objects: MemoryObjects,
    *,
    metadata: dict[str, FieldType],
    sink: RecordingSink | None = None,
    statuses: MemoryDocumentStatuses | None = None,
    **parts: Any,
) -> DocumentFiles:
    """Document ingest over the in-memory parts; ``parts``: any other of its arguments."""
    return DocumentFiles(
        sink=sink or RecordingSink(),
        objects=objects,
        statuses=statuses or MemoryDocumentStatuses(),
        embedder=Embedder(),
        vectors=parts.pop("vectors", None),
        mentions=MentionFinder(None, None),
        chunking=ChunkingPolicy(),
        metadata=metadata,
        **parts,
    )


def _files() -> tuple[DocumentFiles, MemoryObjects, RecordingSink, MemoryDocumentStatuses]:
    objects, sink, statuses = MemoryObjects(), RecordingSink(), MemoryDocumentStatuses()
    files = _document_files(
        objects, metadata={}, sink=sink, statuses=statuses, vectors=Vectors(), limits=DocumentLimits()
    )
    return files, objects, sink, statuses


def test_a_stray_file_is_skipped_listed_skipped_again_and_deleted_when_removed() -> None:
    files, objects, sink, statuses = _files()
    key = "contexts/acme/img/logo.png"
    objects.blobs[("b", key)] = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    first = files.created(ObjectRef("b", key, "v1", sequencer="01"))
    assert first is not None and (first.key, first.status, first.chunks) == ("img/logo.png", "skipped", 0)
    assert first.reason is not None and ".png" in first.reason and not sink.loads
    assert statuses.get("acme", "img/logo.png") == first  # so GET /v1/documents lists it
    again = files.created(ObjectRef("b", key, "v2", sequencer="02"))
    assert again is not None and again.status == "skipped"  # never "unchanged"
    del objects.blobs[("b", key)]
    gone = files.removed(ObjectRef("b", key, None, sequencer="03"))
    assert gone is not None and gone.status == "deleted"


def test_a_file_that_becomes_too_large_is_skipped_and_its_chunks_go() -> None:
    files, objects, sink, statuses = _files()
    key = "contexts/acme/grow.txt"
    objects.blobs[("b", key)] = b"Small words here."
    assert files.created(ObjectRef("b", key, "v1", sequencer="01")).status == "indexed"  # type: ignore[union-attr]
    limits = DocumentLimits(file_bytes=10)
    smaller = _document_files(objects, metadata={}, sink=sink, statuses=statuses, limits=limits)
    skipped = smaller.created(ObjectRef("b", key, "v2", sequencer="02"))
    assert skipped is not None and (skipped.status, skipped.chunks) == ("skipped", 0)
    assert sink.loads[-1] == [Delete("acme:doc/grow.txt#0000")]


def test_the_ingest_service_never_reads_a_stray_file_as_json_lines() -> None:
    files, objects, _, statuses = _files()
    loader = ScriptedLoader()
    service = IngestService(loader=loader, objects=objects, queue=None, part_lines=100, documents=files)
    key = "contexts/acme/misc/pip_hash.rst"
    objects.blobs[("b", key)] = b"pip hash\n========\n\nCompute a hash of a file.\n"
    outcome = service.object_created(ObjectRef("b", key, "v1", sequencer="01"))
    assert outcome.report is None and outcome.document is not None
    assert (outcome.document.status, outcome.document.chunks) == ("indexed", 1)
    assert statuses.get("acme", "misc/pip_hash.rst") is not None


def test_a_typed_sidecar_value_of_an_undeclared_key_says_how_to_declare_it_in_one_line() -> None:
    files, objects, _, _ = _files()
    key = "contexts/acme/report.txt"
    objects.blobs[("b", key)] = b"Quarterly figures."
    typed = {
        "year": {"value": {"type": "NUMBER", "numberValue": 2024}},
        "draft": {"value": {"type": "BOOLEAN", "booleanValue": False}},
        "team": "a",
    }
    objects.blobs[("b", key + ".metadata.json")] = json.dumps({"metadataAttributes": typed}).encode()
    status = files.created(ObjectRef("b", key, "v1", sequencer="01"))
    assert status is not None and status.status == "indexed" and status.reason is not None
    assert "\n" not in status.reason
    assert '{"draft": "boolean", "year": "number"} to RETRIEVAL_METADATA_FIELDS' in status.reason
    assert status.reason.endswith("then `retrieval rebuild`")
    declared = _document_files(objects, metadata={"year": FieldType.NUMBER, "draft": FieldType.BOOLEAN})
    assert declared.created(ObjectRef("b", key, "v1", sequencer="01")).reason is None  # type: ignore[union-attr]
    conflicting = _document_files(objects, metadata={"year": FieldType.DATE})
    failed = conflicting.created(ObjectRef("b", key, "v1", sequencer="01"))
    assert failed is not None and failed.status == "failed" and failed.reason is not None
    assert (
        "metadata.year" in failed.reason
        and "RETRIEVAL_METADATA_FIELDS and run `retrieval rebuild`" in failed.reason
    )


def test_a_range_on_an_undeclared_key_names_the_declaration_and_the_rebuild() -> None:
    from retrieval_core.models.filters import Filter, FilterNotApplicableError, resolve

    with pytest.raises(FilterNotApplicableError) as raised:
        resolve(Filter.model_validate({"gte": {"key": "metadata.year", "value": 2020}}), {})
    assert 'RETRIEVAL_METADATA_FIELDS (template parameter MetadataFields, e.g. {"year": "number"})' in str(
        raised.value
    ) and "`retrieval rebuild`" in str(raised.value)


def test_the_sync_report_says_a_shared_note_once_and_keeps_each_files_own_reason() -> None:
    from retrieval_dev.cli.sync import render

    note = "typed sidecar values (year) are not declared, so they filter as exact strings: add ..."
    report = [
        {"key": "a.txt", "status": "indexed", "chunks": 1, "reason": note},
        {
            "key": "b.txt",
            "status": "updated",
            "chunks": 1,
            "reason": f"metadata only: the sidecar changed; {note}",
        },
        {
            "key": "logo.png",
            "status": "skipped",
            "chunks": 0,
            "reason": "its type (.png) is not one that is read",
        },
    ]
    assert render(report).splitlines() == [
        "indexed       1  a.txt",
        "updated       1  b.txt  metadata only: the sidecar changed",
        "skipped       0  logo.png  its type (.png) is not one that is read",
        "1 indexed, 1 skipped, 1 updated",
        f"note: {note}",
    ]


def test_the_sync_summary_counts_entries_it_never_read_apart_from_the_files_statuses() -> None:
    """Sphinx's manual (Debian) said "224 indexed, 86 skipped" over 303 files whose statuses count 79
    skipped: the other 7 were symbolic links, reported but never uploaded, so they have no status."""
    from retrieval_dev.cli.folder_files import Refusal
    from retrieval_dev.cli.sync import render

    report = [
        {"key": "index.html", "status": "indexed", "chunks": 3, "reason": None},
        {
            "key": "logo.png",
            "status": "skipped",
            "chunks": 0,
            "reason": "its type (.png) is not one that is read",
        },
        Refusal("_static/jquery.js", "skipped", "is a symbolic link (not followed)").entry(),
        Refusal("bad\\nname.txt", "failed", "has a control character in its name").entry(),
    ]
    assert render(report).splitlines()[-1] == (
        "1 indexed, 1 skipped; not read: 1 failed, 1 skipped (links, special files, names S3 cannot take)"
    )


class ContextTypes:
    """``ContextFieldTypes`` in memory: one context's index, its keys mapped as the first value typed."""

    def __init__(self, mapped: dict[str, FieldType] | None = None) -> None:
        self.mapped = dict(mapped or {})
        self.asked: list[dict[str, FieldType]] = []

    def field_types(self, context_id: str) -> dict[str, FieldType]:
        return {n: t for n, t in self.mapped.items() if t is not FieldType.KEYWORD}

    def declare(self, context_id: str, fields: Mapping[str, FieldType]) -> dict[str, FieldType]:
        self.asked.append(dict(fields))
        conflicts = {n: self.mapped[n] for n, t in fields.items() if n in self.mapped and self.mapped[n] != t}
        self.mapped |= {n: t for n, t in fields.items() if n not in self.mapped}
        return conflicts


def _typed_files(types: ContextTypes) -> tuple[DocumentFiles, MemoryObjects]:
    objects = MemoryObjects()
    files = _document_files(objects, metadata={"team": FieldType.KEYWORD}, fields=types)
    return files, objects


def _put(objects: MemoryObjects, name: str, attributes: dict[str, Any]) -> ObjectRef:
    key = f"contexts/acme/{name}"
    objects.blobs[("b", key)] = b"Quarterly figures."
    objects.blobs[("b", key + ".metadata.json")] = json.dumps({"metadataAttributes": attributes}).encode()
    return ObjectRef("b", key, "v1", sequencer="01")


def test_typed_sidecar_values_declare_their_keys_for_the_context_and_a_conflict_is_one_line() -> None:
    types = ContextTypes()
    files, objects = _typed_files(types)
    year = {"value": {"type": "NUMBER", "numberValue": 2024}}
    tags = {"value": {"type": "STRING_LIST", "stringListValue": ["q1"]}}
    team = {"value": {"type": "STRING", "stringValue": "ops"}}
    first = files.created(_put(objects, "a.txt", {"year": year, "tags": tags, "team": team}))
    assert first is not None and (first.status, first.reason) == ("indexed", None)
    # The deployment's keys are its own; the rest are declared, in the context's index.
    assert types.asked == [{"year": FieldType.NUMBER, "tags": FieldType.KEYWORD}]
    again = files.created(_put(objects, "b.txt", {"year": year}))
    assert again is not None and again.status == "indexed" and types.asked[1:] == []  # already a number
    boolean = {"value": {"type": "BOOLEAN", "booleanValue": True}}
    failed = files.created(_put(objects, "c.txt", {"year": boolean}))
    assert failed is not None and failed.status == "failed" and failed.reason is not None
    assert '{"year": "boolean"} to RETRIEVAL_METADATA_FIELDS and run `retrieval rebuild`' in failed.reason
    retyped = files.created(_put(objects, "d.txt", {"tags": {"value": {"type": "NUMBER", "numberValue": 1}}}))
    assert retyped is not None and retyped.status == "indexed" and retyped.reason is not None
    assert "\n" not in retyped.reason and "(tags as keyword" in retyped.reason
    assert '{"tags": "number"} to RETRIEVAL_METADATA_FIELDS' in retyped.reason


@pytest.mark.parametrize(
    ("page", "reason"),
    [
        (fixtures.DOCBOOK_TOC_PAGE, "a title and a table of contents"),
        (fixtures.docbook_index_page(), "an index of links"),
    ],
    ids=["table-of-contents", "index-of-links"],
)
def test_a_page_that_is_only_navigation_is_skipped_with_its_reason_not_failed(
    page: bytes, reason: str
) -> None:
    files, objects, sink, _ = _files()
    key = "contexts/acme/manual/nav.html"
    objects.blobs[("b", key)] = fixtures.DOCBOOK_PAGE
    assert files.created(ObjectRef("b", key, "v1", sequencer="01")).status == "indexed"  # type: ignore[union-attr]
    objects.blobs[("b", key)] = page  # the same page becomes navigation only: its chunks go
    skipped = files.created(ObjectRef("b", key, "v2", sequencer="02"))
    assert skipped is not None and (skipped.status, skipped.chunks) == ("skipped", 0)
    assert skipped.reason is not None and reason in skipped.reason and "only navigation" in skipped.reason
    assert isinstance(sink.loads[-1][0], Delete)
    assert skipped.content_hash is not None  # a sync leaves the same bytes alone next time


def test_a_page_with_no_text_at_all_still_fails() -> None:
    files, objects, _, _ = _files()
    key = "contexts/acme/blank.html"
    objects.blobs[("b", key)] = b"<html><body><p>  </p></body></html>"
    failed = files.created(ObjectRef("b", key, "v1", sequencer="01"))
    assert failed is not None and (failed.status, failed.reason) == ("failed", "the file holds no text")
