"""``retrieval reindex``: the migration between isolation models copies every document as stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from retrieval_core.adapters.opensearch.client import IndexLayout
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


def test_a_reindex_gives_documents_written_before_the_entity_dictionary_their_names(
    pool_settings: Settings, opensearch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from corpus_stack import retrieve
    from retrieval_core import bootstrap

    mention = {"entity_id": "acme:person/ivo-brandt", "name": "Ivo Brandt", "type": "Person"}
    line = json.loads(proposition("acme:p-1", []))
    line |= {"text": "Ivo Brandt rotates the signing keys.", "mentions": [mention]}
    assert load_lines(pool_settings, [json.dumps(line)]).ok
    # As an index from before the dictionary holds it: the item, without the two name fields.
    (document,) = index_documents(opensearch, pool_settings)
    index = document.pop("_index")
    older = {
        k: v
        for k, v in document.items()
        if not k.startswith("_") and k not in ("entity_names", "entity_name_keys")
    }
    opensearch.index(index=index, id=older["id"], body=older, routing="acme", refresh=True)
    silo_settings = pool_settings.model_copy(update={"isolation_model": "silo"})

    def linked(settings: Settings) -> list[str]:
        with bootstrap.use(bootstrap.Container(settings)):
            status, body = retrieve("acme", {"mode": "auto", "text": "Who rotates keys with Ivo Brandt?"})
        assert status == 200, body
        return [i["value"] for i in body["applied"]["inferred"] if i["became"] == "entity"]

    assert linked(pool_settings) == []  # nothing to link against yet
    for name, value in pool_settings.to_env().items():
        monkeypatch.setenv(name, value)
    assert main(["reindex", "--to", "silo"]) == 0
    assert linked(silo_settings) == ["acme:person/ivo-brandt"]
