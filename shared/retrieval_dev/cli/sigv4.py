"""SigV4 for ``retrieval serve``'s Bedrock Retrieve route: what API Gateway's ``AWS_IAM`` authorization and
the caller's IAM policy do for the deployed route, with development credentials. The dev credentials: access
key ``dev-<context>`` with secret key ``dev-secret`` (``dev-acme`` reads the knowledge base ``acme`` is served
as, and only that one: the policy a deployment writes per id). The signature is recomputed with botocore's
own signer (``SigV4Auth`` over an ``AWSRequest`` rebuilt from the incoming request and the headers the
caller signed) and compared in constant time; a request unsigned, signed wrongly, signed too long ago, or
for a knowledge base its key is not granted is refused as ``AccessDeniedException`` with the same body the
function gives every refusal of access, before the function runs (as IAM refuses before Lambda).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from retrieval_core.context import CONTEXT_ID_PATTERN
from retrieval_core.entrypoints.bedrock.errors import ACCESS_DENIED_MESSAGE, ERROR_TYPE_HEADER

DEV_ACCESS_KEY_PREFIX = "dev-"
DEV_WRITER_KEY_PREFIX = "devwrite-"
"""``devwrite-<context>`` may also call the write operations of ``bedrock-agent`` (ingest and delete
documents, start and stop ingestion jobs) on that context's knowledge base: the grant a deployment
gives writers separately (docs/BEDROCK.md)."""
DEV_SECRET_KEY = "dev-secret"
DEV_ACCOUNT = "000000000000"
MAX_SKEW = timedelta(minutes=5)
"""How far a signature's time may be from now (API Gateway: 'Signature expired' past five minutes)."""
_AUTHORIZATION = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<key>[^/\s,]+)/(?P<date>\d{8})/(?P<region>[^/\s,]+)/"
    r"(?P<service>[^/\s,]+)/aws4_request,\s*SignedHeaders=(?P<signed>[a-z0-9;_.-]+),\s*"
    r"Signature=(?P<signature>[0-9a-f]{64})$"
)
_TIMESTAMP = "%Y%m%dT%H%M%SZ"
DENIED = (403, [("Content-Type", "application/json"), (ERROR_TYPE_HEADER, "AccessDeniedException")])


def dev_credentials(context_id: str, *, writer: bool = False) -> tuple[str, str]:
    """The access key and secret key that ``retrieval serve`` grants ``context_id`` (``writer``: its
    knowledge base's write operations too)."""
    prefix = DEV_WRITER_KEY_PREFIX if writer else DEV_ACCESS_KEY_PREFIX
    return f"{prefix}{context_id}", DEV_SECRET_KEY


def verified_identity(
    method: str,
    raw_path: str,
    headers: dict[str, str],
    body: bytes,
    granted: Callable[[str], bool],
    *,
    writes: bool = False,
) -> dict[str, Any] | None:
    """The ``requestContext.identity`` API Gateway would pass for a request IAM allows, or None;
    ``granted`` says whether the key's context may call this path, ``writes`` that the call is a write
    (only a writer's key may make it)."""
    lowered = {name.lower(): value for name, value in headers.items()}
    match = _AUTHORIZATION.fullmatch(lowered.get("authorization", "").strip())
    if match is None or not _granted(match["key"], granted, writes):
        return None
    timestamp = lowered.get("x-amz-date", "")
    try:
        signed_at = datetime.strptime(timestamp, _TIMESTAMP).replace(tzinfo=UTC)
    except ValueError:
        return None
    if abs(datetime.now(UTC) - signed_at) > MAX_SKEW or timestamp[:8] != match["date"]:
        return None
    declared_hash = lowered.get("x-amz-content-sha256")
    if declared_hash is not None and declared_hash != hashlib.sha256(body).hexdigest():
        return None
    signed = match["signed"].split(";")
    if "host" not in signed or any(name not in lowered for name in signed):
        return None
    request = AWSRequest(
        method=method,
        url=f"http://{lowered['host']}{raw_path}",
        data=body,
        headers={name: lowered[name] for name in signed},
    )
    request.context["timestamp"] = timestamp
    signer = SigV4Auth(Credentials(match["key"], DEV_SECRET_KEY), match["service"], match["region"])
    expected = signer.signature(signer.string_to_sign(request, signer.canonical_request(request)), request)
    if not hmac.compare_digest(expected, match["signature"]):
        return None
    return {
        "accessKey": match["key"],
        "caller": match["key"],
        "user": match["key"],
        "userArn": f"arn:aws:iam::{DEV_ACCOUNT}:user/{match['key']}",
        "sourceIp": "127.0.0.1",
    }


def denied_body() -> str:
    return json.dumps({"message": ACCESS_DENIED_MESSAGE})


def _granted(access_key: str, granted: Callable[[str], bool], writes: bool) -> bool:
    """The dev IAM policy: ``dev-<context>`` may invoke what ``granted`` allows that context, but for
    writes; ``devwrite-<context>`` writes too."""
    writer = access_key.startswith(DEV_WRITER_KEY_PREFIX)
    if not writer and (writes or not access_key.startswith(DEV_ACCESS_KEY_PREFIX)):
        return False
    context = access_key.removeprefix(DEV_WRITER_KEY_PREFIX if writer else DEV_ACCESS_KEY_PREFIX)
    return CONTEXT_ID_PATTERN.fullmatch(context) is not None and granted(context)
