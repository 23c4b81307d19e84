"""A documentation folder synced through the real stack (issue 69, items 1-2): every page has a sensible
fate. Content pages are indexed with each chunk's section path and anchor stored; a chapter page that is
only a title and a table of contents, and a back-of-book index of links, are ``skipped`` with their
reason, so a folder whose only problems are such pages exits 0, and the next sync leaves them as they
were."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from cli_process import RETRIEVAL
from hostile_folder import Deployment, deployment
from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import invoke

from tests import document_fixtures as fixtures
from tests.processes import finished

PAGES = {
    "datatype.html": fixtures.DOCBOOK_TOC_PAGE,
    "datatype-numeric.html": fixtures.DOCBOOK_PAGE,
    "bookindex.html": fixtures.docbook_index_page(),
    "sphinx/quickstart.html": fixtures.SPHINX_PAGE,
    "mkdocs/install/index.html": fixtures.MKDOCS_PAGE,
}


@pytest.fixture
def manual(fresh_settings: Settings) -> Iterator[Deployment]:
    with deployment(fresh_settings, "manual") as scratch:
        yield scratch


def _sync(scratch: Deployment, folder: Path) -> dict[str, dict[str, Any]]:
    done = finished(
        [RETRIEVAL, "sync", folder, "--context", "acme", "--json"], env=scratch.env(), check=False
    )
    assert done.returncode == 0, (done.stdout, done.stderr)  # navigation pages are no failure
    return {entry["key"]: entry for entry in json.loads(done.stdout)["files"]}


def _grounding(text: str) -> dict[str, Any]:
    """The stored span of the top lexical hit for ``text``, as why_explain shows it."""
    body = {"mode": "lexical", "text": text, "top_k": 1}
    response = invoke("retrieve", api_event("POST", "/v1/retrieve", "acme", body=body))
    (hit,) = json.loads(response["body"])["hits"]
    encoded = quote(hit["id"], safe="")
    why = api_event("GET", f"/v1/why/{encoded}", "acme", path_parameters={"proposition_id": encoded})
    explained = json.loads(invoke("why_explain", why)["body"])
    (span,) = explained["grounding"]
    return dict(span)


def test_a_documentation_folder_syncs_cleanly_with_sections_and_anchors(
    manual: Deployment, tmp_path: Path
) -> None:
    folder = tmp_path / "manual"
    for name, body in PAGES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(body)
    first = _sync(manual, folder)
    assert {key: entry["status"] for key, entry in first.items()} == {
        "datatype.html": "skipped",
        "datatype-numeric.html": "indexed",
        "bookindex.html": "skipped",
        "sphinx/quickstart.html": "indexed",
        "mkdocs/install/index.html": "indexed",
    }
    assert "a title and a table of contents" in first["datatype.html"]["reason"]
    assert "an index of links" in first["bookindex.html"]["reason"]
    assert first["datatype-numeric.html"]["chunks"] >= 1

    serial = _grounding("smallserial bigserial autoincrementing")
    assert serial["uri"].endswith("/contexts/acme/datatype-numeric.html")
    assert (serial["section"], serial["anchor"]) == (
        "8.1. Numeric Types > 8.1.4. Serial Types",
        "DATATYPE-SERIAL",
    )
    conf = _grounding("configuration values")
    assert (conf["section"], conf["anchor"]) == (
        "Getting Started > Setting up the sources > The conf.py file",
        "conf-py",
    )
    pip = _grounding("pip virtual environment")
    assert (pip["section"], pip["anchor"]) == ("Install > With pip", "with-pip")

    again = _sync(manual, folder)  # the same bytes: settled, each page as it fared
    assert {key: entry["status"] for key, entry in again.items()} == {
        key: "skipped" if entry["status"] == "skipped" else "unchanged" for key, entry in first.items()
    }
    assert again["bookindex.html"]["reason"] == first["bookindex.html"]["reason"]
