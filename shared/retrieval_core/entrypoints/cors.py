"""CORS as a browser needs it behind a Lambda proxy integration, granted only to configured origins.

Every answer a function gives, errors included, carries ``Access-Control-Allow-Origin`` itself (a proxy
integration adds nothing, and without it the browser hides even an error from the page), and the
functions answer the preflights (OPTIONS, unauthenticated: browsers send no Authorization on one) too,
because the grant depends on the request: the header names the request's own ``Origin`` when it is one of
``Settings.cors_origins`` (the template's ``CorsOrigins``), and nothing is granted to any other page, or to
any page when none is configured (the default). ``*`` is never an origin here, and no answer allows
credentials. These names are the one list both the template and ``retrieval serve`` use
(tests/unit/test_template_operations.py holds the template to them)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from .wire import CONTEXT_HEADER, SESSION_HEADER

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
VARY = {"Vary": "Origin"}
"""An answer whose CORS grant depends on the request's Origin says so (a cache must not serve it to
another origin)."""
ORIGIN_HEADER = "Origin"
CORS_RESPONSE_HEADERS = frozenset({ALLOW_ORIGIN.lower(), "access-control-expose-headers", "vary"})
"""What ``response_headers`` may set, lower-cased: the headers a grant made elsewhere is replaced by."""


def granted_origin(origin: str | None, allowed: Collection[str]) -> str | None:
    """The request's ``Origin`` when it is one of ``allowed`` (compared as browsers send origins, lower
    case), else None: no grant."""
    return origin if origin and origin.lower() in allowed else None


def response_headers(granted: str | None) -> dict[str, str]:
    """The CORS headers of an actual (non-preflight) answer: none unless an origin is granted."""
    if granted is None:
        return {}
    return {ALLOW_ORIGIN: granted, "Access-Control-Expose-Headers": ",".join(EXPOSED_HEADERS), **VARY}


def preflight_headers(granted: str | None) -> dict[str, str]:
    """A preflight's answer: the methods and headers a page may use, and the origin when it is granted
    (without it the browser refuses the call it asked about)."""
    return {
        **({ALLOW_ORIGIN: granted, **VARY} if granted is not None else {}),
        "Access-Control-Allow-Methods": ",".join(ALLOWED_METHODS),
        "Access-Control-Allow-Headers": ",".join(ALLOWED_HEADERS),
        "Access-Control-Max-Age": str(MAX_AGE_SECONDS),
    }


def preflight_response(granted: str | None) -> dict[str, Any]:
    """The proxy response a function answers an OPTIONS request with (``retrieval serve`` answers the
    same): 200 and an empty JSON object, as API Gateway's own mock preflight did."""
    return {"statusCode": 200, "headers": preflight_headers(granted), "body": "{}"}


def with_cors(response: dict[str, Any], granted: str | None) -> dict[str, Any]:
    """A proxy response carrying the CORS headers of ``granted`` (a header the response already sets is
    kept)."""
    present = {str(name).lower() for name in _names(response)}
    added = {k: v for k, v in response_headers(granted).items() if k.lower() not in present}
    return {**response, "headers": {**(response.get("headers") or {}), **added}}


def _names(response: Mapping[str, Any]) -> list[str]:
    return [*(response.get("headers") or {}), *(response.get("multiValueHeaders") or {})]
