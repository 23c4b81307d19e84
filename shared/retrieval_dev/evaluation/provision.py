"""A throwaway index for one evaluation: loaded with the project's loader, served by the real handler.

Every run gets a fresh alias prefix (``eval-<8 hex>``), so the index always has the analyzer and mappings
the code defines today, and nothing another user loaded into the shared stack is read or changed. The
handler finds the index through ``RETRIEVAL_OPENSEARCH_ALIAS``, as a deployed function would through
its environment (the collection's context's index, in the configured isolation model); every index of
that prefix is deleted afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from retrieval_core.config import Settings
from retrieval_core.errors import RetrievalError
from retrieval_core.ports import Embedder

from .collection import CONTEXT_ID, Document, item_lines

ALIAS_PREFIX = "eval-"


class EvalLoadError(RetrievalError):
    """The loader could not load every document: scores over a partial index would mislead."""


def evaluation_index(
    settings: Settings, documents: Sequence[Document], *, embedder: Embedder | None = None, label: str = ""
) -> AbstractContextManager[Settings]:
    """Load ``documents`` into a fresh alias and point the handlers at it until the block ends."""
    return scratch_index(settings, item_lines(documents), embedder=embedder, label=label)


@contextmanager
def scratch_index(
    settings: Settings, lines: Sequence[str], *, embedder: Embedder | None = None, label: str = ""
) -> Iterator[Settings]:
    """Load item ``lines`` (any contexts) into a fresh alias and point the handlers at it until the block
    ends, printing progress as each chunk is embedded and written. ``embedder`` (a cache, say) replaces
    the deployment's for loading and for the queries alike."""
    from retrieval_core import bootstrap
    from retrieval_core.adapters.opensearch.client import shared_client
    from retrieval_core.bootstrap import Container

    from ..cli.progress import Progress

    scoped = settings.model_copy(update={"opensearch_alias": f"{ALIAS_PREFIX}{uuid.uuid4().hex[:8]}"})
    overrides: dict[str, Any] = {} if embedder is None else {"embedder": embedder}
    client = shared_client(scoped)
    try:
        progress = Progress(len(lines), label=f"{label} embedding and indexing".strip())
        report = Container(scoped, overrides=overrides).loader.load_lines(lines, progress=progress)
        if not report.ok:
            raise EvalLoadError(f"loading the collection failed: {report.summary()}")
        with bootstrap.use(bootstrap.Container(scoped, overrides=overrides)):
            yield scoped
    finally:
        _delete_indices(client, scoped)


def describe_index(settings: Settings) -> dict[str, Any]:
    """The analysis settings and text mapping of the live index: what the lexical arm really used."""
    from retrieval_core.adapters.opensearch.client import IndexLayout, shared_client
    from retrieval_core.adapters.opensearch.index import TEXT_ANALYZER

    client = shared_client(settings)
    alias = IndexLayout.of(settings).alias(CONTEXT_ID)
    (index_settings,) = client.indices.get_settings(index=alias).values()
    (mapping,) = client.indices.get_mapping(index=alias).values()
    index = index_settings["settings"]["index"]
    return {
        "alias": alias,
        "isolation_model": settings.isolation_model,
        "analyzer": TEXT_ANALYZER,
        "analysis": index.get("analysis", {}),
        "similarity": index.get("similarity", {"default": "BM25 (k1=1.2, b=0.75)"}),
        "text_field": mapping["mappings"]["properties"]["text"],
    }


def _delete_indices(client: Any, settings: Settings) -> None:
    from retrieval_core.adapters.opensearch.client import IndexLayout

    pattern = IndexLayout.of(settings).index_pattern
    client.indices.delete(index=pattern, ignore_unavailable=True, allow_no_indices=True)
