"""The caller's context comes from authorizer claims only, in every authorizer shape."""

from __future__ import annotations

import pytest
from retrieval_core.entrypoints.claims import caller_from_event
from retrieval_core.errors import ForbiddenError, UnauthenticatedError


def event(authorizer: dict | None, headers: dict | None = None) -> dict:
    return {"requestContext": {"authorizer": authorizer}, "headers": headers or {}}


@pytest.mark.parametrize(
    "authorizer",
    [
        {"context_id": "acme", "principalId": "u"},  # REST Lambda authorizer
        {"claims": {"custom:context_id": "acme", "sub": "u"}},  # REST Cognito user pool
        {"jwt": {"claims": {"context_id": "acme"}, "scopes": []}},  # HTTP API JWT
        {"lambda": {"context_id": "acme"}},  # HTTP API Lambda authorizer
    ],
)
def test_every_authorizer_shape_yields_the_context(authorizer: dict) -> None:
    assert caller_from_event(event(authorizer)).context.context_id == "acme"


def test_no_claim_is_unauthenticated() -> None:
    for authorizer in (None, {}, {"principalId": "u"}, {"context_id": ""}):
        with pytest.raises(UnauthenticatedError):
            caller_from_event(event(authorizer))


def test_a_listed_context_is_chosen_by_header_and_others_are_forbidden() -> None:
    listed = {"context_id": "acme,globex"}
    assert caller_from_event(event(listed, {"X-Context-Id": "globex"})).context.context_id == "globex"
    chosen = caller_from_event(event({"context_id": '["acme", "globex"]'}, {"x-context-id": "acme"}))
    assert chosen.context.context_id == "acme"
    with pytest.raises(ForbiddenError):
        caller_from_event(event(listed, {"X-Context-Id": "initech"}))
    with pytest.raises(ForbiddenError):
        caller_from_event(event(listed))  # ambiguous: must choose
    with pytest.raises(ForbiddenError):
        caller_from_event(event({"context_id": "acme"}, {"X-Context-Id": "globex"}))


def test_the_claim_name_is_configurable_and_body_fields_are_never_read() -> None:
    sneaky = event({"tenant": "acme"}) | {
        "body": '{"context_id": "globex"}',
        "queryStringParameters": {"context_id": "globex"},
    }
    assert caller_from_event(sneaky, claim="tenant").context.context_id == "acme"
    with pytest.raises(UnauthenticatedError):
        caller_from_event(sneaky)


def test_session_limit_claim_is_read() -> None:
    assert caller_from_event(event({"context_id": "acme", "session_limit": "5"})).claim_session_limit == 5
    assert caller_from_event(event({"context_id": "acme"})).claim_session_limit is None


@pytest.mark.parametrize(
    ("authorizer", "principal"),
    [
        ({"context_id": "acme", "principalId": "agent-7"}, "agent-7"),  # REST Lambda authorizer
        ({"claims": {"custom:context_id": "acme", "sub": "u-1"}}, "u-1"),  # REST Cognito user pool
        ({"jwt": {"claims": {"context_id": "acme", "sub": "u-2"}}}, "u-2"),  # HTTP API JWT
        ({"context_id": "acme"}, None),  # no principal: the session is bound to the context only
    ],
)
def test_the_principal_comes_from_the_authorizer(authorizer: dict, principal: str | None) -> None:
    assert caller_from_event(event(authorizer)).principal == principal
