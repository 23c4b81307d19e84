"""Where a tool call's API request goes: the handlers in-process (local) or a deployed API (remote).

Both answer with the API's status and JSON body, so the server treats them alike. Neither ever adds a
context to a request: the local backend's dev token and the remote backend's token (or SigV4 identity)
decide it, as the authorizer does for any HTTP caller.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlencode

from retrieval_core.errors import RetrievalError

from .tools import ApiRequest

TIMEOUT_SECONDS = 30
# Handlers redirect stdout while they run (``lambda_runtime.invoke``); concurrent redirects restore each
# other's streams, so local calls take turns.
_local_calls = threading.Lock()


class BackendConfigError(RetrievalError):
    """The backend cannot be used as configured (bad dev token, missing credentials)."""


@dataclass(frozen=True)
class ApiAnswer:
    status: int
    body: Any


class Backend(Protocol):
    def send(self, request: ApiRequest) -> ApiAnswer: ...


def _raw_path(request: ApiRequest) -> str:
    return request.path + (f"?{urlencode(request.query)}" if request.query else "")


def _parse(status: int, text: str) -> ApiAnswer:
    try:
        return ApiAnswer(status, json.loads(text) if text else {})
    except ValueError:
        return ApiAnswer(status, {"error": "unparsable_response", "message": text[:500]})


class LocalBackend:
    """The handlers in-process against the local stack, as ``retrieval serve`` runs them: same routes,
    same dev tokens (``dev:acme``, ``dev:acme,globex`` with ``context``, ``dev:acme:5``)."""

    def __init__(self, token: str, context: str | None = None) -> None:
        from ..serving.routes import dev_claims

        self._headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        if context:
            self._headers["X-Context-Id"] = context
        if dev_claims(self._headers["Authorization"]) is None:
            raise BackendConfigError(
                f"'{token}' is not a dev token: use dev:CONTEXT[,CONTEXT...][:SESSION_LIMIT], e.g. dev:acme"
            )

    def send(self, request: ApiRequest) -> ApiAnswer:
        from ..cli.lambda_runtime import invoke
        from ..serving.routes import proxy_event

        body = None if request.body is None else json.dumps(request.body)
        routed = proxy_event(request.method, _raw_path(request), dict(self._headers), body)
        if routed is None:
            return ApiAnswer(404, {"message": "Missing Authentication Token"})
        function, event = routed
        with _local_calls:
            response = invoke(function, event)
        return _parse(response["statusCode"], response.get("body") or "")


class RemoteBackend:
    """A deployed API over HTTPS, authorized by a token (``Authorization`` header) or by SigV4."""

    def __init__(self, api_url: str, token: str | None = None, sigv4_region: str | None = None) -> None:
        if (token is None) == (sigv4_region is None):
            raise BackendConfigError("give the remote API either a token or SigV4 credentials, not both")
        self._api_url = api_url.rstrip("/")
        self._token = token
        self._signer = _SigV4Signer(sigv4_region) if sigv4_region else None

    def send(self, request: ApiRequest) -> ApiAnswer:
        url = self._api_url + _raw_path(request)
        data = None if request.body is None else json.dumps(request.body).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._token is not None:
            # A bare token gets the Bearer scheme; one that names its scheme is sent as given.
            headers["Authorization"] = self._token if " " in self._token else f"Bearer {self._token}"
        if self._signer is not None:
            headers |= self._signer.headers(request.method, url, data)
        http_request = urllib.request.Request(url, data=data, method=request.method, headers=headers)
        try:
            with urllib.request.urlopen(http_request, timeout=TIMEOUT_SECONDS) as response:
                return _parse(response.status, response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            return _parse(error.code, error.read().decode("utf-8", errors="replace"))
        except (urllib.error.URLError, TimeoutError) as error:
            reason = getattr(error, "reason", error)
            return ApiAnswer(503, {"error": "api_unreachable", "message": f"cannot reach the API: {reason}"})


class _SigV4Signer:
    """Signs requests for API Gateway (service ``execute-api``) with the default AWS credential chain."""

    def __init__(self, region: str) -> None:
        import boto3

        credentials = boto3.Session().get_credentials()
        if credentials is None:
            raise BackendConfigError("--sigv4 needs AWS credentials (environment, profile or role)")
        self._credentials = credentials
        self._region = region

    def headers(self, method: str, url: str, data: bytes | None) -> dict[str, str]:
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest

        signed = AWSRequest(method=method, url=url, data=data or b"")
        SigV4Auth(self._credentials.get_frozen_credentials(), "execute-api", self._region).add_auth(signed)
        return {k: v for k, v in signed.headers.items() if k.lower() != "content-type"}
