"""The judged collections for the tests that read them, or a skip that says where to put them.

They are not in the repository (not the team's work): by default they are the team's shared data set
beside the checkout (``../shared/data``), as in CI; ``RETRIEVAL_EVAL_DATA`` names another folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from retrieval_dev.evaluation.collection import DATA_ENV, data_root


def collection_folder(name: str) -> Path:
    """``<data>/<name>``, or skip the test with the path it looked at and how to give another."""
    folder = data_root() / name
    if not (folder / "documents.json").is_file():
        pytest.skip(
            f"the {name} collection is not at {folder}: put the team's shared data set beside the "
            f"checkout (../shared/data/{name}) or set {DATA_ENV} to a folder holding {name}/"
        )
    return folder
