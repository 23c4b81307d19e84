"""moto 5.2.5 as DynamoDB behaves where our code can tell, without moto's two quadratic costs; the dev
stack's server (``dev.moto_serialized``) installs it, so tests, ``make demo``, the bench and every
``retrieval sync`` against the stack measure our requests rather than the emulator.

Why: moto answers every base-table Query by listing *and sorting* every item of the table, then keeping
the partition asked for, so a Query costs O(table size): ~0.2 s on the bench's 10,000 edge rows and
seconds at 500,000. DynamoDB reads one partition. And moto builds an item attribute by attribute,
summing the sizes of every attribute already set at each one (quadratic in attributes; a third of the
server's time in a bulk load of rows of eight attributes); here the 400 KB limit is checked once on the
finished item, which refuses the same items (the sum only grows as attributes are added:
``tests/unit/test_dev_moto.py``). Nothing else changes.
"""

from __future__ import annotations

import threading
from typing import Any

from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import Table
from moto.dynamodb.models.utilities import bytesize

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


ITEM_SIZE_LIMIT = 405_000
"""moto's own limit (``LimitedSizeDict``): DynamoDB's 400 KB, measured at 409-410 KB."""


def _item_sized_once(
    self: Item, hash_key: DynamoType, range_key: DynamoType | None, attrs: dict[str, Any]
) -> None:
    """``Item.__init__`` with the size limit checked on the whole item instead of at every attribute."""
    self.hash_key = hash_key
    self.range_key = range_key
    values = {key: DynamoType(value) for key, value in attrs.items()}
    if sum(bytesize(key) + value.size() for key, value in values.items()) > ITEM_SIZE_LIMIT:
        raise ItemSizeTooLarge
    self.attrs = LimitedSizeDict(values)  # its __init__ takes them without the per-key check


def install() -> None:
    Table.query = _query_one_partition  # type: ignore[method-assign]
    Table.all_items = _items_of_partition  # type: ignore[method-assign]
    Item.__init__ = _item_sized_once  # type: ignore[method-assign]
