"""The workbench's files as `retrieval serve` answers them: the page at /, its files under /workbench/,
nothing else (no path outside the packaged set), every script and stylesheet the page names is one
of them, and each vendored library ships with its licence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from retrieval_dev.workbench import page_asset
from retrieval_dev.workbench.assets import CONTENT_SECURITY_POLICY

VENDOR = Path(__file__).resolve().parents[2] / "shared" / "retrieval_dev" / "workbench" / "static" / "vendor"


def test_the_page_is_served_at_the_root_with_a_policy_that_allows_only_its_own_server() -> None:
    page = page_asset("/")
    assert page is not None and page.content_type.startswith("text/html")
    headers = dict(page.headers)
    assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert "default-src 'none'" in CONTENT_SECURITY_POLICY and "connect-src 'self'" in CONTENT_SECURITY_POLICY
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_every_script_and_stylesheet_the_page_names_is_served_and_local() -> None:
    page = page_asset("/")
    assert page is not None
    named = re.findall(r'(?:src|href)="([^"]+)"', page.body)
    local = [url for url in named if not url.startswith(("#", "data:"))]
    assert local and all(url.startswith("/workbench/") for url in local)
    for url in local:
        assert page_asset(url) is not None, url
    modules = {
        m for asset in ("/workbench/js/main.js",) for m in re.findall(r'from "\./([^"]+)"', _body(asset))
    }
    for module in modules:
        assert page_asset(f"/workbench/js/{module}") is not None, module


def _body(path: str) -> str:
    asset = page_asset(path)
    assert asset is not None
    return asset.body


@pytest.mark.parametrize(
    "path",
    [
        "/v1/retrieve",
        "/index.html",
        "/workbench/",
        "/workbench/../cli/serve.py",
        "/workbench/vendor/README.md",
        "/workbench/vendor/vendor.sh",
        "/workbench/nothing.js",
        "/workbench//js/main.js",
    ],
)
def test_other_paths_are_not_the_workbenchs(path: str) -> None:
    assert page_asset(path) is None


@pytest.mark.parametrize(
    ("library", "licence"),
    [
        ("cytoscape.min.js", "LICENSE.cytoscape"),
        ("cytoscape-dagre.min.js", "LICENSE.cytoscape-dagre"),
        ("cytoscape-dagre.min.js", "LICENSE.dagre"),
        ("axe.min.js", "LICENSE.axe-core"),
    ],
)
def test_each_vendored_library_ships_with_its_licence_and_its_pinned_version(
    library: str, licence: str
) -> None:
    assert (VENDOR / licence).read_text().strip()
    readme = (VENDOR / "README.md").read_text()
    assert f"`{library}`" in readme
    script = (VENDOR / "vendor.sh").read_text()
    pinned = {
        "cytoscape.min.js": "cytoscape@3.34.4",
        "cytoscape-dagre.min.js": "cytoscape-dagre@4.0.1",
        "axe.min.js": "axe-core@4.14.1",
    }
    assert pinned[library] in script


def test_the_documents_tab_offers_every_status_the_listing_answers() -> None:
    """Each ``FileStatus`` (``stale`` included: a record of a replaced index) is a choice of the Status
    select and has its place in the counts' order."""
    from typing import get_args

    from retrieval_core.documents.status import FileStatus

    select = re.search(r'<select id="doc-status"[^>]*>(.*?)</select>', _body("/"), re.S)
    assert select is not None
    offered = re.findall(r"<option>([a-z]+)</option>", select.group(1))
    ordered = re.search(r"const STATUSES = \[([^\]]*)\]", _body("/workbench/js/documents.js"))
    assert ordered is not None
    counted = re.findall(r'"([a-z]+)"', ordered.group(1))
    assert sorted(offered) == sorted(counted) == sorted(get_args(FileStatus))
