"""The corpus sizes and sample counts of each scale. ``tiny`` (1,000 edges) is the smoke test's scale
and the smallest graph for graph_path (the issue asks for 1k, 10k and 100k edges); ``xlarge`` is a
million items (issue 51)."""

from __future__ import annotations

from dataclasses import dataclass

SEED = 20250101


@dataclass(frozen=True, slots=True)
class Scale:
    name: str
    items: int
    edges: int
    queries: int
    """Distinct retrieve queries per mode (the issue asks for at least 200)."""
    rounds: int
    """Repeated runs of every latency measurement; reports take medians over them."""
    graph_samples: int
    """graph_path / why_explain requests per depth and round."""
    import_repeats: int
    """Fresh interpreters per handler for import time (the issue asks for 10)."""
    first_call_repeats: int
    real_embeddings: bool
    """Embed item texts with the local model (small scales) or use synthetic unit vectors (larger)."""
    session_sizes: tuple[int, ...] = (1, 50, 500)
    """Session sizes (queries) at which one request's DynamoDB units are reported."""

    @property
    def entities(self) -> int:
        return max(12, self.items // 10)


SCALES = {
    scale.name: scale
    for scale in (
        Scale("tiny", 200, 1_000, 12, 1, 3, 2, 1, real_embeddings=True, session_sizes=(1, 4, 8)),
        Scale("small", 2_000, 10_000, 200, 3, 20, 10, 5, real_embeddings=True),
        Scale("medium", 20_000, 100_000, 200, 3, 20, 10, 5, real_embeddings=False),
        Scale("large", 100_000, 500_000, 200, 3, 20, 10, 5, real_embeddings=False),
        # A million items (issue 51): 900,000 propositions of two or three mentions each carry at least
        # 1,800,000 ordered edge rows, so two million (50,000 of three mentions). Not run on the shared
        # machine yet: about 1.5 GB of float32 vectors in this process and 1.8 GB of graph per copy in
        # the node (docs/SCALING.md); one round, fewer fresh interpreters, to stay near an hour.
        Scale("xlarge", 1_000_000, 2_000_000, 200, 1, 10, 3, 3, real_embeddings=False),
    )
}
