"""The loader: JSON Lines of items into the search index and the edge and lineage tables.

``retrieval load FILE.jsonl`` drives ``Loader``; ``parse`` validates lines, ``rows`` derives the
DynamoDB rows each item owns, and the loader writes them idempotently.
"""
