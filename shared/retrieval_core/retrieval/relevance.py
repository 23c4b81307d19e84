"""The calibration behind each hit's ``relevance``: the fitted coefficients, as data.

A hit's ``score`` ranks it among its question's hits and means nothing across questions (a fused score
is normalised per question, a BM25 score grows with the question's length). ``relevance`` is one number
a caller can threshold anywhere: a logistic model of the probability that the hit is relevant, read from
what every hit carries at request time (``FEATURES``: its ranking score, its position in the ranking,
the vector arm's similarity, which is absolute, and whether both text arms found it; each weight's sign
is fixed, and a feature the fit does not use weighs 0), fitted on the judged development collections,
then moved by one fixed ``operating_shift``
on the log-odds so that 0.4 (the threshold the strands ``retrieve`` tool and ``BedrockKnowledgeBaseStore``
apply by default) keeps at least 95% of the relevant hits of a top 10 on every collection it was fitted
on. The model's own probability is ``sigmoid(logit(relevance) - operating_shift)``. The pager caps each
value by the one above it (a running minimum) and a ``next_token`` by the least its pages showed, so
relevance never rises down a ranking, page after page, whatever the features do.

The Bedrock ``Retrieve`` route answers it as each result's ``score``; ``POST /v1/retrieve`` gives it as
each hit's ``relevance`` beside the ranking ``score``. The pager computes it (``pager.calibrated``: on
the request path, in a module it already runs); ``retrieval eval --calibration``
(``retrieval_dev/evaluation/calibration.py``) refits these numbers and prints the reliability table
docs/BEDROCK.md quotes ("Scores").
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

VECTOR_ARM = "vector"
TEXT_ARMS = ("lexical", VECTOR_ARM)


class RelevanceModel(BaseModel):
    """One mode's logistic model: log-odds = intercept + the sum of each weight times its feature
    (``hit_features``) + operating_shift. Each weight's sign is fixed (a feature that says "more
    relevant" never counts against a hit); a model fitted without a feature has 0 for it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    intercept: float
    score: float = Field(ge=0, description="Times the hit's ranking score, clamped to [0, 1].")
    log_position: float = Field(le=0, description="Times ln of its 1-based position in the whole ranking.")
    similarity: float = Field(
        default=0.0,
        ge=0,
        description="Times the vector arm's score of the hit: the engine's cosine-space score (1 + cos) / 2, "
        "absolute (comparable across questions, unlike the fused score); 0 when that arm did not find it.",
    )
    both_arms: float = Field(
        default=0.0,
        ge=0,
        description="Times 1 when both text arms (lexical and vector) found the hit, else 0.",
    )
    operating_shift: float = Field(
        description="Added to the log-odds: places 0.4 where 95% of the relevant hits of a top 10 score at "
        "least that (the model's own probability is the relevance less this on the log-odds)."
    )


FEATURES = ("score", "log_position", "similarity", "both_arms")
"""The model's features, in ``pager.hit_features``' order (its weights are the fields of these names).
The pager computes them (on the request path, in a module it already runs); the fit imports them."""


class RelevanceCalibration(BaseModel):
    """A model per mode, the mode whose model the others use, and where the numbers came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    models: dict[str, RelevanceModel]
    fallback: str = Field(description="The mode whose model a mode without its own uses.")
    fitted_on: str


RELEVANCE = RelevanceCalibration(
    models={
        "hybrid": RelevanceModel(
            intercept=-1.1852, score=2.1973, log_position=-0.8282, operating_shift=1.7685
        ),
        "vector": RelevanceModel(
            intercept=-1.1437, score=1.9883, log_position=-1.0898, operating_shift=1.817
        ),
        "lexical": RelevanceModel(
            intercept=-1.1116, score=1.6511, log_position=-0.9177, operating_shift=1.9754
        ),
    },
    fallback="hybrid",
    fitted_on="retrieval eval --calibration, 2026-12-06 (refit at 17:30 UTC): each question's top 10 in the "
    "ranking's order (diversify false), default preset, local all-MiniLM-L6-v2 embedder, on Cranfield's "
    "dev half (112 questions), CACM (52), the HotpotQA and MuSiQue development samples as pages (100 "
    "each) and the agent questions' dev split (22), each collection weighing the same; ridge 0.01. No "
    "test split. On calibration.SHIPPED (score, log_position): the vector arm's similarity and the "
    "arms' agreement were fitted too and held out no better (docs/BEDROCK.md, Scores), so they weigh 0.",
)
"""Refit with ``retrieval eval --calibration`` (docs/BEDROCK.md, "Scores"). Other modes (auto, entity,
graph_walk) use hybrid's model: they were not fitted."""
