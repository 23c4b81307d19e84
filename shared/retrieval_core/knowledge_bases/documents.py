"""The document plane: ``IngestKnowledgeBaseDocuments``, ``GetKnowledgeBaseDocuments``,
``ListKnowledgeBaseDocuments`` and ``DeleteKnowledgeBaseDocuments`` over the ingest pipeline.

A custom document is a file of its context: ``contexts/<context>/bedrock-custom/<id><suffix>`` in the
ingest bucket (the id percent-encoded, '.' too, so the suffix its type gives it ends it unambiguously),
with its metadata as the file's Bedrock sidecar (``<file>.metadata.json``). Writing it is what ``retrieval
sync`` does: the sidecar first, then the file; the bucket's notification (deployed) or the pipeline run
in place (locally: ``ports.DocumentEvents``) parses, chunks, embeds, links and indexes it like any file,
and the file's status record is the document's status, in Bedrock's words (``BEDROCK_STATUS``). A
delete removes the file and its sidecar: the removal takes its chunks and their edges with them.

An S3 document is a file already under the context's prefix: ingesting it (re)indexes it, with a sidecar
written from inline metadata; deleting one is refused (remove the object: its notification removes its
chunks), since a file still in the folder would come back with the next sync. A JSON Lines object under
the prefix is no document (it holds items, and Bedrock reads no such type): its ledger record is never
listed or answered here, as if it were missing.

Every identifier resolves inside the caller's context only: an id or URI of another context is, and is
answered as, a document that does not exist (``NOT_FOUND``). Content named by an S3 location must be an
object under the caller's own prefix; any other location is the same refusal as a missing object."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from ..documents.formats import SIDECAR_SUFFIX, format_of, is_lines, suffix_of
from ..documents.limits import DOCUMENT_LIMITS, DocumentLimits
from ..documents.listing import as_they_are
from ..documents.status import UNVERSIONED, DocumentStatus, DocumentStatusStore
from ..errors import InvalidRequestError
from ..ingest.objects import CONTEXTS_PREFIX
from ..models.ingest import ObjectRef
from ..models.metadata import METADATA_NAME_PATTERN
from ..models.vocabulary import iso
from .catalog import CUSTOM_DATA_SOURCE_ID, CUSTOM_FOLDER, ServedKnowledgeBase, custom_document_id
from .list_tokens import ListTokens
from .ports import DocumentEvents, DocumentObjects, Records
from .requests import DocumentIdentifier, DocumentMetadata, IngestRequest, KnowledgeBaseDocument

BEDROCK_STATUS = {
    "pending": "IN_PROGRESS",
    "indexed": "INDEXED",
    "updated": "INDEXED",
    "unchanged": "INDEXED",
    "failed": "FAILED",
    "skipped": "IGNORED",
    "deleted": "NOT_FOUND",
    "stale": "PENDING",
}
"""A file status (``documents.status.FileStatus``) in Bedrock's ``DocumentStatus`` words. ``stale`` (its
record names chunks in an index that is no longer the context's: restored, rebuilt or lost) is
``PENDING``, "waiting to be ingested" in botocore's model: its chunks are not searchable, and the next
ingestion job (``S3CONTEXTS``) or write re-indexes the file. Not ``INDEXED`` (not true), nor
``NOT_FOUND`` (the document exists) or ``FAILED`` (nothing failed)."""
STALE_REASON = (
    "The index was replaced after this document was indexed: it is not searchable until it is indexed "
    "again (the next ingestion job of the S3 data source, or ingesting the document again)."
)
MIME_SUFFIXES = {
    "text/plain": ".txt",
    "text/markdown": ".md",
    "text/x-markdown": ".md",
    "text/html": ".html",
    "application/xhtml+xml": ".html",
    "text/csv": ".csv",
    "application/json": ".json",
    "application/xml": ".xml",
    "text/xml": ".xml",
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
}
MAX_ENCODED_ID = 700
"""An encoded id's length that leaves the key (with its context, folder, suffix and sidecar suffix)
within S3's 1,024 bytes."""
DEFAULT_PAGE = 100
TOKEN_KIND = "tokens"
TOKEN_REUSED = "clientToken was already used with another request; send a new one."
LOCATION_REFUSED = (
    "must be an object that exists under this knowledge base's prefix s3://{bucket}/contexts/{context}/ "
    "(outside bedrock-custom/)."
)
S3_DELETE_REFUSED = (
    "a document of the S3 data source is removed by deleting its object from the bucket (its removal "
    "is indexed as any file's is); a document still in the folder would return with the next sync."
)


class DocumentObjectError(InvalidRequestError):
    """Content or metadata named by an S3 location that is not an object of the caller's prefix."""


@dataclass(frozen=True, slots=True)
class Written:
    """A document about to be written: its key (relative to the context), bytes, type and sidecar."""

    relative_key: str
    data: bytes
    content_type: str
    sidecar: bytes | None


class KnowledgeBaseDocuments:
    def __init__(
        self,
        *,
        objects: DocumentObjects,
        statuses: DocumentStatusStore,
        events: DocumentEvents,
        records: Records,
        tokens: ListTokens,
        bucket: str,
        limits: DocumentLimits = DOCUMENT_LIMITS,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        generation: Callable[[str], str | None] = lambda context_id: UNVERSIONED,
    ) -> None:
        """``generation``: the generation of a context's index now (``index.uuid``), against which a
        record that says its file is indexed is read (``documents.status.is_stale``)."""
        self._objects = objects
        self._statuses = statuses
        self._events = events
        self._records = records
        self._tokens = tokens
        self._bucket = bucket
        self._limits = limits
        self._clock = clock
        self._generation = generation

    # ----------------------------------------------------------------------------------------- ingest

    def ingest(
        self, served: ServedKnowledgeBase, data_source_id: str, request: IngestRequest
    ) -> list[dict[str, Any]]:
        """Write each document and have it indexed; the details of each, as they stand after."""
        custom = data_source_id == CUSTOM_DATA_SOURCE_ID
        for position, document in enumerate(request.documents):
            if (document.content.dataSourceType == "CUSTOM") != custom:
                raise InvalidRequestError(
                    f"documents[{position}].content.dataSourceType: data source {data_source_id} takes "
                    f"{'CUSTOM' if custom else 'S3'} documents."
                )
        replayed = self._replay(served, "ingest", request.clientToken, request.model_dump_json())
        if replayed is not None:
            return self.get(served, data_source_id, [_identifier_of(d) for d in request.documents])
        written = [
            self._prepared(served, position, document) for position, document in enumerate(request.documents)
        ]
        keys = [self._write(served, item, notified=custom) for item in written]
        # Written: the token is spent (a retry answers the statuses as they then are). Before the files
        # are applied, which in place (locally) takes the time the ingest function would.
        self._remember(served, "ingest", request.clientToken, request.model_dump_json())
        statuses = self._events.apply(served.context_id, keys, removed=False, notified=custom)
        return [
            self._detail(
                served,
                data_source_id,
                _identifier_of(document).model_dump(exclude_none=True),
                status or self._status(served, key),
            )
            for document, key, status in zip(request.documents, keys, statuses, strict=True)
        ]

    def _prepared(
        self, served: ServedKnowledgeBase, position: int, document: KnowledgeBaseDocument
    ) -> Written:
        where = f"documents[{position}]"
        content = document.content
        if content.custom is not None:
            custom = content.custom
            if custom.inlineContent is not None:
                data, content_type, suffix = _inline(
                    custom.inlineContent, f"{where}.content.custom.inlineContent"
                )
            else:
                assert custom.s3Location is not None
                source = self._own_key(
                    served, custom.s3Location.uri, f"{where}.content.custom.s3Location.uri"
                )
                data = self._read(
                    served, source, self._limits.file_bytes, f"{where}.content.custom.s3Location.uri"
                )
                suffix, content_type = suffix_of(source), "application/octet-stream"
                if format_of(source) is None:
                    raise InvalidRequestError(
                        f"{where}.content.custom.s3Location.uri: {suffix or 'a name without a suffix'} "
                        "is not a type that is read (docs/DOCUMENTS.md, Files)."
                    )
            relative_key = custom_key(custom.customDocumentIdentifier.id, suffix, f"{where}.content.custom")
        else:
            assert content.s3 is not None
            relative_key = self._own_key(
                served, content.s3.s3Location.uri, f"{where}.content.s3.s3Location.uri"
            )
            if format_of(relative_key) is None:
                raise InvalidRequestError(f"{where}.content.s3.s3Location.uri: not a type that is read.")
            data, content_type = b"", ""  # indexed where it is
        sidecar = self._sidecar(served, document.metadata, f"{where}.metadata") if document.metadata else None
        return Written(relative_key, data, content_type, sidecar)

    def _write(self, served: ServedKnowledgeBase, item: Written, *, notified: bool) -> str:
        """The document's objects written (sidecar first), a custom one's earlier file of another type
        removed, its status ``pending`` before the file lands; its key (relative to the context)."""
        key = f"{CONTEXTS_PREFIX}{served.context_id}/{item.relative_key}"
        if item.sidecar is not None:
            self._objects.write_document(self._bucket, key + SIDECAR_SUFFIX, item.sidecar, "application/json")
        if not item.data:  # an S3 document: its file is where it is
            return item.relative_key
        previous = self._current(served, item.relative_key.rsplit(".", 1)[0] + ".")
        if previous is not None and previous.key != item.relative_key:  # was another type: gone now
            self._remove(served, previous.key)
        if item.sidecar is None and previous is not None:  # re-ingested without metadata: none kept
            self._objects.delete(
                self._bucket, f"{CONTEXTS_PREFIX}{served.context_id}/{previous.key}{SIDECAR_SUFFIX}"
            )
        if notified:
            # Pending before the object lands, so a Get between the two never says NOT_FOUND; the
            # chunk count it had is kept (an overwrite must replace every chunk it had).
            chunks = previous.chunks if previous is not None and previous.key == item.relative_key else 0
            self._statuses.put(
                served.context_id,
                DocumentStatus(
                    key=item.relative_key, status="pending", chunks=chunks, updated_at=iso(self._clock())
                ),
            )
        self._objects.write_document(self._bucket, key, item.data, item.content_type)
        return item.relative_key

    def _sidecar(self, served: ServedKnowledgeBase, metadata: DocumentMetadata, where: str) -> bytes:
        """The Bedrock sidecar of inline attributes, or the bytes of the one an S3 location names."""
        if metadata.s3Location is not None:
            source = self._own_key(served, metadata.s3Location.uri, f"{where}.s3Location.uri", sidecar=True)
            return self._read(served, source, self._limits.sidecar_bytes, f"{where}.s3Location.uri")
        assert metadata.inlineAttributes is not None
        attributes: dict[str, Any] = {}
        for position, attribute in enumerate(metadata.inlineAttributes):
            if not METADATA_NAME_PATTERN.fullmatch(attribute.key):
                raise InvalidRequestError(
                    f"{where}.inlineAttributes[{position}].key: a metadata key is 1-64 letters, digits, "
                    "'_' or '-'."
                )
            attributes[attribute.key] = {
                "value": attribute.value.model_dump(exclude_none=True),
                "includeForEmbedding": False,
            }
        sidecar = json.dumps({"metadataAttributes": attributes}, separators=(",", ":")).encode()
        if len(sidecar) > self._limits.sidecar_bytes:
            raise InvalidRequestError(f"{where}: the metadata passes {self._limits.sidecar_bytes} bytes.")
        return sidecar

    def _own_key(self, served: ServedKnowledgeBase, uri: str, where: str, *, sidecar: bool = False) -> str:
        """The key (relative to the context) of an ``s3://`` URI under the caller's prefix, outside the
        custom documents' folder; ``DocumentObjectError`` for any other."""
        prefix = f"s3://{self._bucket}/{CONTEXTS_PREFIX}{served.context_id}/"
        relative = uri[len(prefix) :] if uri.startswith(prefix) else ""
        if (
            not relative
            or relative.startswith(CUSTOM_FOLDER)
            or ".." in relative.split("/")
            or (relative.endswith(SIDECAR_SUFFIX) != sidecar)
        ):
            raise DocumentObjectError(
                f"{where}: {LOCATION_REFUSED.format(bucket=self._bucket, context=served.context_id)}"
            )
        return relative

    def _read(self, served: ServedKnowledgeBase, relative_key: str, limit: int, where: str) -> bytes:
        ref = ObjectRef(self._bucket, f"{CONTEXTS_PREFIX}{served.context_id}/{relative_key}")
        data = self._objects.read_bytes(ref, limit)
        if data is None:
            raise DocumentObjectError(
                f"{where}: {LOCATION_REFUSED.format(bucket=self._bucket, context=served.context_id)}"
            )
        if len(data) > limit:
            raise InvalidRequestError(f"{where}: the object passes {limit} bytes.")
        return data

    # ------------------------------------------------------------------------------------ get, list

    def get(
        self, served: ServedKnowledgeBase, data_source_id: str, identifiers: list[DocumentIdentifier]
    ) -> list[dict[str, Any]]:
        found = self._as_they_are(served, [self._find(served, data_source_id, i) for i in identifiers])
        return [
            self._detail(served, data_source_id, identifier.model_dump(exclude_none=True), status)
            for identifier, status in zip(identifiers, found, strict=True)
        ]

    def listing(
        self,
        served: ServedKnowledgeBase,
        data_source_id: str,
        max_results: int | None,
        next_token: str | None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of the data source's documents (deleted ones are gone), in key order."""
        listing = (served.context_id, served.knowledge_base_id, data_source_id, "documents")
        after = None if next_token is None else self._tokens.open(listing, next_token)
        custom = data_source_id == CUSTOM_DATA_SOURCE_ID
        prefix = CUSTOM_FOLDER if custom else ""
        page = self._statuses.page(served.context_id, prefix, limit=max_results or DEFAULT_PAGE, after=after)
        details = [
            self._detail(served, data_source_id, self._identifier(served, status.key), status)
            for status in self._indexed_now(served, page.documents)
            if status.status != "deleted"
            and custom == status.key.startswith(CUSTOM_FOLDER)
            and not is_lines(status.key)
        ]
        token = None if page.next_token is None else self._tokens.issue(listing, page.next_token)
        return details, token

    # ---------------------------------------------------------------------------------------- delete

    def delete(
        self,
        served: ServedKnowledgeBase,
        data_source_id: str,
        identifiers: list[DocumentIdentifier],
        client_token: str | None,
    ) -> list[dict[str, Any]]:
        if data_source_id != CUSTOM_DATA_SOURCE_ID:
            raise InvalidRequestError(f"documentIdentifiers: {S3_DELETE_REFUSED}")
        for position, identifier in enumerate(identifiers):
            if identifier.dataSourceType != "CUSTOM":
                raise InvalidRequestError(
                    f"documentIdentifiers[{position}]: data source {data_source_id} holds CUSTOM documents."
                )
        request = json.dumps([i.model_dump(exclude_none=True) for i in identifiers], sort_keys=True)
        replayed = self._replay(served, "delete", client_token, request) is not None
        found = [self._find(served, data_source_id, identifier) for identifier in identifiers]
        keys = [status.key for status in found if status is not None and status.status != "deleted"]
        if not replayed:
            for key in keys:
                self._remove(served, key, apply=False)
            self._remember(served, "delete", client_token, request)
            self._events.apply(served.context_id, keys, removed=True, notified=True)
        return [
            {
                **self._detail(served, data_source_id, identifier.model_dump(exclude_none=True), status),
                **({"status": "DELETING"} if status is not None and status.key in keys else {}),
            }
            for identifier, status in zip(identifiers, found, strict=True)
        ]

    def _remove(self, served: ServedKnowledgeBase, relative_key: str, *, apply: bool = True) -> None:
        """The file gone first (its removal takes its chunks), then its sidecar."""
        key = f"{CONTEXTS_PREFIX}{served.context_id}/{relative_key}"
        self._objects.delete(self._bucket, key)
        self._objects.delete(self._bucket, key + SIDECAR_SUFFIX)
        if apply:
            self._events.apply(served.context_id, [relative_key], removed=True, notified=True)

    # --------------------------------------------------------------------------------------- helpers

    def _find(
        self, served: ServedKnowledgeBase, data_source_id: str, identifier: DocumentIdentifier
    ) -> DocumentStatus | None:
        """The status of the document ``identifier`` names in this data source, or None."""
        if (identifier.dataSourceType == "CUSTOM") != (data_source_id == CUSTOM_DATA_SOURCE_ID):
            return None
        if identifier.custom is not None:
            encoded = encode_id(identifier.custom.id)
            return None if encoded is None else self._current(served, f"{CUSTOM_FOLDER}{encoded}.")
        assert identifier.s3 is not None
        try:
            key = self._own_key(served, identifier.s3.uri, "")
        except DocumentObjectError:
            return None
        return None if is_lines(key) else self._statuses.get(served.context_id, key)

    def _current(self, served: ServedKnowledgeBase, stem: str) -> DocumentStatus | None:
        """The custom document whose key starts with ``stem`` (its encoded id and the dot), if any."""
        page = self._statuses.page(served.context_id, stem, limit=10, after=None)
        live = [status for status in page.documents if status.status != "deleted"]
        return live[0] if live else (page.documents[0] if page.documents else None)

    def _as_they_are(
        self, served: ServedKnowledgeBase, found: list[DocumentStatus | None]
    ) -> list[DocumentStatus | None]:
        """The records as the index now bears them out (``stale`` where it does not; one index read,
        only when some record claims chunks), None kept where no record was found."""
        read = iter(self._indexed_now(served, [status for status in found if status is not None]))
        return [None if status is None else next(read) for status in found]

    def _indexed_now(self, served: ServedKnowledgeBase, found: list[DocumentStatus]) -> list[DocumentStatus]:
        return as_they_are(found, lambda: self._generation(served.context_id))

    def _status(self, served: ServedKnowledgeBase, relative_key: str) -> DocumentStatus | None:
        return self._statuses.get(served.context_id, relative_key)

    def _identifier(self, served: ServedKnowledgeBase, relative_key: str) -> dict[str, Any]:
        if relative_key.startswith(CUSTOM_FOLDER):
            return {"dataSourceType": "CUSTOM", "custom": {"id": decode_id(relative_key)}}
        uri = f"s3://{self._bucket}/{CONTEXTS_PREFIX}{served.context_id}/{relative_key}"
        return {"dataSourceType": "S3", "s3": {"uri": uri}}

    def _detail(
        self,
        served: ServedKnowledgeBase,
        data_source_id: str,
        identifier: dict[str, Any],
        status: DocumentStatus | None,
    ) -> dict[str, Any]:
        detail: dict[str, Any] = {
            "knowledgeBaseId": served.knowledge_base_id,
            "dataSourceId": data_source_id,
            "status": "NOT_FOUND" if status is None else BEDROCK_STATUS[status.status],
            "identifier": identifier,
        }
        if status is not None:
            detail["updatedAt"] = status.updated_at
            if status.reason and status.status in {"failed", "skipped"}:
                detail["statusReason"] = status.reason
            elif status.status == "stale":
                detail["statusReason"] = STALE_REASON
        return detail

    def _replay(
        self, served: ServedKnowledgeBase, operation: str, token: str | None, request: str
    ) -> bool | None:
        """None for a request to run; True for one this client token already ran (the same request);
        ``InvalidRequestError`` for a token used with another."""
        if token is None:
            return None
        record = self._records.get(TOKEN_KIND, served.context_id, f"{operation}#{token}")
        if record is None:
            return None
        if record.get("request") != _digest(served, request):
            raise InvalidRequestError(TOKEN_REUSED)
        return True

    def _remember(self, served: ServedKnowledgeBase, operation: str, token: str | None, request: str) -> None:
        if token is not None:
            record = {"request": _digest(served, request), "at": iso(self._clock())}
            self._records.put(TOKEN_KIND, served.context_id, f"{operation}#{token}", record)


def _digest(served: ServedKnowledgeBase, request: str) -> str:
    return hashlib.sha256(f"{served.knowledge_base_id}\n{request}".encode()).hexdigest()


def _identifier_of(document: KnowledgeBaseDocument) -> DocumentIdentifier:
    content = document.content
    if content.custom is not None:
        return DocumentIdentifier(dataSourceType="CUSTOM", custom=content.custom.customDocumentIdentifier)
    assert content.s3 is not None
    return DocumentIdentifier.model_validate(
        {"dataSourceType": "S3", "s3": {"uri": content.s3.s3Location.uri}}
    )


def _inline(inline: Any, where: str) -> tuple[bytes, str, str]:
    """Inline content's bytes, the type it is stored with and the suffix that makes it parsed so."""
    if inline.textContent is not None:
        return inline.textContent.data.encode("utf-8"), "text/plain; charset=utf-8", ".txt"
    mime = inline.byteContent.mimeType.split(";", 1)[0].strip().lower()
    suffix = MIME_SUFFIXES.get(mime)
    if suffix is None:
        raise InvalidRequestError(
            f"{where}.byteContent.mimeType: {mime} is not a type that is read; send one of "
            f"{', '.join(MIME_SUFFIXES)}."
        )
    try:
        data = base64.b64decode(inline.byteContent.data, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidRequestError(f"{where}.byteContent.data: not base64.") from None
    if not data:
        raise InvalidRequestError(f"{where}.byteContent.data: empty.")
    return data, mime, suffix


def encode_id(document_id: str) -> str | None:
    """A custom document id as a key's name: percent-encoded, '.' too (None when too long to be one)."""
    encoded = quote(document_id, safe="").replace(".", "%2E")
    return encoded if len(encoded) <= MAX_ENCODED_ID else None


def decode_id(relative_key: str) -> str:
    """The custom document id of a key under ``bedrock-custom/`` (relative to its context)."""
    identified = custom_document_id(f"s3://bucket/contexts/context/{relative_key}")
    assert identified is not None, relative_key
    return identified


def custom_key(document_id: str, suffix: str, where: str) -> str:
    encoded = encode_id(document_id)
    if encoded is None:
        raise InvalidRequestError(
            f"{where}.customDocumentIdentifier.id: too long once encoded as a file name "
            f"(at most {MAX_ENCODED_ID} characters of letters and digits, fewer with others)."
        )
    return f"{CUSTOM_FOLDER}{encoded}{suffix}"
