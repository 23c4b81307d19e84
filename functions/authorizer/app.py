"""Sample API Gateway REQUEST authorizer: HMAC-SHA256-signed tokens that name the caller's contexts.

It exists so a freshly deployed stack is callable without any other system. Production should bring its
own identity provider instead (the template's ``AuthorizerType=cognito`` switches to a Cognito user pool;
any OIDC/JWT issuer behind a Lambda authorizer works the same way): a shared HMAC secret has no key
rotation story, no revocation and no audience, and whoever holds it can mint tokens for every context.

Token (the ``Authorization`` header, ``Bearer`` optional): ``base64url(json claims) "." base64url(
HMAC-SHA256(secret, first part))``, unpadded. Claims:

* ``sub`` -- the caller, becomes the policy's principalId;
* ``context_id`` -- one context id or a list of them, the contexts the caller may act in; the token is
  valid only when every member is a context id (``entrypoints.token_contexts``);
* ``exp`` -- expiry, seconds since the epoch;
* ``session_limit`` -- optional cap on results per retrieval session.

The allowed contexts reach the functions as ``requestContext.authorizer.context_id`` (comma-separated when
there are several) and the cap as ``requestContext.authorizer.session_limit``. It is a REQUEST authorizer,
not a TOKEN one, because the decision depends on ``X-Context-Id`` too: a header naming a context outside
the token is denied (403, before any function runs), and the answer's ``usageIdentifierKey`` (the API's
``ApiKeySourceType`` is ``AUTHORIZER``) is ``usage_identifier_key`` of the context the request selects
(the header's, else the token's first), so a token of several contexts is metered as the one it acts in.
The local gateway makes the same decision with the same function (``token_contexts.selected_context``).
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
from collections.abc import Callable, Mapping
from typing import Any

from aws_lambda_powertools.utilities.data_classes import event_source
from aws_lambda_powertools.utilities.data_classes.api_gateway_authorizer_event import (
    APIGatewayAuthorizerRequestEvent,
    APIGatewayAuthorizerResponse,
    parse_api_gateway_arn,
)
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from retrieval_core import base64url
from retrieval_core.adapters import ssm_parameters
from retrieval_core.context import usage_identifier_key
from retrieval_core.entrypoints.token_contexts import (
    ContextListError,
    ContextNotGrantedError,
    selected_context,
    token_contexts,
)
from retrieval_core.entrypoints.wire import header_value
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
    context_id: list[str]
    exp: int
    session_limit: int | None = Field(default=None, ge=1)

    @field_validator("context_id", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("context_id")
    @classmethod
    def _well_formed(cls, value: list[str]) -> list[str]:
        try:
            return list(token_contexts(value))
        except ContextListError as invalid:
            raise ValueError(invalid.message) from None


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


def _answer(claims: TokenClaims, method_arn: str, usage_key: str | None) -> APIGatewayAuthorizerResponse:
    arn = parse_api_gateway_arn(method_arn)
    return APIGatewayAuthorizerResponse(
        principal_id=claims.sub,
        region=arn.region,
        aws_account_id=arn.aws_account_id,
        api_id=arn.api_id,
        stage=arn.stage,
        usage_identifier_key=usage_key,
        partition=arn.partition,
    )


def policy_for(claims: TokenClaims, method_arn: str, headers: Mapping[str, Any] | None) -> dict[str, Any]:
    """The policy API Gateway expects from a REQUEST authorizer: every route of the stage allowed, metered
    on the selected context; or, when ``X-Context-Id`` names a context the token does not hold, every
    route denied (API Gateway answers 403, the template's ACCESS_DENIED, and meters nothing)."""
    try:
        selected = selected_context(claims.context_id, headers)
    except ContextNotGrantedError:
        denied = _answer(claims, method_arn, None)
        denied.deny_all_routes()
        return denied.asdict()
    allowed = _answer(claims, method_arn, usage_identifier_key(selected))
    allowed.context = {"context_id": ",".join(claims.context_id)}
    if claims.session_limit is not None:
        allowed.context["session_limit"] = claims.session_limit
    # The whole stage, not the one method: a policy that names only the first route called would deny
    # the others if result caching (authorizerResultTtlInSeconds, off in the template) were turned on.
    allowed.allow_all_routes()
    return allowed.asdict()


def authorize(event: Mapping[str, Any], verifier: TokenVerifier) -> dict[str, Any]:
    """Verify the request's token and answer with a policy; raises UnauthorizedError otherwise, whatever
    went wrong (a token nested 100,000 levels deep included): an authorizer that fails any other way
    makes API Gateway answer 500, and one that lets an error escape might be read as an oracle."""
    try:
        headers = event.get("headers")
        token = header_value(headers, "Authorization")
        method_arn = event.get("methodArn")
        if token is None or not isinstance(method_arn, str):
            raise UnauthorizedError()
        return policy_for(verifier.verify(token), method_arn, headers)
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


@event_source(data_class=APIGatewayAuthorizerRequestEvent)
def lambda_handler(event: APIGatewayAuthorizerRequestEvent, context: object) -> dict[str, Any]:
    return authorize(event, SECRETS.verifier())
