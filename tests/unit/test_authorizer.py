"""The sample REQUEST authorizer: signing round-trip, rejection of forged/expired/malformed tokens, the
policy, context and usage key it hands API Gateway for the context a request selects. The secret and
clock are injected: no AWS, no network. Events are REST API REQUEST-authorizer events as API Gateway
sends them (the shape AWS documents for ``type: request``, headers as the client spelt them)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from typing import Any

import pytest
from authorizer import app as authorizer
from retrieval_core.context import usage_identifier_key

SECRET = b"unit-test-secret"
NOW = 1_700_000_000
METHOD_ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/POST/v1/retrieve"


@pytest.fixture
def verifier() -> authorizer.TokenVerifier:
    return authorizer.TokenVerifier(SECRET, now=lambda: NOW)


def _token(secret: bytes = SECRET, **overrides: object) -> str:
    claims = {"sub": "agent-7", "context_id": "acme", "exp": NOW + 60} | overrides
    return authorizer.issue_token(claims, secret)


def _event(token: str | None, **headers: str) -> dict[str, Any]:
    """A REQUEST-authorizer event for ``POST /v1/retrieve`` carrying ``Authorization: Bearer <token>``
    (left out when None) and ``headers`` (``X_Context_Id`` for ``X-Context-Id``)."""
    sent = {"Accept": "application/json", "Content-Type": "application/json", "Host": "abc123.execute-api"}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    sent |= {name.replace("_", "-"): value for name, value in headers.items()}
    return {
        "type": "REQUEST",
        "methodArn": METHOD_ARN,
        "resource": "/v1/retrieve",
        "path": "/v1/retrieve",
        "httpMethod": "POST",
        "headers": sent,
        "multiValueHeaders": {name: [value] for name, value in sent.items()},
        "queryStringParameters": {},
        "multiValueQueryStringParameters": {},
        "pathParameters": {},
        "stageVariables": {},
        "requestContext": {
            "resourceId": "a1b2c3",
            "resourcePath": "/v1/retrieve",
            "httpMethod": "POST",
            "extendedRequestId": "EXqgWgXxSK4EJug=",
            "requestTime": "14/Nov/2023:22:13:20 +0000",
            "path": "/prod/v1/retrieve",
            "accountId": "123456789012",
            "protocol": "HTTP/1.1",
            "stage": "prod",
            "domainPrefix": "abc123",
            "requestTimeEpoch": NOW * 1000,
            "requestId": "5d2b1a1e-0000-4000-8000-000000000000",
            "identity": {"sourceIp": "203.0.113.7", "userAgent": "curl/8.5.0"},
            "domainName": "abc123.execute-api.us-east-1.amazonaws.com",
            "apiId": "abc123",
        },
    }


def _effects(answer: dict[str, Any]) -> set[str]:
    return {statement["Effect"] for statement in answer["policyDocument"]["Statement"]}


def test_signed_token_round_trips(verifier: authorizer.TokenVerifier) -> None:
    claims = verifier.verify(_token(session_limit=20))
    assert (claims.sub, claims.context_id, claims.session_limit) == ("agent-7", ["acme"], 20)


def test_bearer_prefix_is_accepted(verifier: authorizer.TokenVerifier) -> None:
    assert verifier.verify("Bearer " + _token()).sub == "agent-7"


def test_single_context_maps_to_context_id(verifier: authorizer.TokenVerifier) -> None:
    answer = authorizer.authorize(_event(_token()), verifier)
    assert answer["principalId"] == "agent-7"
    assert answer["context"] == {"context_id": "acme"}


def test_several_contexts_are_comma_separated_with_session_limit(verifier: authorizer.TokenVerifier) -> None:
    answer = authorizer.authorize(
        _event(_token(context_id=["acme", "beta", "acme"], session_limit=5)), verifier
    )
    assert answer["context"] == {"context_id": "acme,beta", "session_limit": 5}


def test_policy_allows_every_route_of_the_stage_only(verifier: authorizer.TokenVerifier) -> None:
    (statement,) = authorizer.authorize(_event(_token()), verifier)["policyDocument"]["Statement"]
    assert statement == {
        "Action": "execute-api:Invoke",
        "Effect": "Allow",
        "Resource": ["arn:aws:execute-api:us-east-1:123456789012:abc123/prod/*/*"],
    }


def test_the_policy_keeps_the_arn_s_partition(verifier: authorizer.TokenVerifier) -> None:
    event = _event(_token()) | {"methodArn": METHOD_ARN.replace("arn:aws:", "arn:aws-cn:")}
    (statement,) = authorizer.authorize(event, verifier)["policyDocument"]["Statement"]
    assert statement["Resource"] == ["arn:aws-cn:execute-api:us-east-1:123456789012:abc123/prod/*/*"]


def test_expired_token_is_unauthorized(verifier: authorizer.TokenVerifier) -> None:
    with pytest.raises(authorizer.UnauthorizedError) as raised:
        verifier.verify(_token(exp=NOW))
    assert str(raised.value) == "Unauthorized"


def test_token_signed_with_another_secret_is_unauthorized(verifier: authorizer.TokenVerifier) -> None:
    with pytest.raises(authorizer.UnauthorizedError):
        verifier.verify(_token(secret=b"someone-else"))


def test_tampered_claims_are_unauthorized(verifier: authorizer.TokenVerifier) -> None:
    genuine = _token()
    forged_payload = authorizer.issue_token(
        {"sub": "agent-7", "context_id": "beta", "exp": NOW + 60}, SECRET
    ).partition(".")[0]
    with pytest.raises(authorizer.UnauthorizedError):
        verifier.verify(forged_payload + "." + genuine.partition(".")[2])


@pytest.mark.parametrize(
    "token",
    ["", "no-dot", ".", "abc.", "é.é", "!!!.###"],
    ids=["empty", "no-dot", "only-dot", "no-signature", "non-ascii", "not-base64"],
)
def test_malformed_tokens_are_unauthorized(verifier: authorizer.TokenVerifier, token: str) -> None:
    with pytest.raises(authorizer.UnauthorizedError):
        verifier.verify(token)


@pytest.mark.parametrize(
    "overrides",
    [
        {"context_id": "ACME"},
        {"context_id": "acme\n"},
        {"context_id": ["globex", "acme\n"]},
        {"context_id": []},
        {"context_id": ["", "initech"]},
        {"context_id": ",initech"},
        {"context_id": ["acme", "initech", ""]},
        {"context_id": "acme,initech"},
        {"sub": ""},
        {"exp": "soon"},
        {"session_limit": 0},
    ],
    ids=[
        "bad-context",
        "context-with-trailing-newline",
        "one-context-with-trailing-newline",
        "no-context",
        "empty-first-member",
        "comma-list-with-empty-first-member",
        "empty-last-member",
        "comma-list-in-one-string",
        "no-subject",
        "bad-exp",
        "zero-session-limit",
    ],
)
def test_validly_signed_but_invalid_claims_are_unauthorized(
    verifier: authorizer.TokenVerifier, overrides: dict[str, object]
) -> None:
    with pytest.raises(authorizer.UnauthorizedError):
        verifier.verify(_token(**overrides))


def test_signed_non_json_payload_is_unauthorized(verifier: authorizer.TokenVerifier) -> None:
    payload = "bm90LWpzb24"  # base64url("not-json")
    digest = hmac.new(SECRET, payload.encode(), hashlib.sha256).digest()
    signature = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    with pytest.raises(authorizer.UnauthorizedError):
        verifier.verify(f"{payload}.{signature}")


def test_event_without_token_is_unauthorized(verifier: authorizer.TokenVerifier) -> None:
    with pytest.raises(authorizer.UnauthorizedError):
        authorizer.authorize(_event(None), verifier)


def test_empty_secret_is_refused() -> None:
    with pytest.raises(ValueError):
        authorizer.TokenVerifier(b"")


def _signed(payload_json: str) -> str:
    payload = base64.urlsafe_b64encode(payload_json.encode()).rstrip(b"=").decode()
    digest = hmac.new(SECRET, payload.encode(), hashlib.sha256).digest()
    return payload + "." + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@pytest.mark.parametrize(
    "payload",
    ["[" * 100_000 + "]" * 100_000, '{"sub": "a", "context_id": "acme", "exp": ' + "9" * 5000 + "}"],
    ids=["100k-nested-brackets", "5000-digit-exp"],
)
def test_a_signed_hostile_payload_denies(verifier: authorizer.TokenVerifier, payload: str) -> None:
    with pytest.raises(authorizer.UnauthorizedError) as denied:
        authorizer.authorize(_event(_signed(payload)), verifier)
    assert str(denied.value) == "Unauthorized"


def test_any_failure_while_verifying_denies() -> None:
    class BrokenVerifier(authorizer.TokenVerifier):
        def verify(self, token: str) -> authorizer.TokenClaims:
            raise MemoryError("simulated")

    with pytest.raises(authorizer.UnauthorizedError):
        authorizer.authorize(_event(_token()), BrokenVerifier(SECRET))


def test_an_unreadable_secret_denies(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreachable() -> str:
        raise ConnectionError("SSM unreachable")

    monkeypatch.setattr(authorizer, "SECRETS", authorizer.SecretSource(unreachable))
    with pytest.raises(authorizer.UnauthorizedError):
        authorizer.lambda_handler(_event(_token()), None)


def test_a_valid_single_context_token_is_allowed_and_metered_on_it(
    verifier: authorizer.TokenVerifier,
) -> None:
    answer = authorizer.authorize(_event(_token()), verifier)
    assert _effects(answer) == {"Allow"}
    assert answer["usageIdentifierKey"] == usage_identifier_key("acme")


def test_several_contexts_without_a_header_are_metered_on_the_first(
    verifier: authorizer.TokenVerifier,
) -> None:
    answer = authorizer.authorize(_event(_token(context_id=["beta", "acme"])), verifier)
    assert _effects(answer) == {"Allow"}
    assert answer["context"]["context_id"] == "beta,acme"
    assert answer["usageIdentifierKey"] == usage_identifier_key("beta")


@pytest.mark.parametrize("selected", ["acme", "beta"])
def test_x_context_id_is_metered_as_the_context_it_selects(
    verifier: authorizer.TokenVerifier, selected: str
) -> None:
    event = _event(_token(context_id=["beta", "acme"]), X_Context_Id=selected)
    answer = authorizer.authorize(event, verifier)
    assert _effects(answer) == {"Allow"}
    assert answer["context"]["context_id"] == "beta,acme"  # the function still checks the choice itself
    assert answer["usageIdentifierKey"] == usage_identifier_key(selected)


def test_the_header_name_is_matched_in_any_case(verifier: authorizer.TokenVerifier) -> None:
    event = _event(_token(context_id=["beta", "acme"]), x_context_id="acme")  # HTTP/2 clients send lower case
    event["headers"]["authorization"] = event["headers"].pop("Authorization")
    assert authorizer.authorize(event, verifier)["usageIdentifierKey"] == usage_identifier_key("acme")


@pytest.mark.parametrize("selected", ["initech", "", "acme\n", "ACME", "beta,acme"])
def test_x_context_id_outside_the_token_is_denied_and_metered_on_nothing(
    verifier: authorizer.TokenVerifier, selected: str
) -> None:
    event = _event(_token(context_id=["beta", "acme"]), X_Context_Id=selected)
    answer = authorizer.authorize(event, verifier)
    assert _effects(answer) == {"Deny"}
    assert "usageIdentifierKey" not in answer and "context" not in answer


@pytest.mark.parametrize(
    "context_id",
    [["", "initech"], ["acme", "Bad!"], ["acme", "initech", ""], ["acme"] * 33],
    ids=["empty-member", "malformed-member", "empty-last-member", "more-than-32"],
)
def test_a_token_with_any_invalid_member_is_401_even_when_the_header_picks_a_good_one(
    verifier: authorizer.TokenVerifier, context_id: list[str]
) -> None:
    with pytest.raises(authorizer.UnauthorizedError) as denied:
        authorizer.authorize(_event(_token(context_id=context_id), X_Context_Id="acme"), verifier)
    assert str(denied.value) == "Unauthorized"


def test_the_handler_reads_a_request_event_through_powertools(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(authorizer, "SECRETS", authorizer.SecretSource(lambda: SECRET.decode()))
    token = _token(context_id=["acme", "initech"], exp=int(time.time()) + 600)
    allowed = authorizer.lambda_handler(_event(token, X_Context_Id="initech"), None)
    assert (_effects(allowed), allowed["usageIdentifierKey"]) == ({"Allow"}, usage_identifier_key("initech"))
    assert _effects(authorizer.lambda_handler(_event(token, X_Context_Id="globex"), None)) == {"Deny"}
    with pytest.raises(authorizer.UnauthorizedError):
        authorizer.lambda_handler(_event(_token(context_id=",initech", exp=int(time.time()) + 600)), None)
