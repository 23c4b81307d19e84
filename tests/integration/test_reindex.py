"""``retrieval reindex``: the migration between isolation models copies every document as stored."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from retrieval_core.adapters.opensearch.layout import IndexLayout
from retrieval_core.config import Settings
from retrieval_dev.cli import main
from stack_state import index_documents, load_lines
from test_loader import proposition

from dev.tables import scratch_space


@pytest.fixture
def pool_settings(stack_settings: Settings) -> Iterator[Settings]:
    with scratch_space(stack_settings.model_copy(update={"isolation_model": "pool"}), "r") as settings:
        yield settings


def stored(opensearch: Any, settings: Settings) -> list[dict[str, Any]]:
    return [{k: v for k, v in doc.items() if k != "_index"} for doc in index_documents(opensearch, settings)]


def test_pool_to_silo_and_back_keeps_every_document_and_drops_the_source(
    pool_settings: Settings,
    opensearch: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = [
        proposition("acme:p-1", ["acme:e/a", "acme:e/b"]),
        proposition("acme:p-2", ["acme:e/b", "acme:e/c"]),
        proposition("globex:p-1", ["globex:e/a", "globex:e/b"]),
    ]
    assert load_lines(pool_settings, lines).ok
    silo_settings = pool_settings.model_copy(update={"isolation_model": "silo"})
    in_pool = stored(opensearch, pool_settings)
    assert len(in_pool) == 3 and stored(opensearch, silo_settings) == []
    # The command reads its deployment from the environment, as every CLI command does.
    for name, value in pool_settings.to_env().items():
        monkeypatch.setenv(name, value)
    assert main(["reindex", "--to", "silo"]) == 0
    assert "copied 3 documents from pool to silo" in capsys.readouterr().out
    assert stored(opensearch, silo_settings) == in_pool
    assert {d["_index"] for d in index_documents(opensearch, silo_settings)} == {
        IndexLayout.of(silo_settings).index("acme"),
        IndexLayout.of(silo_settings).index("globex"),
    }
    assert main(["reindex", "--to", "pool", "--drop-source"]) == 0
    assert stored(opensearch, pool_settings) == in_pool
    assert stored(opensearch, silo_settings) == []
