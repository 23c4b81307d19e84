"""Retrieval behaviour as data: fusion and graph-expansion settings with named presets."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..graph.neighbourhood import DEFAULT_NODE_CAP
from ..models.metadata import FieldType

DEFAULT_RANK_CONSTANT = 10
"""RRF's k. 10 beat the customary 60 on the Cranfield dev queries (docs/QUALITY.md): with two arms
that each rank well, a small k lets agreement at the top of both lists count for more."""

DEFAULT_PAGING_MAX_DEPTH = 1000
"""The deepest position a request may page to (``RETRIEVAL_PAGING_MAX_DEPTH``)."""
DEFAULT_PAGING_TTL_SECONDS = 3600
"""How long a next_token and the ranking it pages through live (``RETRIEVAL_PAGING_TTL_SECONDS``)."""


class FusionConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    method: Literal["rrf", "weighted"] = "rrf"
    rank_constant: int = Field(
        default=DEFAULT_RANK_CONSTANT, ge=1, description="RRF's k: larger flattens rank differences."
    )
    lexical_weight: float = Field(
        default=0.5, ge=0, le=1, description="Weighted fusion: the lexical arm's share; vector gets the rest."
    )
    candidate_depth: int = Field(default=100, ge=1, le=1000, description="Candidates fetched per arm.")

    @property
    def arm_weights(self) -> dict[str, float]:
        return {"lexical": self.lexical_weight, "vector": 1.0 - self.lexical_weight}


class GraphExpansionConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    seed_hits: int = Field(default=5, ge=1, description="Top fused hits whose entities seed the graph arm.")
    max_added: int = Field(default=10, ge=0, description="Most edge propositions the graph arm may add.")
    node_cap: int = Field(
        default=DEFAULT_NODE_CAP, ge=1, description="Visited-node cap for graph walks and graph_path."
    )


class RetrievalConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    fusion: FusionConfig = FusionConfig()
    expansion: GraphExpansionConfig = GraphExpansionConfig()
    metadata: dict[str, FieldType] = Field(
        default_factory=dict, description="Declared metadata types filters are checked against."
    )


PresetName = Literal["default", "fast", "thorough"]
"""Chosen per deployment with ``RETRIEVAL_RETRIEVAL_PRESET`` (template parameter ``RetrievalPreset``)."""

PRESETS: dict[PresetName, RetrievalConfig] = {
    "default": RetrievalConfig(),
    # Fewer candidates per arm: cheaper requests when callers only want a handful of hits.
    "fast": RetrievalConfig(fusion=FusionConfig(candidate_depth=30)),
    # Deeper arms and a wider graph arm for recall-oriented research agents.
    "thorough": RetrievalConfig(
        fusion=FusionConfig(candidate_depth=300),
        expansion=GraphExpansionConfig(seed_hits=10, max_added=25),
    ),
}


def preset(
    name: PresetName, *, rank_constant: int | None = None, metadata: dict[str, FieldType] | None = None
) -> RetrievalConfig:
    """A named preset, optionally with the RRF constant from the environment (RETRIEVAL_RRF_RANK_CONSTANT)
    and the deployment's declared metadata types (RETRIEVAL_METADATA_FIELDS)."""
    config = PRESETS[name]
    if metadata:
        config = config.model_copy(update={"metadata": dict(metadata)})
    if rank_constant is not None:
        config = config.model_copy(
            update={"fusion": config.fusion.model_copy(update={"rank_constant": rank_constant})}
        )
    return config
