"""`make docs-check`'s printout names a citation the way a reader opens it."""

from dev.docs_check import _report

RECORD = {
    "files": 2,
    "html_pages": 1,
    "chunks": 3,
    "statuses": {"indexed": 2},
    "seconds": 1.0,
    "exit_code": 0,
    "longest_silence_seconds": 0.5,
    "stderr_lines": 4,
    "navigation_skipped": [],
    "citations": [
        {"question": "how to build", "path": "usage/build.html", "anchor": "builders", "opens": True},
        {"question": "the source", "path": "_sources/index.rst.txt", "anchor": None, "opens": True},
    ],
}


def test_a_citation_with_an_anchor_is_printed_as_path_and_fragment() -> None:
    assert "opens: usage/build.html#builders  <- how to build" in _report(RECORD, [])


def test_a_citation_to_a_file_without_anchors_is_printed_as_its_path_alone() -> None:
    report = _report(RECORD, [])
    assert "opens: _sources/index.rst.txt  <- the source" in report
    assert "#None" not in report
