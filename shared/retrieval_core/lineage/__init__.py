"""Lineage: why an item is believed, i.e. what it was derived from, what grounds it, what it replaced and
what disagrees with it (``why_explain``). Works only through the LineageReader and ItemReader ports."""

from .errors import ItemNotFoundError
from .explain import why_explain
from .models import WhyExplainRequest, WhyExplainResponse
from .service import WhyExplainService

__all__ = ["ItemNotFoundError", "WhyExplainRequest", "WhyExplainResponse", "WhyExplainService", "why_explain"]
