"""DynamoDB units of one request, computed from each call's own request and response the way on-demand
DynamoDB bills them (moto does not meter capacity): a write costs ceil(item size / 1 KB) units (a failed
conditional write too; an UpdateItem's or DeleteItem's size is the item's size after it, read back outside
the timing, since our updates only add attributes); a Query costs ceil(total size of the items it returned
/ 4 KB) units, a BatchGetItem ceil(size / 4 KB) per item, halved when eventually consistent, at least 1
(0.5) even when nothing is returned. Sizes follow DynamoDB's item-size rules (attribute names plus values;
numbers one byte per two digits plus one). Read units here are on-demand read request units (RRU).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from typing import Any


def item_size(item: dict[str, Any]) -> int:
    """Bytes DynamoDB counts for a low-level item (``{"name": {"S": ...}}``)."""
    return sum(len(name.encode()) + _value_size(value) for name, value in item.items())


def _value_size(value: dict[str, Any]) -> int:
    ((kind, raw),) = value.items()
    if kind == "S":
        return len(raw.encode())
    if kind == "N":
        digits = raw.lstrip("-").replace(".", "").strip("0") or "0"
        return math.ceil(len(digits) / 2) + 1
    if kind == "B":
        return len(raw)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "M":
        return 3 + sum(len(k.encode()) + _value_size(v) + 1 for k, v in raw.items())
    if kind == "L":
        return 3 + sum(_value_size(v) + 1 for v in raw)
    return sum(len(str(v).encode()) for v in raw)  # SS / NS / BS


@dataclass
class Ledger:
    """Every DynamoDB call of the watched clients with its parameters and its (parsed) response."""

    calls: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    # botocore fires both events in the calling thread; graph walks call from several threads at once.
    _pending: threading.local = field(default_factory=threading.local)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _watched: set[int] = field(default_factory=set)

    def watch(self, client: Any) -> None:
        if id(client) not in self._watched:
            self._watched.add(id(client))
            client.meta.events.register("provide-client-params.dynamodb", self._params)
            client.meta.events.register("after-call.dynamodb", self._after)

    def watch_container(self) -> None:
        """Watch the DynamoDB client of the current handler container (every table shares it)."""
        from retrieval_core.adapters.dynamodb_client import dynamodb_client
        from retrieval_core.bootstrap import container

        self.watch(dynamodb_client(container().settings))

    def take(self) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
        with self._lock:
            calls, self.calls = self.calls, []
        return calls

    def _params(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        self._pending.call = (model.name, dict(params))

    def _after(self, parsed: dict[str, Any], **_: Any) -> None:
        operation, params = self._pending.call
        with self._lock:
            self.calls.append((operation, params, parsed))


def units(calls: list[tuple[str, dict[str, Any], dict[str, Any]]], reader: Any) -> tuple[float, float]:
    """(write units, read units) of one request's DynamoDB calls, per the module's billing rules."""
    written = read = 0.0
    for operation, params, response in calls:
        if operation == "PutItem":
            written += max(1, math.ceil(item_size(params["Item"]) / 1024))
        elif operation in ("UpdateItem", "DeleteItem"):
            if reader is None:
                raise ValueError(f"{operation} is billed by the item's size after it: pass a reader")
            after = reader.get_item(TableName=params["TableName"], Key=params["Key"]).get("Item") or {}
            written += max(1, math.ceil(item_size(after) / 1024))
        elif operation in ("Query", "GetItem"):
            items = response.get("Items") or ([response["Item"]] if "Item" in response else [])
            size = sum(item_size(item) for item in items)
            consistent = bool(params.get("ConsistentRead"))
            read += max(1, math.ceil(size / 4096)) * (1 if consistent else 0.5)
        elif operation == "BatchGetItem":
            # Billed per item, each rounded up to 4 KB on its own.
            for table, found in (response.get("Responses") or {}).items():
                consistent = bool(params["RequestItems"].get(table, {}).get("ConsistentRead"))
                read += sum(max(1, math.ceil(item_size(item) / 4096)) for item in found) * (
                    1 if consistent else 0.5
                )
        elif operation == "BatchWriteItem":
            for requests in params["RequestItems"].values():
                for request in requests:
                    item = request.get("PutRequest", {}).get("Item")
                    written += max(1, math.ceil(item_size(item) / 1024)) if item else 1
    return written, read
