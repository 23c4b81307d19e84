"""Sample API Gateway TOKEN authorizer: HMAC-SHA256-signed tokens that name the caller's contexts.

It exists so a freshly deployed stack is callable without any other system. Production should bring its
own identity provider instead (the template's ``AuthorizerType=cognito`` switches to a Cognito user pool;
any OIDC/JWT issuer behind a Lambda authorizer works the same way): a shared HMAC secret has no key
rotation story, no revocation and no audience, and whoever holds it can mint tokens for every context.

Token: ``base64url(json claims) "." base64url(HMAC-SHA256(secret, first part))``, unpadded. Claims:

* ``sub`` -- the caller, becomes the policy's principalId;
* ``context_id`` -- one context id or a list of them, the contexts the caller may act in;
* ``exp`` -- expiry, seconds since the epoch;
* ``session_limit`` -- optional cap on results per retrieval session.

The allowed contexts reach the functions as ``requestContext.authorizer.context_id`` (comma-separated when
there are several) and the cap as ``requestContext.authorizer.session_limit``. The answer's
``usageIdentifierKey`` names the API key that meters the call (the API's ``ApiKeySourceType`` is
``AUTHORIZER``): ``usage_identifier_key`` of the token's first context, its home context, which pays for
every call the token makes (a TOKEN authorizer sees the token, not which of its contexts a request picks).
A context whose key is in no usage plan is refused 403 by API Gateway: docs/FAIRSHARE.md, onboarding.

The secret is the SSM SecureString named by ``AUTHORIZER_SECRET_PARAMETER``, cached for
``SECRET_MAX_AGE_SECONDS`` (Powertools Parameters' ``max_age``), so a rotated secret is picked up within
that time.

The function's ``Timeout`` is 5 s. Reading the secret has a budget well inside it
(``adapters.ssm_parameters.SSM_BUDGET_SECONDS``, the runtime's SSM reads share the client: two attempts of
at most a 0.5 s connect and a 0.8 s read each, plus a backoff under a second; the client is created while
the container initialises, outside the Timeout): with SSM
unreachable the authorizer denies in time instead of timing out, and it remembers the failure for
``FAILED_READ_SECONDS`` so the requests that follow deny at once instead of each paying the budget.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import json
import logging
import os
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from retrieval_core import base64url
from retrieval_core.adapters import ssm_parameters
from retrieval_core.context import CONTEXT_ID_PATTERN, usage_identifier_key
from retrieval_core.errors import UnauthenticatedError

SECRET_PARAMETER_ENV = "AUTHORIZER_SECRET_PARAMETER"
BEARER_PREFIX = "Bearer "
SECRET_MAX_AGE_SECONDS = 300
FAILED_READ_SECONDS = 5.0
logger = logging.getLogger(__name__)


class UnauthorizedError(UnauthenticatedError):
    """The token is missing, malformed, forged or expired.

    API Gateway answers 401 only when the authorizer fails with exactly the message "Unauthorized", so
    every rejection carries that message and nothing about why (no oracle for forgers).
    """

    def __init__(self) -> None:
        super().__init__("Unauthorized")


class TokenClaims(BaseModel):
    """The claims a valid token carries; anything else in the token is ignored."""

    model_config = ConfigDict(extra="ignore")

    sub: str = Field(min_length=1, max_length=256)
    context_id: list[str] = Field(min_length=1, max_length=32)
    exp: int
    session_limit: int | None = Field(default=None, ge=1)

    @field_validator("context_id", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("context_id")
    @classmethod
    def _well_formed(cls, value: list[str]) -> list[str]:
        if not all(CONTEXT_ID_PATTERN.fullmatch(ctx) for ctx in value):
            raise ValueError("context ids must match the context id pattern")
        return list(dict.fromkeys(value))


def _signature(secret: bytes, payload: str) -> str:
    return base64url.encode(hmac.new(secret, payload.encode("ascii"), hashlib.sha256).digest())


def issue_token(claims: dict[str, Any], secret: bytes) -> str:
    """Mint a token for ``claims``: how operators hand out sample credentials (and how tests make them)."""
    payload = base64url.encode(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode("utf-8"))
    return f"{payload}.{_signature(secret, payload)}"


class TokenVerifier:
    """Checks signature and expiry; the secret and the clock are injected so tests need no AWS."""

    def __init__(self, secret: bytes, now: Callable[[], float] = time.time) -> None:
        if not secret:
            raise ValueError("the authorizer secret must not be empty")
        self._secret = secret
        self._now = now

    def verify(self, token: str) -> TokenClaims:
        """The token's claims, or UnauthorizedError for anything but a well-formed, signed, live token."""
        token = token.removeprefix(BEARER_PREFIX).strip()
        payload, sep, signature = token.partition(".")
        if not sep or not payload.isascii() or not signature.isascii():
            raise UnauthorizedError()
        if not hmac.compare_digest(_signature(self._secret, payload), signature):
            raise UnauthorizedError()
        try:
            claims = TokenClaims.model_validate(json.loads(base64url.decode(payload)))
        except (binascii.Error, UnicodeDecodeError, ValueError, ValidationError):
            raise UnauthorizedError() from None
        if claims.exp <= self._now():
            raise UnauthorizedError()
        return claims


def _api_wide_arn(method_arn: str) -> str:
    """``arn:...:api-id/stage/VERB/path`` -> ``arn:...:api-id/stage/*/*``.

    API Gateway caches the policy per token, so it must cover every route, not just the first one called.
    """
    api, _, _rest = method_arn.partition("/")
    stage = _rest.partition("/")[0]
    return f"{api}/{stage}/*/*"


def policy_for(claims: TokenClaims, method_arn: str) -> dict[str, Any]:
    """The IAM policy and authorizer context API Gateway expects from a TOKEN authorizer."""
    context: dict[str, Any] = {"context_id": ",".join(claims.context_id)}
    if claims.session_limit is not None:
        context["session_limit"] = claims.session_limit
    return {
        "principalId": claims.sub,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [
                {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": _api_wide_arn(method_arn)}
            ],
        },
        "context": context,
        "usageIdentifierKey": usage_identifier_key(claims.context_id[0]),
    }


def authorize(event: dict[str, Any], verifier: TokenVerifier) -> dict[str, Any]:
    """Verify the event's token and answer with a policy; raises UnauthorizedError otherwise, whatever
    went wrong (a token nested 100,000 levels deep included): an authorizer that fails any other way
    makes API Gateway answer 500, and one that lets an error escape might be read as an oracle."""
    try:
        token = event.get("authorizationToken")
        method_arn = event.get("methodArn")
        if not isinstance(token, str) or not isinstance(method_arn, str):
            raise UnauthorizedError()
        return policy_for(verifier.verify(token), method_arn)
    except UnauthorizedError:
        raise
    except Exception:
        logger.exception("token check failed unexpectedly; denying")
        raise UnauthorizedError() from None


class SecretSource:
    """The verifier for the current secret: Powertools caches the value for ``max_age`` seconds, and a
    failed read is remembered for ``FAILED_READ_SECONDS`` (each request would otherwise wait out the
    SSM budget again)."""

    def __init__(self, read: Callable[[], str], now: Callable[[], float] = time.monotonic) -> None:
        self._read = read
        self._now = now
        self._failed_until = float("-inf")

    def verifier(self) -> TokenVerifier:
        if self._now() < self._failed_until:
            raise UnauthorizedError()
        try:
            return TokenVerifier(self._read().encode("utf-8"))
        except Exception:
            self._failed_until = self._now() + FAILED_READ_SECONDS
            logger.exception("the authorizer secret could not be read; denying")
            raise UnauthorizedError() from None


def _read_secret() -> str:
    return ssm_parameters.secure_string(
        os.environ[SECRET_PARAMETER_ENV], max_age_seconds=SECRET_MAX_AGE_SECONDS
    )


SECRETS = SecretSource(_read_secret)
if SECRET_PARAMETER_ENV in os.environ:  # in Lambda: build the client during init, not in a request
    ssm_parameters.ssm_provider()


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return authorize(event, SECRETS.verifier())
