"""What a request may change about ranking, within bounds: fusion, reranking, query expansion.

Each is optional; what the request leaves out comes from the deployment's retrieval config (its preset),
and a named fusion preset (``fusion.preset``) starts from one of ``FUSION_PRESETS`` instead.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..models.limits import WHOLE
from .config import MAX_RANK_CONSTANT, ArmWeights, FusionConfig, FusionMethod
from .fusion import Normalization

FusionPresetName = Literal["rrf", "rrf_vector_heavy", "score_min_max", "score_l2"]

FUSION_PRESETS: dict[FusionPresetName, FusionConfig] = {
    "rrf": FusionConfig(),
    # The vector arm counts double: for corpora whose wording differs from the questions'.
    "rrf_vector_heavy": FusionConfig(weights=ArmWeights(lexical=1.0, vector=2.0)),
    "score_min_max": FusionConfig(method="score", normalization="min_max"),
    "score_l2": FusionConfig(method="score", normalization="l2"),
}


class FusionOptions(BaseModel):
    """hybrid: how the two arms are combined. Unset fields keep the preset's (or the deployment's)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    preset: FusionPresetName | None = Field(
        default=None, description="Start from a named fusion preset instead of the deployment's default."
    )
    method: FusionMethod | None = Field(
        default=None, description="`rrf`: weighted reciprocal ranks; `score`: weighted normalised scores."
    )
    rank_constant: Annotated[int, Field(ge=1, le=MAX_RANK_CONSTANT), WHOLE] | None = Field(
        default=None, description="RRF's k."
    )
    weights: ArmWeights | None = Field(default=None, description="Relative weight of each arm, 0..10.")
    normalization: Normalization | None = Field(
        default=None, description="score: `min_max` (each arm onto [0, 1]) or `l2` (by the arm's norm)."
    )

    def applied_to(self, base: FusionConfig) -> FusionConfig:
        start = (
            base
            if self.preset is None
            else FUSION_PRESETS[self.preset].model_copy(update={"candidate_depth": base.candidate_depth})
        )
        changes = self.model_dump(exclude={"preset"}, exclude_none=True)
        if self.weights is not None:
            changes["weights"] = self.weights
        return start.model_copy(update=changes)
