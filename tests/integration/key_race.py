"""A process of the metadata-key race (test_key_budget_race.py): one real one-item load through the
loader the container composes, started when every racer is ready, so they all read the ledger at once."""

from __future__ import annotations

from typing import Any


def load_one(settings_json: str, line: str, start: Any, answers: Any) -> None:
    from retrieval_core.bootstrap import Container
    from retrieval_core.config import Settings

    loader = Container(Settings.model_validate_json(settings_json)).loader
    start.wait(timeout=300)
    report = loader.load_lines([line])
    answers.put((report.loaded, [error.field for error in report.errors]))
