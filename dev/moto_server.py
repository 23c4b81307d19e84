"""The dev DynamoDB: moto in server mode, run as its own process so it outlives ``make up``."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request

_LIST_TABLES_HEADERS = {
    "Content-Type": "application/x-amz-json-1.0",
    "X-Amz-Target": "DynamoDB_20120810.ListTables",
    # moto does not verify signatures; it only needs a well-formed credential scope.
    "Authorization": (
        "AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host, Signature=0"
    ),
}


def command(port: int) -> list[str]:
    """moto's server, one request at a time (see ``dev.moto_serialized``), from this interpreter."""
    return [sys.executable, "-m", "dev.moto_serialized", "127.0.0.1", str(port)]


def is_healthy(endpoint: str) -> bool:
    """True once a DynamoDB ``ListTables`` call succeeds: the server is up and speaks DynamoDB."""
    request = urllib.request.Request(endpoint, data=b"{}", headers=_LIST_TABLES_HEADERS, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return "TableNames" in json.load(response)
    except (OSError, ValueError, urllib.error.URLError):
        return False
