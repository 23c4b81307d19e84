"""Retrieval behaviour as data: fusion and graph-expansion settings with named presets."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..graph.neighbourhood import DEFAULT_NODE_CAP
from ..models.metadata import FieldType
from ..models.vocabulary import empty_dict
from .feedback import FeedbackOptions
from .fusion import Normalization
from .rerank import RerankOptions

DEFAULT_RANK_CONSTANT = 10
"""RRF's k, for requests and presets that fuse by rank (the presets fuse by score since issue 38). 10 beat
the customary 60 on the Cranfield dev queries, but not on CACM (docs/QUALITY.md)."""

DEFAULT_PAGING_MAX_DEPTH = 1000
"""The deepest position a request may page to (``RETRIEVAL_PAGING_MAX_DEPTH``)."""
DEFAULT_PAGING_TTL_SECONDS = 3600
"""How long a next_token and the ranking it pages through live (``RETRIEVAL_PAGING_TTL_SECONDS``)."""


FusionMethod = Literal["rrf", "score"]
MAX_RANK_CONSTANT = 1000
MAX_ARM_WEIGHT = 10.0


class ArmWeights(BaseModel):
    """How much each arm counts in hybrid fusion (relative: only their ratio matters)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    lexical: float = Field(
        default=1.0,
        ge=0,
        le=MAX_ARM_WEIGHT,
        allow_inf_nan=False,
        description="The lexical (BM25) arm's weight.",
    )
    vector: float = Field(
        default=1.0,
        ge=0,
        le=MAX_ARM_WEIGHT,
        allow_inf_nan=False,
        description="The vector (k-NN) arm's weight.",
    )

    @model_validator(mode="after")
    def _some_weight(self) -> ArmWeights:
        if self.lexical + self.vector <= 0:
            raise ValueError("at least one arm needs a weight above 0")
        return self


class FusionConfig(BaseModel):
    """How hybrid mode combines its lexical and vector arms."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: FusionMethod = Field(
        default="rrf", description="`rrf`: weighted reciprocal ranks; `score`: weighted normalised scores."
    )
    rank_constant: int = Field(
        default=DEFAULT_RANK_CONSTANT,
        ge=1,
        le=MAX_RANK_CONSTANT,
        description="RRF's k: larger flattens rank differences.",
    )
    weights: ArmWeights = Field(default=ArmWeights(), description="Each arm's weight (rrf and score).")
    normalization: Normalization = Field(
        default="min_max", description="score: how each arm's scores are scaled before they are summed."
    )
    candidate_depth: int = Field(default=100, ge=1, le=1000, description="Candidates fetched per arm.")


class GraphExpansionConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    seed_hits: int = Field(default=5, ge=1, description="Top fused hits whose entities seed the graph arm.")
    max_added: int = Field(default=10, ge=0, description="Most edge propositions the graph arm may add.")
    node_cap: int = Field(
        default=DEFAULT_NODE_CAP, ge=1, description="Visited-node cap for graph walks and graph_path."
    )


class MultiHopConfig(BaseModel):
    """The multi-hop stage (``stages/multihop.py``): how far it looks, how its walk spreads and how much
    a walked passage weighs. The defaults were chosen on both multi-hop development sets together
    (MuSiQue and HotpotQA train samples, docs/QUALITY.md, "The walk starts from the question and
    spreads"), keeping only what held on each."""

    model_config = ConfigDict(frozen=True)

    seed_hits: int = Field(default=5, ge=1, le=20, description="Top hits whose linked pages seed a hop.")
    entities: int = Field(default=24, ge=1, le=100, description="Most linked entities one hop follows.")
    candidates: int = Field(default=30, ge=1, le=100, description="Passages one hop fetches per arm.")
    weight: float = Field(
        default=4.0,
        ge=0,
        description="A walked passage's score beside the text ranking's (best: 1); its walked mass is "
        "measured against what one step from a seed to a page it alone names would bring it.",
    )
    about: float = Field(default=1.0, ge=0, le=1, description="The weight of a link to the page about it.")
    mention: float = Field(
        default=0.1, ge=0, le=1, description="The weight of a link to a passage that mentions the entity."
    )
    decay: float = Field(
        default=0.8, ge=0, le=1, description="How much a seed's weight falls per rank below the top."
    )
    lexical_share: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="A linked passage's similarity to the question: this share BM25, the rest k-NN.",
    )
    relative: float = Field(
        default=1.0,
        ge=0,
        le=1,
        description="This share of a walked passage's similarity is measured against the most similar "
        "passage its entity leads to (the rest: against the ranked hits' best).",
    )
    damping: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="The walk's chance to follow an edge at each step (the rest restarts on the seeds).",
    )
    iterations: int = Field(
        default=6, ge=1, le=20, description="Steps the walk takes (Personalized PageRank)."
    )
    named_weight: float = Field(
        default=1.0,
        ge=0,
        description="The walk from the entities the question names weighs this, beside the top hit's 1.",
    )
    siblings: bool = Field(
        default=False, description="Whether a seed's own page's other chunks may be a hop (by default never)."
    )
    second_end_weight: float = Field(
        default=8.0,
        ge=0,
        description="A question asking through a thing it names: a passage naming what that thing's page "
        "names gains this times its k-NN score above ``second_end_floor`` against the question without "
        "the thing's name, in units of the fifth hit's score (0: not asked).",
    )
    second_end_floor: float = Field(
        default=0.6,
        ge=0,
        le=1,
        description="The k-NN score against the question without the named thing's name below which a "
        "passage gains nothing (0.6: cosine 0.2).",
    )
    named_only: bool = Field(
        default=True,
        description="auto walks only when its question names an entity the context knows (its entity arm).",
    )
    keep_first: bool = Field(
        default=True, description="The text ranking's first hit stays first: a walk never displaces it."
    )
    ahead: bool = Field(
        default=True,
        description="auto fetches the walk's first neighbourhood in its focus arms' round trip, as predicted "
        "from hybrid's ranking; the walk uses it only when it asks exactly that (the same results, one round "
        "trip fewer), else fetches as without it.",
    )


class RetrievalConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    fusion: FusionConfig = FusionConfig()
    rerank: RerankOptions = RerankOptions()
    feedback: FeedbackOptions | None = Field(
        default=None, description="Pseudo-relevance feedback for the lexical arm; None: only on request."
    )
    expansion: GraphExpansionConfig = GraphExpansionConfig()
    multihop: MultiHopConfig = MultiHopConfig()
    metadata: dict[str, FieldType] = Field(
        default_factory=empty_dict, description="Declared metadata types filters are checked against."
    )


PresetName = Literal["default", "fast", "thorough"]
"""Chosen per deployment with ``RETRIEVAL_PRESET`` (template parameter ``RetrievalPreset``)."""

ROBUST_FUSION = FusionConfig(method="score", normalization="min_max")
"""Min-max score fusion: on Cranfield dev, CACM and the agent questions together it holds up better than
RRF with k = 10 (which was tuned on Cranfield alone), and it was the best one-pass fusion on a third,
unseen collection (docs/QUALITY.md, issue 38). RRF stays available per request and as a fusion preset."""

PRESETS: dict[PresetName, RetrievalConfig] = {
    # Chosen over Cranfield dev, CACM, the multi-hop sets and the agent questions together, not on one
    # collection (docs/QUALITY.md, "Defaults that hold on the multi-hop sets too"): min-max fusion in one
    # pass. Feedback is on request only: Rocchio lost significantly on MuSiQue (its first pass's hits
    # are the first hop's, and moving towards them pulls the query away from the second), and expansion
    # terms lost on CACM and on both multi-hop sets at every weight.
    "default": RetrievalConfig(fusion=ROBUST_FUSION),
    # One round trip per request and fewer candidates per arm: for callers that want a handful of hits
    # fast.
    "fast": RetrievalConfig(fusion=ROBUST_FUSION.model_copy(update={"candidate_depth": 30})),
    # Deeper arms and a wider graph arm for recall-oriented research agents; Rocchio feedback from the
    # fused first pass at a quarter weight: Recall@100 up on Cranfield dev, CACM and MuSiQue and no
    # significant nDCG@10 loss on any, where the full weight (1.0) lost on MuSiQue (docs/QUALITY.md,
    # "The thorough preset on the multi-hop sets").
    "thorough": RetrievalConfig(
        fusion=ROBUST_FUSION.model_copy(update={"candidate_depth": 300}),
        feedback=FeedbackOptions(first_pass="fused", vector_weight=0.25),
        expansion=GraphExpansionConfig(seed_hits=10, max_added=25),
    ),
}


def preset(
    name: PresetName,
    *,
    rank_constant: int | None = None,
    metadata: dict[str, FieldType] | None = None,
    rerank_by_model: bool = False,
) -> RetrievalConfig:
    """A named preset, optionally with the RRF constant from the environment (RETRIEVAL_RRF_RANK_CONSTANT),
    the deployment's declared metadata types (RETRIEVAL_METADATA_FIELDS), and reranking by the
    deployment's rerank model by default (RETRIEVAL_RERANK_MODEL set)."""
    config = PRESETS[name]
    if metadata:
        config = config.model_copy(update={"metadata": dict(metadata)})
    if rank_constant is not None:
        config = config.model_copy(
            update={"fusion": config.fusion.model_copy(update={"rank_constant": rank_constant})}
        )
    if rerank_by_model:
        config = config.model_copy(update={"rerank": config.rerank.model_copy(update={"method": "model"})})
    return config
