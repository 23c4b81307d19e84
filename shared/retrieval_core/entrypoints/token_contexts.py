"""Which contexts a token names, and which one of them a request acts in and is metered as: the one
decision the deployed authorizer (``functions/authorizer``) and ``retrieval serve``'s dev authorizer
(``retrieval_dev/serving``) both make, so neither can drift from the other.

* A token's context list is valid only when every member is a context id: ``,initech``, ``acme,,x`` or a
  member with a trailing newline is no token (401), not a token for the members that happen to parse.
* ``X-Context-Id`` may only select among the token's contexts: another one is refused (403) before any
  function runs or any usage is metered, whether that context exists or not.
* The selected context (the header's, else the token's first, its home) is the one metered: its
  ``usage_identifier_key`` names the usage plan's API key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..context import CONTEXT_ID_PATTERN
from ..errors import ForbiddenError, UnauthenticatedError
from .wire import CONTEXT_HEADER, header_value

MAX_TOKEN_CONTEXTS = 32
"""A token listing more contexts than this is refused (the authorizer's context travels in every event)."""


class ContextListError(UnauthenticatedError):
    """The token names no context, too many, or a member that is empty or not a context id."""

    def __init__(self) -> None:
        super().__init__("The token's context list is not a list of context ids.")


class ContextNotGrantedError(ForbiddenError):
    """``X-Context-Id`` names a context the token does not hold (existing or not: no oracle)."""

    def __init__(self) -> None:
        super().__init__("The requested context is not allowed for this caller.")


def token_contexts(members: Sequence[str]) -> tuple[str, ...]:
    """The token's contexts, in order and once each, or ContextListError unless every member is valid."""
    if not 1 <= len(members) <= MAX_TOKEN_CONTEXTS:
        raise ContextListError()
    if not all(isinstance(m, str) and CONTEXT_ID_PATTERN.fullmatch(m) for m in members):
        raise ContextListError()
    return tuple(dict.fromkeys(members))


def selected_context(contexts: Sequence[str], headers: Mapping[str, Any] | None) -> str:
    """The context a request with ``headers`` acts in and is metered as: the one ``X-Context-Id``
    names, when it is among ``contexts`` (ContextNotGrantedError otherwise, an empty value included),
    else the token's first. With several contexts and no header the function still asks the caller to
    choose (403); the request is metered on the home context all the same."""
    requested = header_value(headers, CONTEXT_HEADER)
    if requested is None:
        return contexts[0]
    if requested not in contexts:
        raise ContextNotGrantedError()
    return requested
