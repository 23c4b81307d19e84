"""The loader: JSON Lines of items into the search store and the graph and lineage rows.

``retrieval load FILE.jsonl`` and the ingest function drive ``Loader``; ``lines`` reads a stream,
``parse`` validates lines, ``metadata_keys`` keeps the pool's metadata-key budget, and the loader
writes through the write ports (``ports.ItemWriter``, ``LineageWriter``), idempotently. What a backend
stores for an item (OpenSearch documents, DynamoDB rows) is its adapter's business.
"""
