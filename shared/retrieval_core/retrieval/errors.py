"""Errors retrieval raises."""

from __future__ import annotations

from ..errors import RetrievalError


class CapabilityMissingError(RetrievalError):
    """Internal signal: the deployment cannot serve this mode. Never leaves the router, which answers
    with a typed-empty result (``supported: false``) instead."""

    def __init__(self, capability: str) -> None:
        super().__init__(capability)
