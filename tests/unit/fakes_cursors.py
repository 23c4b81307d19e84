"""An in-memory ``CursorStore``: frozen rankings in a dict, every call recorded, and a switch that makes
the store fail the way the DynamoDB adapter does (``BackendUnavailableError``)."""

from __future__ import annotations

from retrieval_core.errors import BackendUnavailableError
from retrieval_core.models.cursors import FrozenRanking


class InMemoryCursorStore:
    def __init__(self) -> None:
        self.rankings: dict[tuple[str, str], tuple[FrozenRanking, int]] = {}
        self.calls: list[str] = []
        self.failing = False

    def load(self, context_id: str, cursor_id: str, now: int) -> FrozenRanking | None:
        self._call("load")
        found = self.rankings.get((context_id, cursor_id))
        if found is None or found[1] <= now:
            return None
        return found[0]

    def save(self, context_id: str, cursor_id: str, ranking: FrozenRanking, *, expires_at: int) -> bool:
        self._call("save")
        stored = self.rankings.get((context_id, cursor_id))
        if stored is not None and stored[0].version >= ranking.version:
            return False
        self.rankings[(context_id, cursor_id)] = (ranking, expires_at)
        return True

    def _call(self, name: str) -> None:
        self.calls.append(name)
        if self.failing:
            raise BackendUnavailableError()
