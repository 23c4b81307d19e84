"""Documents without a backend: each parser's blocks (pages, sections, offsets), the bounds every hostile
file meets, Bedrock's sidecar forms, the chunking strategies within the embedder's window, and the use
case's decisions (unchanged, late events, reused vectors) over in-memory ports."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import pytest
from fakes_documents import MemoryDocumentStatuses
from fakes_ingest import MemoryObjects, RecordingSink
from retrieval_core.documents.chunking import ChunkingConfig, chunk_document
from retrieval_core.documents.entities import MentionFinder
from retrieval_core.documents.errors import ChunkingConfigError, DocumentRejectedError
from retrieval_core.documents.formats import DocumentFormat, format_of
from retrieval_core.documents.limits import DOCUMENT_LIMITS, DocumentLimits
from retrieval_core.documents.name_rules import RuleBasedExtractor
from retrieval_core.documents.parsed import Block, ParsedDocument
from retrieval_core.documents.parsers import parse
from retrieval_core.documents.policy import ChunkingPolicy
from retrieval_core.documents.sidecar import read_sidecar
from retrieval_core.entrypoints.bedrock.answers import retrieval_result
from retrieval_core.ingest.document_files import DocumentFiles
from retrieval_core.loading.parse import Upsert
from retrieval_core.models.hits import Hit
from retrieval_core.models.ingest import ObjectRef
from retrieval_core.models.metadata import FieldType
from retrieval_core.models.text_window import estimate_tokens, window_of
from retrieval_core.ports import NamedEntity, Stored

from tests import document_fixtures as fixtures
from tests.eval_collections import collection_folder

FORMATS = {DocumentFormat.TEXT, DocumentFormat.MARKDOWN, DocumentFormat.HTML}


def test_formats_come_from_suffixes_and_sidecars_are_not_documents() -> None:
    assert format_of("contexts/a/x/Report.PDF") is DocumentFormat.PDF
    assert format_of("contexts/a/page.htm") is DocumentFormat.HTML
    assert format_of("contexts/a/x.pdf.metadata.json") is None and format_of("contexts/a/x.jsonl") is None


def test_markdown_blocks_carry_their_heading_path_and_offsets() -> None:
    text = "# Guide\n\nIntro.\n\n## Setup\n\nInstall it.\n\n```\n# not a heading\n```\n\n# Other\n\nEnd."
    blocks = parse(DocumentFormat.MARKDOWN, text.encode(), DOCUMENT_LIMITS).blocks
    assert [(b.text, b.section) for b in blocks] == [
        ("Intro.", ("Guide",)),
        ("Install it.", ("Guide", "Setup")),
        ("```\n# not a heading\n```", ("Guide", "Setup")),
        ("End.", ("Other",)),
    ]
    assert all(text[b.start : b.end] == b.text for b in blocks)


def test_html_keeps_visible_text_under_its_headings() -> None:
    html = (
        b"<head><title>t</title><style>p{}</style></head>"
        b"<h1>A</h1><p>One <b>two</b>.</p><h2>B</h2><p>Three</p>"
    )
    blocks = parse(DocumentFormat.HTML, html, DOCUMENT_LIMITS).blocks
    assert [(b.text, b.section) for b in blocks] == [("One two.", ("A",)), ("Three", ("A", "B"))]


def test_docx_numbers_pages_at_its_breaks_and_nests_headings() -> None:
    data = fixtures.docx([("h1", "One"), ("p", "First."), ("break", 0), ("h2", "Two"), ("p", "Second.")])
    parsed = parse(DocumentFormat.DOCX, data, DOCUMENT_LIMITS)
    assert [(b.text, b.page, b.section) for b in parsed.blocks] == [
        ("First.", 1, ("One",)),
        ("Second.", 2, ("One", "Two")),
    ]
    unmarked = parse(DocumentFormat.DOCX, fixtures.docx([("p", "No breaks.")]), DOCUMENT_LIMITS)
    assert [b.page for b in unmarked.blocks] == [None]


def test_pdf_pages_are_numbered_from_one() -> None:
    parsed = parse(DocumentFormat.PDF, fixtures.pdf(["Alpha page.", "Beta page."]), DOCUMENT_LIMITS)
    assert parsed.pages == 2 and [(b.page, b.text) for b in parsed.blocks] == [
        (1, "Alpha page."),
        (2, "Beta page."),
    ]


@pytest.mark.parametrize(
    ("fmt", "data", "limits", "reason"),
    [
        (DocumentFormat.PDF, fixtures.pdf(["a", "b", "c"]), DocumentLimits(pages=2), "has 3 pages"),
        (DocumentFormat.TEXT, b"x" * 50, DocumentLimits(characters=10), "more than 10 characters"),
        (DocumentFormat.CSV, b"a\n1\n2\n3\n", DocumentLimits(rows=2), "more than 2 rows"),
        (
            DocumentFormat.DOCX,
            fixtures.docx_bomb(4 * 1024 * 1024),
            DocumentLimits(decompressed_bytes=2**20),
            "inflates",
        ),
        (DocumentFormat.DOCX, b"PK\x03\x04 not really", DOCUMENT_LIMITS, "not a DOCX"),
        (DocumentFormat.TEXT, b"caf\xe9", DOCUMENT_LIMITS, "not UTF-8"),
        (DocumentFormat.PDF, b"<html>", DOCUMENT_LIMITS, "not a PDF"),
    ],
)
def test_every_bound_refuses_the_file_with_its_reason(
    fmt: DocumentFormat, data: bytes, limits: DocumentLimits, reason: str
) -> None:
    with pytest.raises(DocumentRejectedError, match=re.escape(reason)):
        parse(fmt, data, limits)


def test_sidecars_plain_and_typed_become_metadata_and_declared_types_rule() -> None:
    typed = {
        "team": "payments",
        "year": {"value": {"type": "NUMBER", "numberValue": 2024}, "includeForEmbedding": False},
        "open": {"value": {"type": "BOOLEAN", "booleanValue": True}},
        "tags": {"value": {"type": "STRING_LIST", "stringListValue": ["a", "b"]}},
        "owner": {"value": {"type": "STRING", "stringValue": "kim"}},
    }
    sidecar = read_sidecar(
        json.dumps({"metadataAttributes": typed}).encode(), {"year": FieldType.NUMBER}, DOCUMENT_LIMITS
    )
    assert sidecar.metadata == {
        "team": "payments",
        "year": 2024,
        "open": True,
        "tags": ["a", "b"],
        "owner": "kim",
    }
    bad = {
        '{"metadataAttributes": {"year": "2024"}}': "contradicts the declared type",
        '{"metadataAttributes": {"y": {"value": {"type": "NUMBER", "numberValue": "x"}}}}': "is not a NUMBER",
        '{"metadataAttributes": {"y": {"value": {"type": "DATE"}}}}': "neither plain nor",
        '{"metadataAttributes": {"a b": 1}}': "names are 1-64",
        '{"metadataAttributes": {"a": {"x": 1}}}': "neither plain nor",
        '{"other": 1}': "unknown keys",
        "[1]": "not a JSON object",
        "{": "not JSON",
    }
    for text, reason in bad.items():
        with pytest.raises(DocumentRejectedError, match=re.escape(reason)):
            read_sidecar(text.encode(), {"year": FieldType.NUMBER}, DOCUMENT_LIMITS)
    with pytest.raises(DocumentRejectedError, match="more than 10,240"):
        read_sidecar(b" " * 10_241, {}, DOCUMENT_LIMITS)


def test_csv_rows_follow_the_record_structure() -> None:
    config = {
        "metadataAttributes": {},
        "documentStructureConfiguration": {
            "type": "RECORD_BASED_STRUCTURE_METADATA",
            "recordBasedStructureMetadata": {
                "contentFields": [{"fieldName": "body"}],
                "metadataFieldsSpecification": {"fieldsToExclude": [{"fieldName": "secret"}]},
            },
        },
    }
    records = read_sidecar(json.dumps(config).encode(), {}, DOCUMENT_LIMITS).records
    parsed = parse(DocumentFormat.CSV, b"body,region,secret\nhello,eu,x\n", DOCUMENT_LIMITS, records)
    assert [(b.text, b.metadata, b.section) for b in parsed.blocks] == [
        ("body: hello", {"region": "eu"}, ("row 1",))
    ]
    with pytest.raises(DocumentRejectedError, match="without the columns"):
        parse(DocumentFormat.CSV, b"text\nhello\n", DOCUMENT_LIMITS, records)


SENTENCES = " ".join(f"Sentence number {n} talks about the wing." for n in range(60))


def _prose(pages: Sequence[str]) -> ParsedDocument:
    return ParsedDocument([Block(text, 0, len(text), page) for page, text in enumerate(pages, start=1)])


def test_fixed_chunks_hold_whole_sentences_within_the_limit_and_never_cross_pages() -> None:
    parsed = _prose([SENTENCES, "Short second page."])
    chunks = chunk_document(parsed, ChunkingConfig(max_tokens=40, overlap_percent=25), window=254)
    assert all(estimate_tokens(c.text) <= 40 for c in chunks)
    assert all(c.text.endswith(".") and c.text[0].isupper() for c in chunks)
    assert chunks[-1].page == 2 and {c.page for c in chunks[:-1]} == {1}
    first, second = chunks[0].text.rstrip(".").split(". "), chunks[1].text.rstrip(".").split(". ")
    assert second[0] in first  # the overlap: the next chunk starts a quarter back
    assert all(SENTENCES[c.start : c.end] == c.text for c in chunks[:-1])


def test_sizes_are_checked_against_the_embedder_window() -> None:
    parsed = _prose([SENTENCES * 4])
    with pytest.raises(ChunkingConfigError, match="window of 254"):
        chunk_document(parsed, ChunkingConfig(max_tokens=300), window=254)
    default = chunk_document(parsed, ChunkingConfig(), window=window_of("local:all-MiniLM-L6-v2-int8"))
    assert max(estimate_tokens(c.text) for c in default) <= 254
    assert window_of("bedrock:amazon.titan-embed-text-v2:0") == 8192


def test_the_estimate_never_undercounts_minilm_on_chunks_of_cranfield() -> None:
    from retrieval_core.embedding.local import TOKENIZER_PATH
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    tokenizer.no_truncation()
    documents = json.loads((collection_folder("cranfield") / "documents.json").read_text())
    parsed = ParsedDocument([Block(d["body"], 0, len(d["body"])) for d in documents[:300]])
    chunks = chunk_document(parsed, ChunkingConfig(), window=254)
    real = [len(tokenizer.encode(c.text).ids) for c in chunks]
    assert max(real) <= 256 and all(
        estimate_tokens(c.text) + 2 >= r for c, r in zip(chunks, real, strict=True)
    )


def test_chunks_counted_by_the_local_model_fill_its_window_and_never_pass_it() -> None:
    from retrieval_core.embedding.local import LocalEmbedder
    from retrieval_core.models.text_window import token_counter

    embedder = LocalEmbedder()
    count = token_counter(embedder)
    assert count == embedder.count_tokens  # the local model counts with its own tokenizer
    assert token_counter(object()) is estimate_tokens
    documents = json.loads((collection_folder("cranfield") / "documents.json").read_text())
    parsed = ParsedDocument([Block(d["body"], 0, len(d["body"])) for d in documents[:300]])
    exact = chunk_document(parsed, ChunkingConfig(), window=254, count_tokens=count)
    estimated = chunk_document(parsed, ChunkingConfig(), window=254)
    real = [count(c.text) for c in exact]
    assert max(real) <= 254
    # The estimate's 1.39x overcount made ~30% more, smaller chunks; the exact count packs fuller ones.
    assert len(exact) < 0.85 * len(estimated)
    assert sum(real) / len(real) > 1.2 * sum(map(count, (c.text for c in estimated))) / len(estimated)
    # A sentence longer than the window is cut at words, each piece within it, nothing lost.
    long_sentence = " ".join(["aerodynamically"] * 400) + "."
    pieces = chunk_document(_prose([long_sentence]), ChunkingConfig(), window=254, count_tokens=count)
    assert len(pieces) > 1 and all(count(c.text) <= 254 for c in pieces)
    assert " ".join(c.text for c in pieces) == long_sentence


def test_hierarchical_children_answer_with_their_parent_and_none_is_one_chunk() -> None:
    parsed = _prose([SENTENCES])
    config = ChunkingConfig(
        strategy="hierarchical", parent_max_tokens=200, child_max_tokens=50, overlap_tokens=10
    )
    children = chunk_document(parsed, config, window=254)
    parents = {c.parent_text for c in children}
    assert len(parents) >= 2 and all(c.parent_text and c.text in c.parent_text for c in children)
    assert len(chunk_document(parsed, ChunkingConfig(strategy="none"), window=254)) == 1


def test_semantic_chunks_break_where_the_meaning_moves() -> None:
    text = "Cats purr. Cats nap. Cats hunt mice. Rockets launch. Rockets orbit. Rockets land."

    def embed(texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0] if "Cats" in t else [0.0, 1.0] for t in texts]

    config = ChunkingConfig(strategy="semantic", breakpoint_percentile=90)
    chunks = chunk_document(_prose([text]), config, window=254, embed=embed)
    assert [c.text for c in chunks] == [
        "Cats purr. Cats nap. Cats hunt mice.",
        "Rockets launch. Rockets orbit. Rockets land.",
    ]


def test_the_longest_prefix_override_wins() -> None:
    policy = ChunkingPolicy.model_validate(
        {
            "default": {"max_tokens": 100},
            "prefixes": {"contexts/a/": {"strategy": "none"}, "contexts/a/x/": {}},
        }
    )
    assert policy.for_key("contexts/a/x/f.md").strategy == "fixed"
    assert policy.for_key("contexts/a/f.md").strategy == "none"
    assert policy.for_key("contexts/b/f.md").max_tokens == 100


class Dictionary:
    def entity_names(self, context_id: str) -> list[NamedEntity]:
        return [NamedEntity(f"{context_id}:team/payments", "Payments Team", "Team")]


def test_names_link_to_the_dictionary_ids_before_the_extractor_names_new_ones() -> None:
    finder = MentionFinder(Dictionary(), RuleBasedExtractor())
    (found,) = finder.mentions("acme", ["The payments team met the Treasury Desk about NASA."])
    assert {m["entity_id"]: m["name"] for m in found} == {
        "acme:team/payments": "Payments Team",
        "acme:entity/treasury-desk": "Treasury Desk",
        "acme:entity/nasa": "NASA",
    }


class Embedder:
    def __init__(self) -> None:
        self.embedded: list[str] = []

    @property
    def dimension(self) -> int:
        return 2

    @property
    def name(self) -> str:
        return "local:all-MiniLM-L6-v2-int8"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.embedded += texts
        return [[1.0, 0.0] for _ in texts]


class Vectors:
    def __init__(self) -> None:
        self.stored: dict[str, Stored] = {}

    def vectors(self, context_id: str, ids: Sequence[str]) -> dict[str, Stored]:
        return {i: self.stored[i] for i in ids if i in self.stored}


class CountingDictionary(Dictionary):
    def __init__(self) -> None:
        self.reads = 0

    def entity_names(self, context_id: str) -> list[NamedEntity]:
        self.reads += 1
        return super().entity_names(context_id)


class Naming:
    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def chunks_naming(
        self, context_id: str, pages: Sequence[tuple[Sequence[str], NamedEntity]], limit: int
    ) -> list[list[dict[str, Any]]]:
        self.asked += [list(names) for names, _ in pages]
        return [[] for _ in pages]


def _files(
    mentions: MentionFinder | None = None,
    naming: Naming | None = None,
    **limits: Any,
) -> tuple[DocumentFiles, MemoryObjects, RecordingSink, MemoryDocumentStatuses, Vectors]:
    objects, sink, statuses, vectors = (
        MemoryObjects(),
        RecordingSink(),
        MemoryDocumentStatuses(),
        Vectors(),
    )
    files = DocumentFiles(
        sink=sink,
        objects=objects,
        statuses=statuses,
        embedder=Embedder(),
        vectors=vectors,
        mentions=mentions or MentionFinder(None, None),
        chunking=ChunkingPolicy(),
        metadata={},
        limits=DocumentLimits(**limits),
        naming=naming,
    )
    return files, objects, sink, statuses, vectors


def test_a_file_over_the_limit_is_skipped_and_a_later_event_beats_an_earlier_one() -> None:
    files, objects, sink, statuses, _ = _files(file_bytes=100)
    objects.blobs[("b", "contexts/acme/big.txt")] = b"x" * 101
    status = files.created(ObjectRef("b", "contexts/acme/big.txt", "v2", sequencer="0B"))
    assert status is not None and (status.status, status.reason) == (
        "skipped",
        "larger than 100 bytes (the size limit)",
    )
    objects.blobs[("b", "contexts/acme/big.txt")] = b"Small now."
    late = files.created(ObjectRef("b", "contexts/acme/big.txt", "v1", sequencer="0A"))
    assert late == status and not sink.loads  # the older event changed nothing
    assert files.created(ObjectRef("b", "contexts/foreign", "v1")) is None  # no file under a context
    assert statuses.rows.keys() == {"acme"}


def test_same_bytes_are_unchanged_and_a_sidecar_change_reuses_the_stored_vectors() -> None:
    files, objects, sink, _, vectors = _files()
    key = "contexts/acme/n.md"
    objects.blobs[("b", key)] = b"# T\n\nOne sentence here."
    assert files.created(ObjectRef("b", key, "v1", sequencer="01")).status == "indexed"  # type: ignore[union-attr]
    assert files.created(ObjectRef("b", key, "v2", sequencer="02")).status == "unchanged"  # type: ignore[union-attr]
    vectors.stored["acme:doc/n.md#0000"] = Stored("One sentence here.", [0.0, 1.0], "T")
    objects.blobs[("b", key + ".metadata.json")] = b'{"metadataAttributes": {"k": "v"}}'
    updated = files.created(ObjectRef("b", key + ".metadata.json", "v1", sequencer="03"))
    assert updated is not None and updated.status == "updated"
    assert updated.reason == "metadata only: the sidecar changed, the text is as it was"
    chunk = sink.loads[-1][0]
    assert isinstance(chunk, Upsert) and chunk.item.id == "acme:doc/n.md#0000"
    assert chunk.item.metadata == {"k": "v"} and chunk.item.embedding == [0.0, 1.0]
    assert chunk.item.grounding[0].section == "T"


def test_a_vector_computed_without_the_chunk_s_heading_is_computed_again() -> None:
    """A chunk stored before headings were embedded (or under another title) has the same text but not
    the same vector input: its vector is not reused."""
    files, objects, sink, _, vectors = _files()
    key = "contexts/acme/n.md"
    objects.blobs[("b", key)] = b"# T\n\nOne sentence here."
    assert files.created(ObjectRef("b", key, "v1", sequencer="01")).status == "indexed"  # type: ignore[union-attr]
    embedded = sink.loads[-1][0]
    assert isinstance(embedded, Upsert) and embedded.item.embedding is not None
    vectors.stored["acme:doc/n.md#0000"] = Stored("One sentence here.", [0.0, 1.0])
    objects.blobs[("b", key + ".metadata.json")] = b'{"metadataAttributes": {"k": "v"}}'
    files.created(ObjectRef("b", key + ".metadata.json", "v1", sequencer="02"))
    chunk = sink.loads[-1][0]
    assert isinstance(chunk, Upsert) and chunk.item.embedding == embedded.item.embedding != [0.0, 1.0]


def test_the_bedrock_route_names_the_source_page_and_data_source() -> None:
    hit = Hit.model_validate(
        {
            "id": "acme:doc/r.pdf#0001",
            "kind": "document",
            "text": "t",
            "score": 1.0,
            "status": "ACTIVE",
            "created_at": "2026-01-01T00:00:00Z",
            "provenance": {"grounding_uris": ["s3://bucket-1/contexts/acme/r.pdf"]},
            "location": {"uri": "s3://bucket-1/contexts/acme/r.pdf", "page": 3},
        }
    )
    result = retrieval_result(hit)
    assert result.location.s3Location is not None
    assert result.location.s3Location.uri == "s3://bucket-1/contexts/acme/r.pdf"
    assert {k: v for k, v in result.metadata.items() if k.startswith("x-amz-bedrock-kb-")} == {
        "x-amz-bedrock-kb-chunk-id": "acme:doc/r.pdf#0001",
        "x-amz-bedrock-kb-source-uri": "s3://bucket-1/contexts/acme/r.pdf",
        "x-amz-bedrock-kb-data-source-id": "S3CONTEXTS",
        "x-amz-bedrock-kb-document-page-number": 3,
    }


def test_an_s3_hit_names_the_data_source_that_holds_it_and_none_outside_a_context_prefix() -> None:
    def standard(uri: str) -> dict[str, object]:
        hit = Hit.model_validate(
            {
                "id": "acme:doc/r.md#0000",
                "kind": "document",
                "text": "t",
                "score": 1.0,
                "status": "ACTIVE",
                "created_at": "2026-01-01T00:00:00Z",
                "provenance": {"grounding_uris": [uri]},
            }
        )
        metadata = retrieval_result(hit).metadata
        return {k: v for k, v in metadata.items() if k.startswith("x-amz-bedrock-kb-") and "chunk" not in k}

    assert standard("s3://ingest/contexts/acme/bedrock-custom/note-1.txt") == {
        "x-amz-bedrock-kb-data-source-id": "CUSTOMDOCS"
    }
    assert standard("s3://ingest/contexts/acme/guides/a.md") == {
        "x-amz-bedrock-kb-source-uri": "s3://ingest/contexts/acme/guides/a.md",
        "x-amz-bedrock-kb-data-source-id": "S3CONTEXTS",
    }
    # Loaded with its own grounding elsewhere: no data source of ListDataSources holds it.
    assert standard("s3://archive/2019/report.pdf") == {
        "x-amz-bedrock-kb-source-uri": "s3://archive/2019/report.pdf"
    }


def test_a_file_s_chunk_pairs_its_first_names_not_its_file_nor_one_word_names_other_items_pair_nothing() -> (
    None
):
    from retrieval_core.adapters.dynamodb_rows import TableNames, rows_of
    from retrieval_core.documents.chunk_items import PAIRED_NAMES, co_mentioned
    from retrieval_core.models.item import Item

    chunk_id = "acme:doc/a.txt#0000"
    names = [{"entity_id": f"acme:entity/n{n}", "name": f"Name {n}", "type": "name"} for n in range(12)]
    file_mention = {"entity_id": "acme:doc/a.txt", "name": "a.txt", "type": "file"}

    def item(grounding: list[dict[str, str]], mentions: list[dict[str, str]]) -> Item:
        return Item.model_validate(
            {
                "context_id": "acme",
                "id": chunk_id,
                "kind": "document",
                "text": "Name 0 met Name 1.",
                "created_at": "2026-03-02T09:00:00Z",
                "grounding": grounding,
                "mentions": mentions,
            }
        )

    single = {"entity_id": "acme:entity/canada", "name": "Canada", "type": "single name"}
    grounded = [{"chunk_id": chunk_id, "uri": "s3://b/contexts/acme/a.txt"}]
    chunk = item(grounded, [file_mention, single, *names])
    # One-word names bridge passages in the walk, never spend the chunk's edge rows.
    assert co_mentioned(chunk) == [f"acme:entity/n{n}" for n in range(PAIRED_NAMES)]
    edges = [ref for ref, row in rows_of(chunk, TableNames("E", "L")).owned if ref.table == "E"]
    assert len(edges) == PAIRED_NAMES * (PAIRED_NAMES - 1)
    # A JSON Lines document (no file behind it) pairs nothing, as before.
    assert co_mentioned(item([], [file_mention, *names])) == []
    assert co_mentioned(item([{"chunk_id": "acme:other", "uri": "s3://b/k"}], names)) == []


def test_a_page_reads_the_dictionary_once_for_its_mentions_and_its_back_links() -> None:
    dictionary, naming = CountingDictionary(), Naming()
    files, objects, sink, _, _ = _files(MentionFinder(dictionary, RuleBasedExtractor()), naming)
    objects.blobs[("b", "contexts/acme/p.md")] = b"# Treasury Desk\n\nThe Payments Team calls it."
    assert files.created(ObjectRef("b", "contexts/acme/p.md", "v1")).status == "indexed"  # type: ignore[union-attr]
    assert dictionary.reads == 1
    assert naming.asked == [["Treasury Desk"]]  # the page's title, unshared, from the one read
    chunk = sink.loads[0][0]
    assert isinstance(chunk, Upsert)
    assert "acme:team/payments" in {m.entity_id for m in chunk.item.mentions}
