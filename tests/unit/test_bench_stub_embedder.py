"""``bench/stub_embedder.py``: the growth-only bench's embedder gives the same unit vector for the same
text and different ones for different texts, chunks as the local model does (its token count), and is
wired into nothing the product ships or runs."""

from __future__ import annotations

import math
from pathlib import Path

from retrieval_core.embedding.local import LocalEmbedder
from retrieval_core.models.text_window import token_counter, window_of

from bench.stub_embedder import HashEmbedder

REPO = Path(__file__).resolve().parents[2]


def test_the_same_text_gets_the_same_unit_vector_and_another_text_another() -> None:
    stub = HashEmbedder()
    one, other, again = stub.embed(["Kalo Ven Mir", "Dra Sol", "Kalo Ven Mir"])
    assert len(one) == stub.dimension == 384
    assert one == again and one != other
    assert math.isclose(math.fsum(x * x for x in one), 1.0, rel_tol=1e-5)
    assert stub.embed([]) == []


def test_pages_chunk_as_they_do_with_the_local_model() -> None:
    stub, model = HashEmbedder(), LocalEmbedder()
    text = "The Kalo Ven Mir road, 1,204 km long, meets Dra Sol's northern bridge."
    assert token_counter(stub)(text) == token_counter(model)(text)
    assert window_of(stub.name) == window_of(model.name)


def test_nothing_the_product_ships_or_runs_names_the_stub() -> None:
    product = [REPO / "shared", REPO / "functions", REPO / "layers", REPO / "template.yaml"]
    files = [path for root in product for path in ([root] if root.is_file() else root.rglob("*.py"))]
    assert len(files) > 50
    naming = [
        str(path)
        for path in files
        if "stub_embedder" in path.read_text() or "HashEmbedder" in path.read_text()
    ]
    assert naming == []
