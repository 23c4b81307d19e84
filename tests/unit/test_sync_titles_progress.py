"""``retrieval sync`` reads every title before its first file (the pre-pass). Its progress is told every
``TITLES_PROGRESS`` files and once more when it is over, with the whole count: the bar ends full, and
``sync-scale`` starts its first window there, so what grows with the folder before the first file is
not billed to the first files (at 50,000 pages, a quarter of the first window's wall time)."""

from __future__ import annotations

from pathlib import Path

from retrieval_dev.cli.folder_files import FolderFile
from retrieval_dev.cli.sync import SIDECAR, TITLES_PROGRESS, _titles


def _folder(tmp_path: Path, documents: int) -> tuple[dict[str, FolderFile], list[str]]:
    local: dict[str, FolderFile] = {}
    for number in range(documents):
        name = f"page{number:04d}.md"
        (tmp_path / name).write_text(f"# Page {number}\n\nText.\n")
        local[f"contexts/acme/{name}"] = FolderFile(tmp_path, (name,))
    (tmp_path / f"page0000.md{SIDECAR}").write_text("{}")
    local[f"contexts/acme/page0000.md{SIDECAR}"] = FolderFile(tmp_path, (f"page0000.md{SIDECAR}",))
    return local, sorted(local, key=lambda key: (not key.endswith(SIDECAR), key))


def test_the_pre_pass_tells_its_progress_and_its_end_with_every_document_counted(tmp_path: Path) -> None:
    documents = 2 * TITLES_PROGRESS + 7
    local, order = _folder(tmp_path, documents)
    told: list[int] = []
    titles = _titles(local, order, lambda key, body: True, told.append)
    assert told == [TITLES_PROGRESS, 2 * TITLES_PROGRESS, documents]  # sidecars are not counted
    assert len(titles) == documents
    assert titles["contexts/acme/page0003.md"] == "Page 3"


def test_files_it_will_not_send_are_counted_as_read_but_give_no_title(tmp_path: Path) -> None:
    local, order = _folder(tmp_path, 5)
    told: list[int] = []
    titles = _titles(local, order, lambda key, body: key.endswith("0001.md"), told.append)
    assert told == [5]
    assert list(titles) == ["contexts/acme/page0001.md"]
