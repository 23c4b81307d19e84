"""How long the node may work on one search: bounded by the call's own timeout, which the request's
deadline already shortened (``deadline.timeout``).

The client gives up at ``timeout``; without more, the node would go on searching for nobody (a flood of
expensive queries keeps the node busy after every caller left). So each search body carries a ``timeout``
of ``NODE_SHARE`` of it (the node stops collecting and answers the hits it has, ``timed_out: true``,
while the client still listens) and the request carries ``cancel_after_time_interval`` of all of it (the
node cancels the search task outright once nobody can use its answer).
"""

from __future__ import annotations

from typing import Any

NODE_SHARE = 0.8
MINIMUM_NODE_MILLIS = 10


def node_millis(timeout: float) -> int:
    return max(MINIMUM_NODE_MILLIS, int(timeout * NODE_SHARE * 1000))


def bounded(body: dict[str, Any], timeout: float) -> dict[str, Any]:
    """``body`` with the node's time limit for a call of ``timeout`` seconds."""
    return {**body, "timeout": f"{node_millis(timeout)}ms"}


def cancel_after(timeout: float) -> str:
    """The ``cancel_after_time_interval`` of a call of ``timeout`` seconds."""
    return f"{max(MINIMUM_NODE_MILLIS, int(timeout * 1000))}ms"
