"""Errors the shared models raise."""

from __future__ import annotations

from ..errors import InvalidRequestError


class FilterNotApplicableError(InvalidRequestError):
    """The index cannot apply this leaf exactly (its key's type does not allow the comparison): a 422
    shaped like a validation error, plus the key and the reason."""

    def __init__(self, path: str, key: str, reason: str) -> None:
        message = f"cannot filter '{key}': {reason}"
        super().__init__(
            f"{path}: {message}",
            field=path,
            key=key,
            reason=reason,
            fields=[{"field": path, "message": message}],
        )
