"""The calibration behind each hit's ``relevance``: the fitted coefficients, as data.

A hit's ``score`` ranks it among its question's hits and means nothing across questions (a fused score
is normalised per question, a BM25 score grows with the question's length). ``relevance`` is one number
a caller can threshold anywhere: a logistic model of the probability that the hit is relevant, read from
what every hit carries at request time (its ranking score, which falls down the ranking, and its position
in the ranking, which rises: the weights' signs are required, so relevance falls down a ranking, page
after page), fitted on the judged development collections, then moved by one fixed ``operating_shift``
on the log-odds so that 0.4 (the threshold the strands ``retrieve`` tool and ``BedrockKnowledgeBaseStore``
apply by default) keeps at least 95% of the relevant hits of a top 10 on every collection it was fitted
on. The model's own probability is ``sigmoid(logit(relevance) - operating_shift)``.

The Bedrock ``Retrieve`` route answers it as each result's ``score``; ``POST /v1/retrieve`` gives it as
each hit's ``relevance`` beside the ranking ``score``. The pager computes it (``pager.calibrated``: on
the request path, in a module it already runs); ``retrieval eval --calibration``
(``retrieval_dev/evaluation/calibration.py``) refits these numbers and prints the reliability table
docs/BEDROCK.md quotes ("Scores").
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class RelevanceModel(BaseModel):
    """One mode's logistic model: log-odds = intercept + score * the hit's ranking score (clamped to
    [0, 1]) + log_position * ln(its 1-based position in the ranking) + operating_shift."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    intercept: float
    score: float = Field(gt=0, description="Times the hit's ranking score, clamped to [0, 1].")
    log_position: float = Field(le=0, description="Times ln of its 1-based position in the whole ranking.")
    operating_shift: float = Field(
        description="Added to the log-odds: places 0.4 where 95% of the relevant hits of a top 10 score at "
        "least that (the model's own probability is the relevance less this on the log-odds)."
    )


class RelevanceCalibration(BaseModel):
    """A model per mode, the mode whose model the others use, and where the numbers came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    models: dict[str, RelevanceModel]
    fallback: str = Field(description="The mode whose model a mode without its own uses.")
    fitted_on: str


RELEVANCE = RelevanceCalibration(
    models={
        "hybrid": RelevanceModel(
            intercept=-1.184, score=2.1991, log_position=-0.8297, operating_shift=1.7699
        ),
        "vector": RelevanceModel(
            intercept=-1.1374, score=1.9796, log_position=-1.0839, operating_shift=1.8035
        ),
        "lexical": RelevanceModel(
            intercept=-1.1003, score=1.6422, log_position=-0.9177, operating_shift=1.9681
        ),
    },
    fallback="hybrid",
    fitted_on="retrieval eval --calibration, 2026-12-06: each question's top 10 in the ranking's order "
    "(diversify false), default preset, local all-MiniLM-L6-v2 embedder, on Cranfield's dev half (112 "
    "questions), CACM (52), the HotpotQA and MuSiQue development samples as pages (100 each) and the "
    "agent questions' dev split (22), each collection weighing the same; ridge 0.01. No test split. "
    "Arm ranks and the raw cosine were tried and left out (docs/BEDROCK.md, Scores).",
)
"""Refit with ``retrieval eval --calibration`` (docs/BEDROCK.md, "Scores"). Other modes (auto, entity,
graph_walk) use hybrid's model: they were not fitted."""
