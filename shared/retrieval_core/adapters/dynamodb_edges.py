"""GraphTraversal over the edges table: one Query per frontier entity, run concurrently, every page read.

Each Query addresses ``{ctx}#{entity}`` and also filters on the row's ``context_id`` and on the requested
statuses inside the request. ``backend_calls`` counts every Query page so responses can report it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from typing import Any

from pydantic import ValidationError

from .. import backend_calls
from ..aws import aws_failures
from ..backend_calls import CallCounter
from ..config import Settings
from ..models.hits import Edge
from ..models.vocabulary import Status
from . import dynamodb_keys as keys
from .dynamodb_client import dynamodb_client
from .dynamodb_reads import as_float, plain

log = logging.getLogger(__name__)

DEFAULT_WORKERS = 8
_NAMES = {"#to": "to", "#status": "status"}
_PROJECTION = "sk, #to, #status, confidence, created_at"
"""An edge row's start and proposition are in its key (``dynamodb_keys``), whatever else it stores."""


class DynamoDBEdges:
    def __init__(self, settings: Settings, client: Any | None = None, workers: int = DEFAULT_WORKERS) -> None:
        self._client = client if client is not None else dynamodb_client(settings)
        self._table = settings.edges_table
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="edges-query")
        self._calls = CallCounter()

    @property
    def backend_calls(self) -> int:
        return self._calls.value

    def neighbours(
        self, context_id: str, entity_ids: Sequence[str], statuses: Sequence[Status]
    ) -> dict[str, list[Edge]]:
        entities = list(dict.fromkeys(entity_ids))
        if not statuses:
            return {entity: [] for entity in entities}
        backend_calls.check()
        outgoing = backend_calls.carry(lambda entity: self._outgoing(context_id, entity, statuses))
        with aws_failures("dynamodb", "query"):
            edges = self._pool.map(outgoing, entities)
            return dict(zip(entities, edges, strict=True))

    def _outgoing(self, context_id: str, entity_id: str, statuses: Sequence[Status]) -> list[Edge]:
        status_values = {f":s{i}": {"S": str(status)} for i, status in enumerate(dict.fromkeys(statuses))}
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "FilterExpression": f"context_id = :ctx AND #status IN ({', '.join(status_values)})",
            "ProjectionExpression": _PROJECTION,
            "ExpressionAttributeNames": _NAMES,
            "ExpressionAttributeValues": {
                ":pk": {"S": keys.partition(context_id, entity_id)},
                ":ctx": {"S": context_id},
                **status_values,
            },
        }
        edges: list[Edge] = []
        while True:
            self._calls.add()
            page = self._client.query(**request)
            rows = page.get("Items", [])
            edges += [edge for row in rows if (edge := _edge(entity_id, plain(row))) is not None]
            if "LastEvaluatedKey" not in page:
                return edges
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _edge(entity_id: str, row: dict[str, Any]) -> Edge | None:
    """The row, read from ``entity_id``'s partition, as an Edge; a malformed row is logged and skipped
    rather than failing the whole search."""
    neighbour, sort_key = row.get("to"), row.get("sk")
    if isinstance(neighbour, str) and isinstance(sort_key, str):
        proposition = keys.edge_proposition(sort_key, neighbour)
        confidence = as_float(row.get("confidence"))
        fields = {**row, "from": entity_id, "proposition_id": proposition, "confidence": confidence}
        with suppress(ValidationError):
            return Edge.model_validate(fields)
    log.warning("skipping malformed edge row")
    return None
