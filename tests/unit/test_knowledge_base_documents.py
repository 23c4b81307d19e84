"""How a custom document's id becomes its file's name and back, and how Retrieve cites it: any id
round-trips, no id's name is a prefix of another's plus its suffix, and only a file of the custom
folder is cited by document id."""

from __future__ import annotations

import pytest
from retrieval_core.errors import InvalidRequestError
from retrieval_core.knowledge_bases.catalog import custom_document_id
from retrieval_core.knowledge_bases.documents import MAX_ENCODED_ID, custom_key, decode_id, encode_id

IDS = ["note-001", "a.b", "a", "memory_20261206_140812_ab12cd34", "with/slash and space", "ünï.cödé", "%2E"]


@pytest.mark.parametrize("document_id", IDS)
def test_an_id_round_trips_through_its_file_name(document_id: str) -> None:
    key = custom_key(document_id, ".txt", "documents[0]")
    assert key.startswith("bedrock-custom/") and "/" not in key.removeprefix("bedrock-custom/")
    assert decode_id(key) == document_id
    assert custom_document_id(f"s3://bucket/contexts/acme/{key}") == document_id


def test_no_id_s_name_and_dot_start_another_id_s_file() -> None:
    """Lookups go by the encoded id and its dot: "a" must not find "a.b"'s file."""
    names = {document_id: custom_key(document_id, ".md", "d") for document_id in IDS}
    for document_id in IDS:
        stem = f"bedrock-custom/{encode_id(document_id)}."
        assert [other for other, key in names.items() if key.startswith(stem)] == [document_id]


def test_an_id_too_long_for_a_key_is_refused_naming_the_member() -> None:
    with pytest.raises(InvalidRequestError, match=r"documents\[3\]\.customDocumentIdentifier\.id"):
        custom_key("é" * MAX_ENCODED_ID, ".txt", "documents[3]")
    assert encode_id("x" * MAX_ENCODED_ID) is not None


@pytest.mark.parametrize(
    "uri",
    [
        "s3://bucket/contexts/acme/notes/a.txt",
        "s3://bucket/contexts/acme/bedrock-custom/deeper/a.txt",
        "s3://bucket/reports/contexts/acme/bedrock-custom/a.txt",
        None,
    ],
)
def test_only_the_custom_folder_s_files_are_cited_by_document_id(uri: str | None) -> None:
    assert custom_document_id(uri) is None


def test_a_document_handed_to_the_ingest_function_is_the_notification_s3_would_send() -> None:
    """Deployed, an S3 document indexed where it is reaches the ingest function as its notification."""
    from retrieval_core.ingest.events import ObjectRemoved, work_of
    from retrieval_core.knowledge_bases.events import HandedToIngest
    from retrieval_core.models.ingest import ObjectRef

    sent: list[dict[str, object]] = []
    handed = HandedToIngest(sent.append, "bucket", "us-east-1")
    keys = ["notes/a b+c.txt", "bedrock-custom/x%2Ey.txt"]
    assert handed.apply("acme", keys, removed=False, notified=False) == [None, None]
    assert [(w.bucket, w.key) for w in work_of(sent[0]) if isinstance(w, ObjectRef)] == [
        ("bucket", f"contexts/acme/{key}") for key in keys
    ]
    handed.apply("acme", keys[:1], removed=True, notified=False)
    (removed,) = work_of(sent[1])
    assert isinstance(removed, ObjectRemoved) and removed.key == f"contexts/acme/{keys[0]}"
    # What the bucket's notifications do anyway is not sent twice.
    assert handed.apply("acme", keys, removed=False, notified=True) == [None, None] and len(sent) == 2


TEXT = {"type": "TEXT", "textContent": {"data": "a note"}}
CUSTOM_CONTENT = {
    "dataSourceType": "CUSTOM",
    "custom": {"customDocumentIdentifier": {"id": "n"}, "sourceType": "IN_LINE", "inlineContent": TEXT},
}


@pytest.mark.parametrize(
    ("document", "named"),
    [
        ({"content": {**CUSTOM_CONTENT, "s3": {"s3Location": {"uri": "s3://b/k"}}}}, "'custom' alone"),
        (
            {
                "content": {
                    "dataSourceType": "S3",
                    **{k: v for k, v in CUSTOM_CONTENT.items() if k != "dataSourceType"},
                }
            },
            "'s3' alone",
        ),
        (
            {
                "content": {
                    **CUSTOM_CONTENT,
                    "custom": {**CUSTOM_CONTENT["custom"], "sourceType": "S3_LOCATION"},
                }
            },  # type: ignore[dict-item]
            "'s3Location' alone",
        ),
        ({"content": CUSTOM_CONTENT, "metadata": {"type": "IN_LINE_ATTRIBUTE"}}, "'inlineAttributes' alone"),
        (
            {
                "content": CUSTOM_CONTENT,
                "metadata": {
                    "type": "IN_LINE_ATTRIBUTE",
                    "inlineAttributes": [{"key": "k", "value": {"type": "NUMBER", "stringValue": "1"}}],
                },
            },
            "'numberValue' alone",
        ),
        (
            {
                "content": CUSTOM_CONTENT,
                "metadata": {
                    "type": "IN_LINE_ATTRIBUTE",
                    "inlineAttributes": [{"key": "k", "value": {"type": "STRING", "stringValue": "v"}}],
                    "accessControlList": [{"name": "u", "type": "USER", "access": "ALLOW"}],
                },
            },
            "access control lists are not applied",
        ),
    ],
)
def test_a_document_that_is_not_what_its_type_says_is_refused_naming_why(
    document: dict[str, object], named: str
) -> None:
    """botocore's unions: the member a type names, and only it (an ACL is refused, never ignored)."""
    from pydantic import ValidationError
    from retrieval_core.knowledge_bases.requests import IngestRequest

    with pytest.raises(ValidationError, match=named):
        IngestRequest.model_validate({"documents": [document]})
