"""The loader when OpenSearch dies mid-load: it stops at once, names what it did not write, exits with
the cause, and a re-run of the same file ends in exactly the state of a clean load.

The node is killed for real (this worktree's stack only, its pid from ``.stack/opensearch.pid``) from
inside the bulk writer, just before the second batch goes out, so the failure lands at the same point
every run. Runs after every other test (``restarts_stack``): the restarted node starts empty.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from retrieval_core.adapters.opensearch import writer
from retrieval_core.config import Settings
from retrieval_core.loading.loader import BATCH_SIZE
from retrieval_dev.cli import load
from stack_state import SAMPLE_CORPUS, load_file, snapshot

from dev import processes, stack
from dev.tables import scratch_space

pytestmark = pytest.mark.restarts_stack

EXTRA_ITEMS = 2 * BATCH_SIZE  # with the sample corpus: three batches, so one comes after the failure


def corpus_file(path: Path) -> list[str]:
    """The sample corpus plus generated propositions; returns every item id in file order."""
    lines = SAMPLE_CORPUS.read_text().splitlines()
    lines += [
        json.dumps(
            {
                "id": f"acme:gen-{n:04d}",
                "context_id": "acme",
                "kind": "proposition",
                "text": f"Generated proposition {n} about the payments ledger.",
                "created_at": "2026-03-02T09:00:00Z",
                "mentions": [{"entity_id": f"acme:gen/e-{n % 7}", "name": f"E{n % 7}", "type": "Thing"}],
            }
        )
        for n in range(EXTRA_ITEMS)
    ]
    path.write_text("\n".join(lines) + "\n")
    return [json.loads(line)["id"] for line in lines]


def run_load(path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> int:
    for name, value in settings.to_env().items():
        monkeypatch.setenv(name, value)
    return load.run(argparse.Namespace(file=path, context_id=None))


def test_a_load_stops_when_opensearch_dies_and_a_rerun_completes_it(
    stack_settings: Settings,
    opensearch: Any,
    dynamodb: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "items.jsonl"
    ids = corpus_file(path)
    pid, port = stack.recorded_process(stack.OPENSEARCH) or (0, 0)
    assert pid, "OpenSearch of this worktree's stack is not running"
    monkeypatch.setenv(stack.OPENSEARCH.port_env, str(port))

    sent: list[int] = []
    real_bulk_index = writer.bulk_index

    def bulk_index_then_die(client: Any, alias: str, documents: Any) -> list[str]:
        sent.append(len(documents))
        if len(sent) == 2:
            os.killpg(pid, signal.SIGKILL)
            while processes.is_alive(pid):
                time.sleep(0.05)
        return real_bulk_index(client, alias, documents)

    with scratch_space(stack_settings, "lf") as settings:
        try:
            with monkeypatch.context() as patch:
                patch.setattr(writer, "bulk_index", bulk_index_then_die)
                status = run_load(path, settings, monkeypatch)
        finally:
            if not stack.OPENSEARCH.is_healthy(settings.opensearch_endpoint):
                stack.up()
        out, err = capsys.readouterr()

        assert status == load.STOPPED
        assert sent == [BATCH_SIZE, BATCH_SIZE]  # the third batch was never sent
        unwritten = ids[BATCH_SIZE:]
        assert f"{BATCH_SIZE} items loaded" in out and f"{len(unwritten)} items not written" in out
        listing = path.with_name(path.name + ".unwritten")
        assert f"{len(unwritten)} ids listed in {listing}" in err
        assert listing.read_text().splitlines() == unwritten
        cause = err.strip().splitlines()[-1]
        assert cause.startswith("retrieval load: stopped: OpenSearch failed: ConnectionError"), cause

        assert run_load(path, settings, monkeypatch) == 0
        rerun = snapshot(settings, opensearch, dynamodb)
        with scratch_space(stack_settings, "lc") as clean:
            assert load_file(clean, path).ok
            assert snapshot(clean, opensearch, dynamodb) == rerun
