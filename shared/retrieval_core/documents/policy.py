"""Which chunking a file gets: the deployment's default (template parameter ``DocumentChunking``,
``RETRIEVAL_DOCUMENT_CHUNKING``), overridden per key prefix (the longest matching prefix wins):

    {"default": {"strategy": "fixed", "max_tokens": 200, "overlap_percent": 10},
     "prefixes": {"contexts/acme/faq/": {"strategy": "none"},
                  "contexts/acme/manuals/": {"strategy": "hierarchical"}}}
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..models.vocabulary import empty_dict
from .chunking import DEFAULT_CHUNKING, ChunkingConfig


class ChunkingPolicy(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    default: ChunkingConfig = DEFAULT_CHUNKING
    prefixes: dict[str, ChunkingConfig] = Field(default_factory=empty_dict)

    def for_key(self, key: str) -> ChunkingConfig:
        matching = [prefix for prefix in self.prefixes if key.startswith(prefix)]
        return self.prefixes[max(matching, key=len)] if matching else self.default
