"""CORS as a browser needs it behind a Lambda proxy integration. API Gateway answers the preflight
(OPTIONS) itself, from the template's ``Cors`` setting, and adds the header to its own error answers
(``GatewayResponses``); every answer a function gives, errors included, must carry
``Access-Control-Allow-Origin`` itself, or the browser hides it from the page. These names are the one
list both the template and ``retrieval serve`` use (tests/unit/test_template_operations.py holds the
template to them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .headers import CONTEXT_HEADER, SESSION_HEADER

ALLOWED_HEADERS = (
    "Authorization",
    "Content-Type",
    # SigV4-signed browser calls (the X-Amz-* pair API Gateway's own CORS default allows).
    "X-Amz-Date",
    "X-Amz-Security-Token",
    CONTEXT_HEADER,
    SESSION_HEADER,
    "Idempotency-Key",
    "X-Correlation-Id",
)
"""Request headers a page may send: every header the API reads, so no preflight refuses a real call."""
ALLOWED_METHODS = ("GET", "POST", "OPTIONS")
EXPOSED_HEADERS = ("Retry-After",)
"""Response headers a page may read beyond the CORS-safelisted ones (when to retry a 503)."""
MAX_AGE_SECONDS = 600
ALLOW_ORIGIN = "Access-Control-Allow-Origin"


def response_headers(allow_origin: str) -> dict[str, str]:
    """The CORS headers of an actual (non-preflight) answer."""
    return {ALLOW_ORIGIN: allow_origin, "Access-Control-Expose-Headers": ",".join(EXPOSED_HEADERS)}


def preflight_headers(allow_origin: str) -> dict[str, str]:
    """What API Gateway's mock OPTIONS integration answers a preflight with (the template's ``Cors``)."""
    return {
        ALLOW_ORIGIN: allow_origin,
        "Access-Control-Allow-Methods": ",".join(ALLOWED_METHODS),
        "Access-Control-Allow-Headers": ",".join(ALLOWED_HEADERS),
        "Access-Control-Max-Age": str(MAX_AGE_SECONDS),
    }


def with_cors(response: dict[str, Any], allow_origin: str) -> dict[str, Any]:
    """A proxy response carrying the CORS headers (a header the response already sets is kept)."""
    present = {str(name).lower() for name in _names(response)}
    added = {k: v for k, v in response_headers(allow_origin).items() if k.lower() not in present}
    return {**response, "headers": {**(response.get("headers") or {}), **added}}


def _names(response: Mapping[str, Any]) -> list[str]:
    return [*(response.get("headers") or {}), *(response.get("multiValueHeaders") or {})]
