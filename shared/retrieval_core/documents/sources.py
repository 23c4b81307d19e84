"""Where a file can be opened besides its S3 object: the base URL its folder is published at, and for a
local sync the folder it was read from. Set per key prefix (the longest matching prefix wins) by the
template parameter ``DocumentSources`` (``RETRIEVAL_DOCUMENT_SOURCES``), and by ``retrieval sync
--base-url`` for the context it syncs:

    {"prefixes": {"contexts/pg/": {"url": "https://www.postgresql.org/docs/16/"},
                  "contexts/acme/handbook/": {"url": "https://handbook.acme.example/"}}}

A file ``contexts/pg/server-shutdown.html`` then links as
``https://www.postgresql.org/docs/16/server-shutdown.html``, each of its chunks with its section's anchor
(``#SERVER-SHUTDOWN``): the chunk's grounding ``url``, which a hit's ``location.url`` carries.
"""

from __future__ import annotations

import posixpath
from typing import NamedTuple
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..models.vocabulary import empty_dict

LINK_SCHEMES = ("https://", "http://", "file://")
_PATH_SAFE = "/-._~!$&'()*+,;=:@"
"""What a URL path keeps as it is (RFC 3986's pchar and '/'): everything else is percent-encoded."""
_FRAGMENT_SAFE = _PATH_SAFE + "?"


class SourceFolder(BaseModel):
    """One prefix's places: the base URL its files are published under, the local folder they came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str | None = Field(
        default=None, max_length=1024, description="The folder's published address (http, https or file)."
    )
    folder: str | None = Field(
        default=None, max_length=1024, description="The absolute path a local sync read the files from."
    )

    @field_validator("url")
    @classmethod
    def _a_link(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if not value.lower().startswith(LINK_SCHEMES) or any(c.isspace() for c in value) or "#" in value:
            raise ValueError("must be an http(s) or file URL without spaces or a fragment")
        return value if value.endswith("/") else f"{value}/"

    @field_validator("folder")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is not None and not posixpath.isabs(value):
            raise ValueError("must be an absolute path")
        return value


class Placement(NamedTuple):
    """Where one file opens: its published page (no anchor yet) and its local path (None: not known)."""

    url: str | None = None
    local_path: str | None = None

    @property
    def fingerprint(self) -> str:
        """What a file's status records of it, so a file placed elsewhere is indexed again ("": nowhere)."""
        return "" if self == NOWHERE else f" at {self.url or ''} {self.local_path or ''}"


NOWHERE = Placement()


class DocumentSources(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    prefixes: dict[str, SourceFolder] = Field(default_factory=empty_dict)

    def place(self, key: str) -> Placement:
        """Where the object ``key`` opens: the longest matching prefix's base URL and folder joined with
        the rest of the key."""
        matching = [prefix for prefix in self.prefixes if key.startswith(prefix)]
        if not matching:
            return NOWHERE
        prefix = max(matching, key=len)
        source, relative = self.prefixes[prefix], key[len(prefix) :]
        return Placement(
            url=None if source.url is None else source.url + quote(relative, safe=_PATH_SAFE),
            local_path=None if source.folder is None else posixpath.join(source.folder, relative),
        )


NO_SOURCES = DocumentSources()


def anchored(url: str, anchor: str | None) -> str:
    """``url`` opened at ``anchor`` (a heading's id): ``page.html#SERVER-SHUTDOWN``."""
    return f"{url}#{quote(anchor, safe=_FRAGMENT_SAFE)}" if anchor else url
