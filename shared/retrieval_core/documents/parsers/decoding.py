"""Bytes that claim to be text: UTF-8 (a byte-order mark allowed), never binary."""

from __future__ import annotations

from ..errors import DocumentRejectedError


def decoded_text(data: bytes) -> str:
    if b"\x00" in data[:65536]:
        raise DocumentRejectedError("is binary, not text (it holds NUL bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DocumentRejectedError(f"is not UTF-8 text (byte {error.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
