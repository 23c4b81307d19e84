"""Building the loader from settings (the CLI's share of the composition; the runtime owns the recipe)."""

from __future__ import annotations

from retrieval_core.loading.build import loader_for

__all__ = ["loader_for"]
