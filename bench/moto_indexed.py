"""``python -m bench.moto_indexed HOST PORT``: the dev stack's serialised moto server, with Query reading
only the queried partition.

Why: moto 5.2.5 answers every base-table Query by listing *and sorting* every item of the table, then
keeping the partition asked for, so a Query costs O(table size): ~0.2 s on the small corpus's 10,000 edge
rows and seconds at 500,000. DynamoDB reads one partition. Without this, graph_path and why_explain
latencies would measure moto's scan, not our requests. Everything else (one lock around every request,
so conditional writes stay atomic) is ``dev.moto_serialized`` unchanged.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from moto.dynamodb.models.table import Table
from moto.moto_server.werkzeug_app import MotoRequestHandler
from werkzeug.serving import run_simple

from dev.moto_serialized import serialized

_partition = threading.local()
_query = Table.query
_all_items = Table.all_items


def _query_one_partition(self: Table, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
    """A base-table Query: tell ``all_items`` (called only to find the candidates) which partition."""
    if kwargs.get("index_name") or hash_key is None:
        return _query(self, hash_key, *args, **kwargs)
    _partition.scope = (self, hash_key)
    try:
        return _query(self, hash_key, *args, **kwargs)
    finally:
        _partition.scope = None


def _items_of_partition(self: Table) -> list[Any]:
    scope = getattr(_partition, "scope", None)
    if scope is None or scope[0] is not self:
        return _all_items(self)
    rows = self.items.get(scope[1], {})
    return list(rows.values()) if self.range_key_attr else [rows]


def install() -> None:
    Table.query = _query_one_partition  # type: ignore[method-assign]
    Table.all_items = _items_of_partition  # type: ignore[method-assign]


if __name__ == "__main__":
    install()
    run_simple(sys.argv[1], int(sys.argv[2]), serialized, threaded=True, request_handler=MotoRequestHandler)
