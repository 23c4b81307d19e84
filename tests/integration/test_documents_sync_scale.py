"""A fixed-seed sample of ``make sync-check`` (``bench/documents_sync.py``) against the local stack:
``retrieval sync`` on generated text files with sidecars, a PDF and a corrupt PDF indexes every file,
fails the corrupt one alone with its reason, returns PDF hits with their page, applies the sidecars'
filters inside every mode, and leaves no stale hit after an edit and a removal. The full-size run (a few
thousand files) is the opt-in ``make sync-check``; its figures are in docs/DOCUMENTS.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from retrieval_core import bootstrap
from retrieval_core.adapters import s3_objects, sqs_parts
from retrieval_core.config import Settings

from bench.documents_sync import METADATA_FIELDS, run_scenario
from dev.ingest_resources import scratch_ingest

SAMPLE_FILES = 60


def test_a_synced_folder_is_indexed_filtered_in_every_mode_and_leaves_nothing_stale(
    fresh_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint = fresh_settings.dynamodb_endpoint
    assert endpoint
    with scratch_ingest(fresh_settings, "sync") as resources:
        monkeypatch.setenv("AWS_ENDPOINT_URL_S3", endpoint)
        monkeypatch.setenv("RETRIEVAL_INGEST_BUCKET", resources.bucket)
        s3_objects.s3_client.cache_clear()
        sqs_parts.sqs_client.cache_clear()
        settings = fresh_settings.model_copy(
            update={"ingest_queue_url": None, "metadata_fields": METADATA_FIELDS, "entity_extractor": "local"}
        )
        with bootstrap.use(bootstrap.Container(settings)):
            figures = run_scenario(tmp_path / "kb", SAMPLE_FILES, seed=11)
            assert figures.files == SAMPLE_FILES + 2
