"""Pseudo-relevance feedback's options: how a first pass is found and how far the query moves towards its
top hits. The stage and its algorithms (expansion terms, Rocchio) are ``retrieval.stages.feedback``'s.
"""

from __future__ import annotations

from typing import Annotated, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from ..models.limits import WHOLE

FirstPass = Literal["lexical", "fused"]


class FeedbackOptions(BaseModel):
    """Pseudo-relevance feedback: a first pass, then the real search with a query moved towards the first
    pass's top hits. lexical and hybrid add expansion terms to the lexical query; vector and hybrid move
    the query vector towards the top hits' mean vector (Rocchio). Costs one more search (the first
    pass brings its top hits' texts and vectors along); hybrid's ``fused`` first pass costs two."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    enabled: StrictBool = Field(default=True, description="false: one pass, no feedback.")
    docs: Annotated[int, WHOLE] = Field(
        default=5, ge=1, le=20, description="How many top hits of the first pass are read."
    )
    terms: Annotated[int, WHOLE] = Field(
        default=20, ge=1, le=50, description="How many expansion terms are added."
    )
    weight: float = Field(
        default=0.0,
        ge=0,
        lt=1,
        allow_inf_nan=False,
        description="The expansion terms' share of the query; the original text keeps the rest.",
    )
    vector_weight: float = Field(
        default=1.0,
        ge=0,
        le=5,
        allow_inf_nan=False,
        description="Rocchio: the top hits' mean vector is added with this weight to the unit query "
        "vector (0: the vector is left alone).",
    )
    first_pass: FirstPass = Field(
        default="lexical",
        description="hybrid: how the feedback hits are found. `lexical`: BM25's top hits with their texts "
        "and vectors, searched while the query is embedded (two round trips in all); `fused`: both arms "
        "ranked and fused, then one read of the top hits' texts and vectors (three).",
    )


class FeedbackText(NamedTuple):
    text: str
    score: float
