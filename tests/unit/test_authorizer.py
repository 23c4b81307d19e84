"""The sample token authorizer: signing round-trip, rejection of forged/expired/malformed tokens, the
policy and context it hands API Gateway. The secret and clock are injected: no AWS, no network."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest
from authorizer import app as authorizer

SECRET = b"unit-test-secret"
NOW = 1_700_000_000
METHOD_ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/POST/v1/retrieve"


@pytest.fixture
def verifier() -> authorizer.TokenVerifier:
    return authorizer.TokenVerifier(SECRET, now=lambda: NOW)


def _token(secret: bytes = SECRET, **overrides: object) -> str:
    claims = {"sub": "agent-7", "context_id": "acme", "exp": NOW + 60} | overrides
    return authorizer.issue_token(claims, secret)


def _event(token: str) -> dict[str, str]:
    return {"type": "TOKEN", "authorizationToken": token, "methodArn": METHOD_ARN}


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
        "Resource": "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/*/*",
    }


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
        authorizer.authorize({"type": "TOKEN", "methodArn": METHOD_ARN}, verifier)


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


def test_the_usage_identifier_is_the_home_context_s_key(verifier: authorizer.TokenVerifier) -> None:
    from retrieval_core.context import usage_identifier_key

    single = authorizer.authorize(_event(_token()), verifier)
    several = authorizer.authorize(_event(_token(context_id=["beta", "acme"])), verifier)
    assert single["usageIdentifierKey"] == usage_identifier_key("acme")
    assert several["usageIdentifierKey"] == usage_identifier_key("beta")
