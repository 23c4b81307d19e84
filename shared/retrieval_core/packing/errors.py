"""Errors packing raises."""

from __future__ import annotations

from ..errors import InvalidRequestError, RetrievalError


class PacketHeaderTooLargeError(InvalidRequestError):
    """The budget cannot hold even the packet's header line."""


class SourceIdMissingError(RetrievalError):
    """A hit reached packing without a source label: a wiring bug, so a plain 500."""

    def __init__(self) -> None:
        super().__init__("The context packet could not be built.")
