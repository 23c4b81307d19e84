"""The three items and the container the registry tests (a toy stage, a toy mode) serve the real
retrieve handler from: in-memory fakes, with a registry override."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from fakes_store import FixedEmbedder, InMemoryStore, capabilities_of
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_core.models.item import Item

TEXTS = ("payments team lead", "payments team budget", "payments office")


def item(n: int) -> Item:
    return Item.model_validate(
        {
            "id": f"acme:p-{n}",
            "context_id": "acme",
            "kind": "proposition",
            "text": TEXTS[n],
            "created_at": "2026-03-01T00:00:00Z",
            "embedding": [1.0, 0.0],
        }
    )


def served_with(override: dict[str, Any]) -> AbstractContextManager[Any]:
    """The handlers served over the three items, with ``override`` (``stages`` or ``modes``) applied."""
    store = InMemoryStore([item(n) for n in range(len(TEXTS))])
    overrides = {"capabilities": capabilities_of(store, None, FixedEmbedder({}, dimension=2)), "items": store}
    return bootstrap.use(bootstrap.Container(Settings(), overrides={**overrides, **override}))
