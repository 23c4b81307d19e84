"""The caller's access-control scope. Every read is bound to exactly one context."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import InvalidRequestError

CONTEXT_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
ID_SEPARATOR = ":"


@dataclass(frozen=True, slots=True)
class CallerContext:
    """The single context a request acts in, derived from authorizer claims or an IAM-trusted payload."""

    context_id: str

    def __post_init__(self) -> None:
        if not CONTEXT_ID_PATTERN.fullmatch(self.context_id):
            raise InvalidRequestError("context_id must be 1-63 lowercase letters, digits, '-' or '_'.")

    def owns(self, item_id: str) -> bool:
        """True when ``item_id`` carries this context's prefix (``acme:...`` for ``acme``)."""
        return context_of(item_id) == self.context_id


def context_of(item_id: str) -> str | None:
    """The context prefix of an id, or None when the id has no prefix."""
    prefix, sep, rest = item_id.partition(ID_SEPARATOR)
    return prefix if sep and rest else None
