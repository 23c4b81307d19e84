"""The judged collections for the tests that read them, or a skip that says where to put them.

They are not in the repository (not the team's work): the tests read the team's shared data set beside
the checkout (``../shared/data``), as in CI, unless ``RETRIEVAL_EVAL_DATA`` names another folder. The
product has no default (``collection.data_root``): a user names their own folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from retrieval_dev.evaluation.collection import DATA_ENV

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
"""The team's shared data set beside the checkout."""


def data_folder() -> Path:
    """``$RETRIEVAL_EVAL_DATA``, else the shared data set beside the checkout."""
    return Path(os.environ.get(DATA_ENV) or SHARED_DATA)


def collection_folder(name: str) -> Path:
    """``<data>/<name>``, or skip the test with the path it looked at and how to give another."""
    folder = data_folder() / name
    if not (folder / "documents.json").is_file():
        pytest.skip(
            f"the {name} collection is not at {folder}: put the team's shared data set beside the "
            f"checkout (../shared/data/{name}) or set {DATA_ENV} to a folder holding {name}/"
        )
    return folder
