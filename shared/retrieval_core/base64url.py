"""Unpadded base64url, the alphabet signed tokens travel in (the sample authorizer's bearer tokens; the
paging token, ``retrieval/paging.py``): safe in headers, URLs and JSON without escaping."""

from __future__ import annotations

import base64


def encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode(text: str) -> bytes:
    """The bytes of ``text``; ``ValueError`` (``binascii.Error`` is one) when it is empty, not ASCII or
    not base64url."""
    if not text or not text.isascii():
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
