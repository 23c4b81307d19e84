"""Errors lineage raises."""

from __future__ import annotations

from ..errors import NotFoundError


class ItemNotFoundError(NotFoundError):
    """The item does not exist in the caller's context; a foreign item gets exactly this error."""

    def __init__(self) -> None:
        super().__init__("Item not found.")
