"""Issue 67, item 5, through the real stack (`retrieval sync` into the local bucket, the ingest function,
OpenSearch and DynamoDB): a sheet claiming row 10^20, an entity DTD in an XLSX's sharedStrings.xml, a
sidecar with a 4,000-digit number and a PDF page past its operators (the bound lowered: at its default it
takes a minute to reach) each end `failed` with a one-line reason naming its rule, recorded so
(`GET /v1/documents/{key}`, never `pending` and never missing), and the good file beside them loads.
Before: the sheet ran until killed, the DTD file stayed `pending`, the sidecar's file had no status."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_folder import Deployment, deployment, status, texts
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_core.documents.limits import DocumentLimits

from tests import bounded_files

RULES = {
    "far.xlsx": "past Excel's last row 1,048,576 (rows)",
    "laughs.xlsx": "declares a DTD or an entity",
    "numbers.txt": "is not a finite 64-bit float",
    "operators.pdf": "more than 1,000 content operators (page_operators)",
}


@pytest.fixture
def docs(fresh_settings: Settings) -> Iterator[Deployment]:
    with deployment(fresh_settings, "bnd") as scratch:
        lowered = DocumentLimits(page_operators=1_000)
        with bootstrap.use(bootstrap.Container(scratch.settings, overrides={"document_limits": lowered})):
            yield scratch


def test_hostile_files_fail_alone_by_their_rule_and_are_recorded(docs: Deployment, tmp_path: Path) -> None:
    from retrieval_dev.cli.sync import sync

    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "far.xlsx").write_bytes(bounded_files.far_row_xlsx())
    (folder / "laughs.xlsx").write_bytes(bounded_files.entity_dtd_xlsx())
    (folder / "numbers.txt").write_text("The ledger counts every barrel.")
    (folder / "numbers.txt.metadata.json").write_bytes(bounded_files.huge_number_sidecar())
    (folder / "operators.pdf").write_bytes(bounded_files.operator_pdf(5_000))
    (folder / "good.txt").write_text("The harbour master keeps the lighthouse log.")
    report = {entry["key"]: entry for entry in sync(folder, "acme", delete=False)}
    assert {key: entry["status"] for key, entry in report.items()} == {
        **dict.fromkeys(RULES, "failed"),
        "good.txt": "indexed",
    }
    for key, rule in RULES.items():
        reason = str(report[key]["reason"])
        assert rule in reason and reason.startswith("the file ") and "\n" not in reason, (key, reason)
        assert "Error" not in reason, reason  # never an exception's class name
        code, recorded = status(key)
        assert (code, recorded["status"], recorded["reason"]) == (200, "failed", reason)
    assert texts("harbour lighthouse") == ["The harbour master keeps the lighthouse log."]
    assert texts("ledger barrel") == []
