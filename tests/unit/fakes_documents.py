"""An in-memory ``documents.status.DocumentStatusStore``: one dict per context, listed in key order."""

from __future__ import annotations

from collections.abc import Sequence

from retrieval_core.documents.status import DocumentStatus, StatusPage


class MemoryDocumentStatuses:
    def __init__(self) -> None:
        self.rows: dict[str, dict[str, DocumentStatus]] = {}
        self.puts_many: list[int] = []
        """The size of each ``put_many``, in order."""

    def get(self, context_id: str, key: str) -> DocumentStatus | None:
        return self.rows.get(context_id, {}).get(key)

    def put(self, context_id: str, status: DocumentStatus) -> None:
        self.rows.setdefault(context_id, {})[status.key] = status

    def put_many(self, context_id: str, statuses: Sequence[DocumentStatus]) -> None:
        self.puts_many.append(len(statuses))
        for status in statuses:
            self.put(context_id, status)

    def page(self, context_id: str, prefix: str, *, limit: int, after: str | None) -> StatusPage:
        keys = sorted(
            k for k in self.rows.get(context_id, {}) if k.startswith(prefix) and (after is None or k > after)
        )
        chosen = keys[:limit]
        more = len(keys) > limit
        return StatusPage(
            documents=[self.rows[context_id][k] for k in chosen], next_token=chosen[-1] if more else None
        )
