"""SnapStart runtime hooks: what a function builds before its snapshot, and what each restored copy
makes its own.

Lambda publishes a SnapStart version by initialising the function once and snapshotting it; every cold
start of that version is a restore of the snapshot. Before the snapshot, ``warm`` builds what the first
request would otherwise build (the container's clients and services, the request and response
validators, the resolver's route and validation tables), so restored copies start with it. After a
restore, ``refresh`` makes what must not be shared between copies their own: the ``random`` module's
state (botocore's retry jitter, Powertools' log sampling draw from it) and the log sampling decision.
Neither hook reads or writes a backend's data.

The hooks' registry, ``snapshot_restore_py``, is part of Lambda's managed Python runtime and is not
shipped in the layer; where it is absent (a local run, a runtime without it) nothing is registered and
the first request builds everything, as without SnapStart.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, cast

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.utilities.typing import LambdaContext

Hook = Callable[[], None]


def register(warm: Hook, refresh: Hook) -> bool:
    """Register ``warm`` to run before the snapshot and ``refresh`` after each restore; False when the
    runtime has no hooks registry."""
    try:
        from snapshot_restore_py import register_after_restore, register_before_snapshot
    except ImportError:
        return False
    register_before_snapshot(warm)
    register_after_restore(refresh)
    return True


def refreshed(logger: Logger) -> Hook:
    """The after-restore hook of a function that logs with ``logger``."""

    def refresh() -> None:
        random.seed()  # from os.urandom: each copy draws its own jitter and sampling
        logger.refresh_sample_rate_calculation()

    return refresh


def warm_routes(app: APIGatewayRestResolver, events: list[dict[str, Any]]) -> None:
    """Resolve ``events`` (each one refused by validation before its route runs: nothing is read) so the
    resolver builds its route table and validation models, then forget them."""
    for event in events:
        app.resolve(event, cast(LambdaContext, None))  # no route runs, so nothing reads the context
    app.clear_context()  # type: ignore[no-untyped-call]
