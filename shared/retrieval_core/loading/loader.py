"""``Loader``: validated items into OpenSearch and DynamoDB, idempotently and in batches.

Per chunk: embed what has no embedding, delete the DynamoDB rows a changed item no longer owns, write
the rows it owns, write its card (with the new manifest) last, then bulk-index the documents. A chunk
that fails is reported item by item; re-running the same file repairs the state, because every write
is a put of a whole row keyed by what the item is.

A backend that stops answering (``BackendUnavailableError``) stops the load at once: no further chunk
is sent, and every item not written, the failed chunk's and all later ones, is named in the report
with the cause (``LoadReport.stopped``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..adapters.dynamodb_writer import DynamoDBBatchWriter, RowRef, read_attribute
from ..adapters.errors import IncompleteBatchError
from ..adapters.opensearch import writer as index_writer
from ..adapters.opensearch.documents import document_of
from ..errors import BackendUnavailableError
from ..models.item import Item
from ..ports import Embedder
from .parse import LineError, ParsedLine, parse_lines
from .progress import Progress
from .rows import MANIFEST_ATTRIBUTE, TableNames, decode_ref, rows_of

CHUNK_SIZE = 256


@dataclass
class LoadReport:
    loaded: int = 0
    errors: list[LineError] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)
    stopped: str | None = None
    """Why the load stopped early (a backend became unavailable), or None when every line was tried."""

    @property
    def ok(self) -> bool:
        return not self.errors and not self.unwritten and self.stopped is None

    def summary(self) -> str:
        parts = [f"{self.loaded} items loaded"]
        if self.errors:
            parts.append(f"{len(self.errors)} bad lines skipped")
        if self.unwritten:
            parts.append(f"{len(self.unwritten)} items not written (re-run to repair)")
        if self.stopped:
            parts.append("stopped early")
        return ", ".join(parts)


class Loader:
    def __init__(
        self,
        *,
        opensearch: Any,
        alias: str,
        dynamodb: Any,
        tables: TableNames,
        embedder: Embedder,
        chunk_size: int = CHUNK_SIZE,
    ) -> None:
        self._opensearch = opensearch
        self._alias = alias
        self._dynamodb = dynamodb
        self._writer = DynamoDBBatchWriter(dynamodb)
        self._tables = tables
        self._embedder = embedder
        self._chunk_size = chunk_size

    def load_lines(
        self, lines: Sequence[str], *, context_id: str | None = None, progress: Progress | None = None
    ) -> LoadReport:
        report = LoadReport()
        chunk: list[ParsedLine] = []
        for parsed in parse_lines(lines, context_id=context_id):
            if isinstance(parsed, LineError):
                report.errors.append(parsed)
                if progress:
                    progress.advance(1)
                continue
            if report.stopped:
                report.unwritten.append(parsed.item.id)
                continue
            chunk.append(parsed)
            if len(chunk) >= self._chunk_size:
                self._load_chunk(chunk, report, progress)
                chunk = []
        if chunk:
            self._load_chunk(chunk, report, progress)
        if not report.stopped:
            try:
                index_writer.refresh(self._opensearch, self._alias)
            except BackendUnavailableError as error:
                report.stopped = error.message
        return report

    def _load_chunk(self, chunk: list[ParsedLine], report: LoadReport, progress: Progress | None) -> None:
        # A later line with the same id replaces an earlier one, as a reload would.
        latest = {parsed.item.id: parsed for parsed in chunk}
        parsed_lines = list(latest.values())
        embeddings = self._embeddings(parsed_lines, report)
        items = [p.item for p in parsed_lines if p.item.id in embeddings]
        try:
            self._write_rows(items)
            rejected = index_writer.bulk_index(
                self._opensearch, self._alias, [document_of(i, embeddings[i.id]) for i in items]
            )
        except IncompleteBatchError:
            rejected = [item.id for item in items]
        except BackendUnavailableError as error:
            report.stopped = error.message
            rejected = [item.id for item in items]
        report.unwritten += rejected
        report.loaded += len(items) - len(rejected)
        if progress:
            progress.advance(len(chunk))

    def _embeddings(self, parsed_lines: list[ParsedLine], report: LoadReport) -> dict[str, list[float]]:
        vectors: dict[str, list[float]] = {}
        missing = [p for p in parsed_lines if p.item.embedding is None]
        for parsed in parsed_lines:
            given = parsed.item.embedding
            if given is None:
                continue
            if len(given) != self._embedder.dimension:
                report.errors.append(
                    LineError(
                        parsed.line,
                        "embedding",
                        f"has {len(given)} dimensions, the index expects {self._embedder.dimension}",
                    )
                )
                continue
            vectors[parsed.item.id] = given
        if missing:
            computed = self._embedder.embed([p.item.text for p in missing])
            vectors.update({p.item.id: v for p, v in zip(missing, computed, strict=True)})
        return vectors

    def _write_rows(self, items: Iterable[Item]) -> None:
        item_rows = [rows_of(item, self._tables) for item in items]
        cards = [rows.card[0] for rows in item_rows]
        old_manifests = read_attribute(self._dynamodb, cards, MANIFEST_ATTRIBUTE)
        stale: list[RowRef] = []
        for rows in item_rows:
            previous = set(old_manifests.get(rows.card[0]) or [])
            stale += [
                decode_ref(ref, self._tables) for ref in sorted(previous - set(rows.manifest(self._tables)))
            ]
        self._writer.delete(stale)
        self._writer.put(row for rows in item_rows for row in rows.owned)
        self._writer.put(
            (rows.card[0], {**rows.card[1], MANIFEST_ATTRIBUTE: rows.manifest(self._tables)})
            for rows in item_rows
        )
