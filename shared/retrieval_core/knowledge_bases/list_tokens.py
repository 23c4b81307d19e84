"""``nextToken`` of bedrock-agent's document and ingestion job listings: the documents listing's own
sealed, signed tokens (``documents.listing.ListingTokens``), bound to the caller's context and to the one
listing (knowledge base, data source, what is listed), so a token of another context or listing, or one
made up, is refused alike and never read."""

from __future__ import annotations

from ..documents.listing import ListingTokens
from ..errors import BadRequestError, InvalidRequestError

REFUSED = "nextToken is not one this API issued for this listing; start without it."


class ListTokens:
    def __init__(self, tokens: ListingTokens) -> None:
        self._tokens = tokens

    def issue(self, listing: tuple[str, ...], last_key: str) -> str:
        """A token for the page after ``last_key`` of ``listing`` (its context first)."""
        context_id, *rest = listing
        return self._tokens.issue(context_id, _bound(rest), last_key)

    def open(self, listing: tuple[str, ...], token: str) -> str:
        """The key the page starts after; ``InvalidRequestError`` for any token not issued for it."""
        context_id, *rest = listing
        try:
            return self._tokens.open(token, context_id, _bound(rest))
        except BadRequestError:
            raise InvalidRequestError(REFUSED) from None


def _bound(listing: list[str]) -> str:
    # Not a prefix the documents listing can be asked for ('\n' is no key's), so no token crosses over.
    return "\nbedrock-agent\n" + "\n".join(listing)
