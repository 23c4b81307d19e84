"""A sync's report lines: a batch's commit replaces its files' ``pending`` lines with what became of them,
found by their keys (their own, or their sidecar's when that event applied them), never by scanning
every line of the folder (a scan per commit made a sync quadratic in its folder's size)."""

from __future__ import annotations

from typing import Any

from retrieval_core.documents.status import DocumentStatus
from retrieval_dev.cli.sync import SIDECAR, _committed

PREFIX = "contexts/acme/"


class UnscannableLines(dict[str, dict[str, Any]]):
    """Report lines that fail a test which walks them all."""

    def values(self) -> Any:
        raise AssertionError("a commit scanned every line of the folder")


def _pending(key: str) -> dict[str, Any]:
    return {"key": key, "status": "pending", "chunks": 0, "reason": None}


def _final(key: str, chunks: int) -> DocumentStatus:
    return DocumentStatus(key=key, status="indexed", chunks=chunks, updated_at="2026-12-06T21:00:00Z")


def test_a_commit_updates_its_files_lines_by_key_own_or_sidecar_s() -> None:
    lines = UnscannableLines(
        {
            PREFIX + "a.md": _pending("a.md"),
            PREFIX + "b.md" + SIDECAR: _pending("b.md"),  # b.md's sidecar event applied b.md
            PREFIX + "c.md": _pending("c.md"),
        }
    )
    finished: list[tuple[str, DocumentStatus | Exception]] = [
        (PREFIX + "a.md", _final("a.md", 3)),
        (PREFIX + "b.md", _final("b.md", 2)),
    ]

    _committed(lines, PREFIX, finished)

    assert dict.__getitem__(lines, PREFIX + "a.md")["status"] == "indexed"
    assert dict.__getitem__(lines, PREFIX + "a.md")["chunks"] == 3
    assert dict.__getitem__(lines, PREFIX + "b.md" + SIDECAR)["status"] == "indexed"
    assert dict.__getitem__(lines, PREFIX + "c.md")["status"] == "pending"  # its batch has not committed


def test_a_failed_commit_says_why_on_its_files_line() -> None:
    lines = UnscannableLines({PREFIX + "a.md": _pending("a.md")})

    _committed(lines, PREFIX, [(PREFIX + "a.md", RuntimeError("the load failed"))])

    line = dict.__getitem__(lines, PREFIX + "a.md")
    assert line["status"] == "failed"
    assert "the load failed" in (line["reason"] or "")
