"""Which index a context's items live in: the one place index and alias names are built.

``silo`` (the default): every context has its own versioned index behind its own alias,
``<prefix>.<context>`` -> ``<prefix>.<context>.v2``, so its BM25 statistics, k-NN graph and refreshes
are its own and no other context's writes can move its scores. ``pool``: every context shares
``<prefix>`` -> ``<prefix>-v2`` (the naming used before silos existed; index version 2 made metadata
filterable, so an index of version 1 is rebuilt, not reused: docs/STORAGE.md).

A context id never contains a dot (``context.CONTEXT_ID_PATTERN``) and neither does the prefix
(``Settings.opensearch_alias``), so no context's alias can equal another's index or alias, and no name
can be a wildcard or a path.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...config import IsolationModel, Settings
from ...context import CONTEXT_ID_PATTERN
from ...errors import RetrievalError

# 2: metadata and mention types became filterable (v1 kept metadata unindexed); rebuild to upgrade.
INDEX_VERSION = 2
_SEPARATOR = "."


class ContextNameError(RetrievalError):
    """A context id that cannot name an index reached the index layout (callers validate it first, so
    this is a bug, reported as a server fault)."""


@dataclass(frozen=True, slots=True)
class IndexLayout:
    prefix: str
    model: IsolationModel = "silo"

    @classmethod
    def of(cls, settings: Settings) -> IndexLayout:
        return cls(settings.opensearch_alias, settings.isolation_model)

    @property
    def siloed(self) -> bool:
        return self.model == "silo"

    def alias(self, context_id: str) -> str:
        """The alias every read and write of ``context_id`` addresses."""
        _check(context_id)
        return f"{self.prefix}{_SEPARATOR}{context_id}" if self.siloed else self.prefix

    def index(self, context_id: str) -> str:
        """The versioned concrete index behind ``alias(context_id)``."""
        return self.versioned(self.alias(context_id))

    def versioned(self, alias: str) -> str:
        """The first index of ``alias`` at this index version; a rebuild's index adds a suffix to it."""
        return f"{alias}{_SEPARATOR}v{INDEX_VERSION}" if self.siloed else f"{alias}-v{INDEX_VERSION}"

    @property
    def alias_pattern(self) -> str:
        """Every alias of this layout (one in the pool, one per context in silos)."""
        return f"{self.prefix}{_SEPARATOR}*" if self.siloed else self.prefix

    @property
    def index_pattern(self) -> str:
        """Every concrete index of this layout, whatever its version: what dropping it all deletes."""
        return f"{self.prefix}{_SEPARATOR}*" if self.siloed else f"{self.prefix}-v*"


def _check(context_id: str) -> None:
    if not CONTEXT_ID_PATTERN.fullmatch(context_id):
        raise ContextNameError("context_id must be 1-63 lowercase letters, digits, '-' or '_'.")
