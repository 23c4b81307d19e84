"""The caller's access-control scope. Every read is bound to exactly one context."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import InvalidRequestError

CONTEXT_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
ID_SEPARATOR = ":"
USAGE_KEY_PREFIX = "retrieval-usage-"
USAGE_KEY_MIN_SUFFIX = 4
"""API Gateway API keys are 20 characters or more; a context id may be one."""
USAGE_KEY_PAD = "-"
"""A character no context id starts with (``CONTEXT_ID_PATTERN``): padding on the left stays injective."""


@dataclass(frozen=True, slots=True)
class CallerContext:
    """The single context a request acts in, derived from authorizer claims or an IAM-trusted payload."""

    context_id: str

    def __post_init__(self) -> None:
        if not CONTEXT_ID_PATTERN.fullmatch(self.context_id):
            raise InvalidRequestError("context_id must be 1-63 lowercase letters, digits, '-' or '_'.")

    def owns(self, item_id: str) -> bool:
        """True when ``item_id`` carries this context's prefix (``acme:...`` for ``acme``)."""
        return context_of(item_id) == self.context_id


def owns_all(context_id: str, item_ids: Iterable[str]) -> bool:
    """True when every one of ``item_ids`` carries ``context_id``'s prefix (``CallerContext.owns`` for
    many ids at once: the prefix is made once)."""
    prefix = f"{context_id}{ID_SEPARATOR}"
    return all(item_id.startswith(prefix) and len(item_id) > len(prefix) for item_id in item_ids)


def context_of(item_id: str) -> str | None:
    """The context prefix of an id, or None when the id has no prefix."""
    prefix, sep, rest = item_id.partition(ID_SEPARATOR)
    return prefix if sep and rest else None


def usage_identifier_key(context_id: str) -> str:
    """The API key value that meters ``context_id`` (the authorizer's ``usageIdentifierKey``).

    With ``ApiKeySourceType: AUTHORIZER`` callers never send a key: the authorizer names it, so the value
    needs no secrecy, only to be stable, derivable from the context alone (no lookup per request) and
    injective: two contexts never share a bucket. A context of four characters or more is its own suffix;
    a shorter one is left-padded with ``-`` to API Gateway's 20-character minimum. No context starts with
    ``-``, so a padded suffix is never another context's (``ab`` -> ``--ab``, while ``ab--`` stays
    ``ab--``) and stripping the leading ``-`` gives the context back (``usage_key_context``).
    Putting a context on a tier is creating the API key of this value in that tier's usage plan
    (docs/FAIRSHARE.md)."""
    if not CONTEXT_ID_PATTERN.fullmatch(context_id):
        raise InvalidRequestError("context_id must be 1-63 lowercase letters, digits, '-' or '_'.")
    return USAGE_KEY_PREFIX + context_id.rjust(USAGE_KEY_MIN_SUFFIX, USAGE_KEY_PAD)


def usage_key_context(key: str) -> str:
    """The context a usage key meters: ``usage_identifier_key``'s inverse."""
    return key.removeprefix(USAGE_KEY_PREFIX).lstrip(USAGE_KEY_PAD)
