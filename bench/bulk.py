"""Load throughput against a plain client (issue 51): the corpus's first items through the product's
loader (its rows in DynamoDB, its documents by ``_bulk``, into a fresh alias and tables), beside
opensearch-py's ``helpers.parallel_bulk`` sending the same documents (as the loader renders them, made
before the clock starts) into a fresh index with the same settings and mappings, and beside the
loader's OpenSearch writer alone sending them in the loader's batches. Items per second for each, and
the loader's share of the plain rate (the issue's goal: at least 0.8).

The loader writes more than documents: each item's rows (its edges, reverse links and card) go to
DynamoDB first. So the plain side is also measured doing the same writes: ``parallel_bulk`` for the
documents beside boto3's ``batch_writer`` (one per table, as a plain script writes rows) for the rows the
loader derives (``dynamodb_rows.rows_of``), both at once; the loader's share of that is its own cost
over plain clients doing its work.
"""

from __future__ import annotations

import time
from typing import Any

from retrieval_core.config import Settings

from dev.tables import scratch_space

from .corpus import Corpus
from .progress import say

MAX_ITEMS = 20_000
LOAD_BATCH = 4096
"""Lines per load call, as the workspace loaded before issue 51's xlarge run (the figures kept compare)."""
PLAIN_THREADS = 4
PLAIN_CHUNK = 500


def measure(base: Settings, corpus: Corpus) -> dict[str, Any]:
    from retrieval_core.adapters.opensearch.client import build_client
    from retrieval_core.adapters.opensearch.index import WRITE_TIMEOUT_SECONDS
    from retrieval_core.bootstrap import Container

    count = min(len(corpus.items), MAX_ITEMS)
    lines = list(corpus.lines(0, count))
    with scratch_space(base, "bench-bulk") as settings:
        container = Container(settings)
        loader = container.loader
        started = time.perf_counter()
        for start in range(0, count, LOAD_BATCH):
            report = loader.load_lines(lines[start : start + LOAD_BATCH])
            if not report.ok:
                raise RuntimeError(f"the loader rejected part of the bench corpus: {report.summary()}")
        product = time.perf_counter() - started
        # The admin calls (create, refresh, delete) wait on a node that has just taken the whole load:
        # the write timeout, not the request path's few seconds (the first xlarge run stopped on that).
        client = build_client(
            settings.model_copy(update={"opensearch_timeout_seconds": WRITE_TIMEOUT_SECONDS})
        )
        model = _index_of(client, settings)
        documents = _documents(lines, settings, container.embedder)
        plain = _plain(client, model, documents)
        writer = _writer_alone(client, model, documents)
        same_writes = _plain_with_rows(client, model, documents, settings, lines)
    say(f"bulk: loader {count / product:,.0f} items/s, parallel_bulk {count / plain:,.0f} items/s")
    return {
        "items": count,
        "loader_items_per_s": round(count / product, 1),
        "parallel_bulk_items_per_s": round(count / plain, 1),
        "writer_alone_items_per_s": round(count / writer, 1),
        "loader_share_of_plain": round(plain / product, 3),
        "writer_share_of_plain": round(plain / writer, 3),
        "plain_same_writes_items_per_s": round(count / same_writes, 1),
        "loader_share_of_plain_same_writes": round(same_writes / product, 3),
        "plain_threads": PLAIN_THREADS,
        "plain_chunk": PLAIN_CHUNK,
    }


def _index_of(client: Any, settings: Settings) -> str:
    """The concrete index behind the loaded alias."""
    from retrieval_core.adapters.opensearch.client import IndexLayout

    alias = IndexLayout.of(settings).alias("bench")
    (index,) = client.indices.get_alias(name=alias)
    return str(index)


def _documents(lines: list[str], settings: Settings, embedder: Any) -> list[dict[str, Any]]:
    """The index documents of ``lines``, as the loader renders them (embedded by ``embedder`` where a
    line has no vector, as the loader would)."""
    from retrieval_core.adapters.opensearch.documents import document_of
    from retrieval_core.loading.parse import Upsert, parse_lines

    items = [p.item for p in parse_lines(lines, metadata=settings.metadata_fields) if isinstance(p, Upsert)]
    missing = [item for item in items if item.embedding is None]
    computed = dict(zip((i.id for i in missing), embedder.embed([i.text for i in missing]), strict=True))
    return [document_of(item, list(item.embedding or computed[item.id])) for item in items]


def _copy_of(client: Any, model: str, name: str) -> str:
    """A fresh index ``<model>-<name>`` with ``model``'s settings and mappings."""
    described = client.indices.get(index=model)[model]
    kept = {"knn", "number_of_shards", "number_of_replicas", "refresh_interval", "analysis"}
    index_settings = {key: value for key, value in described["settings"]["index"].items() if key in kept}
    target = f"{model}-{name}"
    body = {"settings": {"index": index_settings}, "mappings": described["mappings"]}
    client.indices.create(index=target, body=body)
    return target


def _plain(client: Any, model: str, documents: list[dict[str, Any]]) -> float:
    """Seconds ``parallel_bulk`` takes to index ``documents`` into a copy of ``model`` (refreshed at the
    end, as the loader's load is)."""
    from opensearchpy import helpers

    target = _copy_of(client, model, "plain")
    actions = (
        {"_index": target, "_id": d["id"], "_routing": d["context_id"], "_source": d} for d in documents
    )
    try:
        started = time.perf_counter()
        for ok, result in helpers.parallel_bulk(
            client, actions, thread_count=PLAIN_THREADS, chunk_size=PLAIN_CHUNK, request_timeout=120
        ):
            if not ok:
                raise RuntimeError(f"parallel_bulk refused a document: {result}")
        client.indices.refresh(index=target)
        return time.perf_counter() - started
    finally:
        client.indices.delete(index=target, ignore_unavailable=True)


def _plain_with_rows(
    client: Any, model: str, documents: list[dict[str, Any]], settings: Settings, lines: list[str]
) -> float:
    """Seconds plain clients take for the loader's whole work: ``parallel_bulk`` sending ``documents``
    (as ``_plain``) while boto3's ``batch_writer`` puts the rows the loader derives for the same items
    into fresh tables (their cards with the manifest the loader writes)."""
    from concurrent.futures import ThreadPoolExecutor

    import boto3
    from retrieval_core.adapters.dynamodb_rows import MANIFEST_ATTRIBUTE, TableNames, rows_of
    from retrieval_core.loading.parse import Upsert, parse_lines

    items = [p.item for p in parse_lines(lines, metadata=settings.metadata_fields) if isinstance(p, Upsert)]
    with scratch_space(settings, "bench-bulk-rows") as tables_settings:
        tables = TableNames(edges=tables_settings.edges_table, lineage=tables_settings.lineage_table)
        rows: dict[str, list[dict[str, Any]]] = {tables.edges: [], tables.lineage: []}
        for item_rows in (rows_of(item, tables) for item in items):
            card_ref, card = item_rows.card
            manifest = {MANIFEST_ATTRIBUTE: item_rows.manifest()}
            for ref, attributes in (*item_rows.owned, (card_ref, {**card, **manifest})):
                key = {"pk": ref.pk} if ref.sk is None else {"pk": ref.pk, "sk": ref.sk}
                rows[ref.table].append({**key, **{k: v for k, v in attributes.items() if v is not None}})
        resource = boto3.resource(
            "dynamodb", region_name=settings.aws_region, endpoint_url=settings.dynamodb_endpoint
        )

        def put_rows(table: str) -> None:
            with resource.Table(table).batch_writer() as batch:
                for row in rows[table]:
                    batch.put_item(Item=row)

        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(rows)) as pool:
            written = [pool.submit(put_rows, table) for table in rows]
            _plain(client, model, documents)
            for future in written:
                future.result()
        return time.perf_counter() - started


def _writer_alone(client: Any, model: str, documents: list[dict[str, Any]]) -> float:
    """Seconds the loader's bulk writer takes for ``documents`` in the loader's batches, one after another."""
    from retrieval_core.adapters.opensearch.client import IndexLayout
    from retrieval_core.adapters.opensearch.writer import bulk_index
    from retrieval_core.loading.loader import BATCH_SIZE

    target = _copy_of(client, model, "writer")
    try:
        started = time.perf_counter()
        for start in range(0, len(documents), BATCH_SIZE):
            refused = bulk_index(
                client, IndexLayout(target), documents[start : start + BATCH_SIZE], index=target
            )
            if refused:
                raise RuntimeError(f"the writer's bulk refused {len(refused)} documents")
        client.indices.refresh(index=target)
        return time.perf_counter() - started
    finally:
        client.indices.delete(index=target, ignore_unavailable=True)


def markdown(result: dict[str, Any]) -> str:
    return (
        f"{result['items']:,} items: the loader {result['loader_items_per_s']:,} items/s (rows and "
        "documents), "
        f"its bulk writer alone {result['writer_alone_items_per_s']:,} items/s, `parallel_bulk` "
        f"({result['plain_threads']} threads, chunks of {result['plain_chunk']}) "
        f"{result['parallel_bulk_items_per_s']:,} items/s: "
        f"the loader at {result['loader_share_of_plain']:.2f}x "
        f"and its writer at {result['writer_share_of_plain']:.2f}x of the plain client. Plain clients doing "
        f"the loader's whole work (those documents by `parallel_bulk` beside the same rows by boto3's "
        f"`batch_writer`): {result['plain_same_writes_items_per_s']:,.1f} items/s, the loader at "
        f"{result['loader_share_of_plain_same_writes']:.2f}x of that."
    )
