"""Errors the edge raises before a request reaches a service."""

from __future__ import annotations

from ..errors import RetrievalError

JSON_MEDIA_TYPE = "application/json"


class UnsupportedMediaTypeError(RetrievalError):
    """The body is not declared as JSON (curl's ``-d`` sends a form unless told otherwise)."""

    code = "unsupported_media_type"

    def __init__(self, content_type: str) -> None:
        shown = content_type if len(content_type) <= 80 else content_type[:80] + "..."
        got = f"got '{shown}'" if content_type else "none was sent"
        super().__init__(f"Send the body as JSON with the header 'Content-Type: {JSON_MEDIA_TYPE}' ({got}).")
