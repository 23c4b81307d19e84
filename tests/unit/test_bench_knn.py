"""The bench's k-NN sections at a million items (``bench.knn_tuning``, ``bench.filtered``): exact search is
asked once per filter and query in a run, and above ``REBUILD_MAX_ITEMS`` the knn section sweeps
``ef_search`` on the loaded graph without rebuilding the index under other graphs."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bench import knn_tuning
from bench.filtered import ExactTruth, bucket_filter


class _Client:
    """Answers every search with one hit and counts the searches."""

    def __init__(self) -> None:
        self.searches = 0

    def search(self, **_: Any) -> dict[str, Any]:
        self.searches += 1
        return {"hits": {"hits": [{"_id": f"hit-{self.searches}"}]}}


def test_exact_search_is_asked_once_per_filter_and_query_vector() -> None:
    client, truth = _Client(), ExactTruth()
    first = truth.top(client, "alias", [0.1, 0.2], None)
    assert truth.top(client, "alias", [0.1, 0.2], None) == first  # the same answer, not asked again
    truth.top(client, "alias", [0.1, 0.2], bucket_filter(10))  # another filter
    truth.top(client, "alias", [0.2, 0.1], None)  # another vector
    assert client.searches == 3


def _measured(monkeypatch: pytest.MonkeyPatch, items: int) -> tuple[dict[str, Any], list[tuple[int, int]]]:
    """``knn_tuning.measure`` on a corpus of ``items`` items, the stack's parts replaced by fakes; also the
    (m, ef_construction) pairs it rebuilt the index under."""
    rebuilt: list[tuple[int, int]] = []
    searched = {"recall_at_10": 1.0, "p50_ms": 1.0}

    def rebuild(settings: Any) -> tuple[None, float]:
        rebuilt.append((settings.opensearch_knn_m, settings.opensearch_knn_ef_construction))
        return None, 1.0

    monkeypatch.setattr(knn_tuning, "build_queries", lambda corpus, count: [SimpleNamespace(vector=[1.0])])
    monkeypatch.setattr(knn_tuning, "exact_tops", lambda *args: {})
    monkeypatch.setattr(knn_tuning, "searched", lambda *args: {"unfiltered": searched})
    monkeypatch.setattr(knn_tuning, "rebuilt", rebuild)
    monkeypatch.setattr(knn_tuning.vectors, "measure", lambda settings: {"file_bytes": {"vex": 1}})
    from retrieval_core.config import Settings

    corpus = SimpleNamespace(items=[None] * items, scale=SimpleNamespace(queries=200))
    return knn_tuning.measure(Settings(), corpus), rebuilt  # type: ignore[arg-type]


def test_up_to_large_the_index_is_rebuilt_under_each_other_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    found, rebuilt = _measured(monkeypatch, knn_tuning.REBUILD_MAX_ITEMS)
    assert rebuilt == list(knn_tuning.OTHER_GRAPHS)
    assert [(g["m"], g["ef_construction"]) for g in found["graphs"]] == [(16, 128), *knn_tuning.OTHER_GRAPHS]
    assert "rebuilds_skipped" not in found
    assert list(found["ef_search"]) == list(knn_tuning.EF_SEARCH)


def test_past_large_only_ef_search_is_swept_on_the_loaded_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    found, rebuilt = _measured(monkeypatch, knn_tuning.REBUILD_MAX_ITEMS + 1)
    assert rebuilt == []
    (loaded,) = found["graphs"]
    assert (loaded["m"], loaded["ef_construction"], loaded["rebuild_seconds"]) == (16, 128, None)
    assert "100,001 items" in found["rebuilds_skipped"]
    assert list(found["ef_search"]) == list(knn_tuning.EF_SEARCH)
