"""OpenSearch's side of a rebuild (``lifecycle.ports.IndexGenerations``): versioned indices behind an
alias, copies by sequence number, write blocks and atomic alias moves.

A rebuilt index is named after the first one with the time of the rebuild appended
(``<prefix>.acme.v2-20261201051502123``), so ``client.IndexLayout.index_pattern`` still covers every
index of the deployment. What an index needs for a rollback lives in its mapping's ``_meta``: the index it
replaced, the embedder of its vectors, and its checkpoint when the alias moved to it. Changes are found
by ``_seq_no``, which every shard assigns in order to every write: "changed since the checkpoint" is a
range query per shard, with no field added to the documents.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any

from ...lifecycle.ports import Checkpoint, Generation
from ...lifecycle.rebuild import NothingToRollBackError, RebuildError
from ...models.metadata import FieldType
from ...ports import WriteRefusal
from .client import IndexLayout, opensearch_failures
from .index import VECTOR_FIELD, IndexSpec, mapped_metadata, metadata_properties
from .migration import scan_documents, write_batches
from .writer import bulk_delete, bulk_index

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

    from ...ports import Embedder

# A rebuild's copies (scroll pages, bulk requests) may wait this long on a busy cluster (the composition
# root gives the rebuild a client with it).
REQUEST_TIMEOUT_SECONDS = 60.0
# Index-level operations (create, open, block, close, move an alias) wait for the cluster to apply them
# to every copy: longer still.
_ADMIN_SECONDS = 120
_ADMIN = {"request_timeout": _ADMIN_SECONDS}
COPY_REFRESH_INTERVAL = "-1"
"""A rebuild's new index until its switch: refreshed only when the rebuild asks."""


class NoIndexError(RebuildError):
    """The context has no index yet (nothing was loaded into it)."""


class SharedIndexError(RebuildError):
    """In the pool model every context shares one index: it is rebuilt as a whole."""


class OpenSearchGenerations:
    def __init__(
        self,
        client: OpenSearch,
        layout: IndexLayout,
        spec: IndexSpec,
        embedder: Embedder,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._client = client
        self._layout = layout
        self._spec = spec
        self._embedder = embedder
        self._clock = clock

    @property
    def embedder(self) -> str:
        return self._embedder.name

    @property
    def dimension(self) -> int:
        return self._spec.dimension

    def aliases(self, context_id: str | None) -> list[str]:
        from opensearchpy.exceptions import NotFoundError

        if context_id is not None and not self._layout.siloed:
            raise SharedIndexError("in the pool model every context shares one index: rebuild it with --all")
        name = self._layout.alias_pattern if context_id is None else self._layout.alias(context_id)
        with opensearch_failures():
            try:
                found = self._client.indices.get_alias(name=name)
            except NotFoundError:
                found = {}
        aliases = sorted({alias for body in found.values() for alias in body["aliases"]})
        if context_id is not None and not aliases:
            raise NoIndexError(f"context '{context_id}' has no index yet: nothing to rebuild")
        return aliases

    def current(self, alias: str) -> Generation:
        with opensearch_failures():
            (index,) = self._client.indices.get_alias(name=alias)
        return self._generation(index)

    def create(self, alias: str, previous: str) -> Generation:
        stamp = self._clock()
        name = f"{self._layout.versioned(alias)}-{time.strftime('%Y%m%d%H%M%S', time.gmtime(stamp))}"
        name += f"{int(stamp * 1000) % 1000:03d}"
        body = self._spec.body()
        body["mappings"]["_meta"] = {**body["mappings"]["_meta"], "previous": previous}
        # Nothing searches the new index before the switch, and the rebuild refreshes it when it counts:
        # with no periodic refresh the copy writes a few large segments, not one a second, which the node
        # would then merge again and again (each merge rebuilding the k-NN graph). The switch declares
        # the deployment's interval.
        body["settings"]["index"]["refresh_interval"] = COPY_REFRESH_INTERVAL
        if self._layout.siloed:
            # What the context's typed sidecars declared stays typed; the deployment's declaration wins.
            declared = body["mappings"]["properties"]["metadata"]["properties"]
            carried = {n: t for n, t in self._typed_in(previous).items() if n not in declared}
            declared.update(metadata_properties(carried))
        with opensearch_failures():
            self._client.indices.create(index=name, body=body, **_ADMIN)
        return Generation(name, self._spec.dimension, self._spec.embedder, previous)

    def _typed_in(self, index: str) -> dict[str, FieldType]:
        with opensearch_failures():
            properties = self._client.indices.get_mapping(index=index)[index]["mappings"]["properties"]
        return {n: t for n, t in mapped_metadata(properties).items() if t is not FieldType.KEYWORD}

    def reopen(self, index: str) -> Generation:
        from opensearchpy.exceptions import NotFoundError

        with opensearch_failures():
            try:
                self._client.indices.open(
                    index=index, wait_for_active_shards="all", timeout=f"{_ADMIN_SECONDS}s", **_ADMIN
                )
            except NotFoundError as error:
                raise NothingToRollBackError(
                    f"{index} (the index to roll back to) no longer exists"
                ) from error
        self.block_writes(index, False)
        return self._generation(index)

    def checkpoint(self, index: str) -> Checkpoint:
        # The global checkpoint: every change up to it is applied on every in-sync copy, so after a
        # refresh a scan sees them whichever copy (primary or replica) serves it.
        with opensearch_failures():
            stats = self._client.indices.stats(index=index, level="shards")
        return {
            int(shard): next(c["seq_no"]["global_checkpoint"] for c in copies if c["routing"]["primary"])
            for shard, copies in stats["indices"][index]["shards"].items()
        }

    def copy(
        self,
        source: str,
        target: str,
        since: Checkpoint | None,
        *,
        reembed: bool,
        progress: Callable[[int], None],
    ) -> int:
        copied = 0

        def write(batch: Sequence[dict[str, Any]]) -> list[WriteRefusal]:
            nonlocal copied
            documents = self._embedded(batch) if reembed else batch
            rejected = bulk_index(self._client, self._layout, documents, index=target)
            copied += len(batch)
            progress(copied)
            return rejected

        with opensearch_failures():
            self._client.indices.refresh(index=source)
        write_batches(self._changed(source, since), write)
        return copied

    def count(self, index: str) -> int:
        with opensearch_failures():
            self._client.indices.refresh(index=index)
            return int(self._client.count(index=index)["count"])

    def drop_absent(self, source: str, target: str) -> int:
        # After the final copy the target holds every document of the source; more documents than
        # the source means deletes arrived during the rebuild, and only then are ids compared.
        if self.count(target) <= self.count(source):
            return 0
        kept = {doc["id"] for doc in scan_documents(self._client, source, _source_includes=["id"])}
        stale = [
            (doc["id"], doc["context_id"])
            for doc in scan_documents(self._client, target, _source_includes=["id", "context_id"])
            if doc["id"] not in kept
        ]
        failed = bulk_delete(self._client, self._layout, stale, index=target)
        if failed:
            raise RebuildError(f"{len(failed)} deleted documents could not be removed from {target}")
        return len(stale)

    def block_writes(self, index: str, blocked: bool) -> None:
        with opensearch_failures():
            if blocked:
                # The block API (unlike the setting) returns once writes in flight have finished.
                self._client.indices.add_block(index=index, block="write", **_ADMIN)
            else:
                self._client.indices.put_settings(index=index, body={"index.blocks.write": False}, **_ADMIN)

    def switch(self, alias: str, source: str, target: str, checkpoint: Checkpoint) -> None:
        with opensearch_failures():
            meta = self._client.indices.get_mapping(index=target)[target]["mappings"].get("_meta", {})
            meta = {**meta, "switched_at": {str(shard): seq_no for shard, seq_no in checkpoint.items()}}
            self._client.indices.put_mapping(index=target, body={"_meta": meta}, **_ADMIN)
            refresh = {"index.refresh_interval": self._spec.refresh_interval}
            self._client.indices.put_settings(index=target, body=refresh, **_ADMIN)
            self._client.indices.refresh(index=target)
            self._client.indices.update_aliases(
                body={
                    "actions": [
                        {"remove": {"index": source, "alias": alias}},
                        {"add": {"index": target, "alias": alias}},
                    ]
                },
                **_ADMIN,
            )

    def retire(self, index: str) -> None:
        with opensearch_failures():
            # Closing re-initialises the index's shards as closed ones; wait for them, so the rebuild does
            # not return while the index (and so the cluster's status) still reads red.
            self._client.indices.close(index=index, wait_for_active_shards="all", **_ADMIN)

    def discard(self, index: str) -> None:
        with opensearch_failures():
            self._client.indices.delete(index=index, ignore_unavailable=True, **_ADMIN)

    def _generation(self, index: str) -> Generation:
        with opensearch_failures():
            mappings = self._client.indices.get_mapping(index=index)[index]["mappings"]
        meta = mappings.get("_meta", {})
        switched_at = meta.get("switched_at")
        return Generation(
            index,
            mappings["properties"][VECTOR_FIELD]["dimension"],
            meta.get("embedder"),
            meta.get("previous"),
            {int(shard): seq_no for shard, seq_no in switched_at.items()} if switched_at else None,
        )

    def _changed(self, index: str, since: Checkpoint | None) -> Iterator[dict[str, Any]]:
        """Every document of ``index`` (``since`` None), or those written after ``since``, shard by shard."""
        if since is None:
            return scan_documents(self._client, index)
        return chain.from_iterable(
            scan_documents(
                self._client,
                index,
                {"range": {"_seq_no": {"gt": seq_no}}},
                preference=f"_shards:{shard}",
            )
            for shard, seq_no in sorted(since.items())
        )

    def _embedded(self, batch: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        vectors = self._embedder.embed([doc["text"] for doc in batch])
        return [{**doc, VECTOR_FIELD: vector} for doc, vector in zip(batch, vectors, strict=True)]
