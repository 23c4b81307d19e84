"""What the Knowledge Bases route needs of its function, on its own so that the route (which registers
it) and the serving code (imported on the first request) both name it without importing each other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...retrieval.responses import RetrieveResponse


@dataclass(frozen=True, slots=True)
class KnowledgeBase:
    """What the route needs of its function: the retrieve service's call, the claim that names contexts,
    the mode a request without ``overrideSearchType`` gets, the rerank model a
    ``rerankingConfiguration`` may name (``none``: no reranking on request), which context each
    knowledge base id serves, and the region an ARN must name."""

    retrieve: Callable[..., RetrieveResponse]
    context_claim: str
    default_mode: str
    rerank_model: str
    context_of: Callable[[str], str | None]
    region: str
