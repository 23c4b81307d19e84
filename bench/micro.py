"""Sections 5 and 7: packing throughput (no backend involved) and package sizes after ``sam build``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bench.packing import bench_packing

from .stats import median

PACK_HITS = 100
PACK_BUDGET = 2000
LAYER = "RetrievalCoreLayer"
FUNCTION_DIRS = {
    "retrieve": "RetrieveFunction",
    "graph_path": "GraphPathFunction",
    "why_explain": "WhyExplainFunction",
    "authorizer": "AuthorizerFunction",
}


def packing(runs: int) -> dict[str, Any]:
    """Hits per second packing 100 hits into a 2,000-unit budget: median over ``runs`` (each best of 5)."""
    rates = [bench_packing(PACK_HITS, PACK_BUDGET) for _ in range(runs)]
    return {"hits": PACK_HITS, "budget": PACK_BUDGET, "hits_per_second": median(rates), "runs": runs}


def tree_bytes(root: Path) -> int:
    return sum((Path(folder) / name).stat().st_size for folder, _, names in os.walk(root) for name in names)


def package_sizes(build_dir: Path) -> dict[str, Any]:
    """Unzipped bytes of the layer and of each function in a ``sam build`` output folder."""
    if not (build_dir / LAYER).is_dir():
        return {"measured": False, "reason": f"no sam build output in {build_dir} (run `make sam-build`)"}
    return {
        "measured": True,
        "build_dir": str(build_dir),
        "layer_bytes": tree_bytes(build_dir / LAYER),
        "function_bytes": {
            name: tree_bytes(build_dir / folder)
            for name, folder in FUNCTION_DIRS.items()
            if (build_dir / folder).is_dir()
        },
    }
