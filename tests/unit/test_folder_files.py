"""What a sync may read of its folder (retrieval_dev/cli/folder_files.py): regular files only, no link
followed (to a file or a directory), names S3 cannot take refused by name; and `retrieval ingest`'s
refusals of a path or key, each one line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from retrieval_dev.cli import folder_files
from retrieval_dev.cli.folder_files import (
    DIRECTORY_LINK_REASON,
    LINK_REASON,
    NOT_REGULAR_REASON,
    UnsafePathError,
    key_problem,
    printable,
    read_regular,
)
from retrieval_dev.cli.ingest import RefusedFileError, readable

from tests.deep_folders import flattened, nested

PREFIX = "contexts/acme/"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside"
    (secret / "dir").mkdir(parents=True)
    (secret / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (secret / "dir" / "inner.txt").write_text("outside the folder")
    return secret


def _fates(folder: Path) -> tuple[set[str], dict[str, tuple[str, str]]]:
    files, refused = folder_files.folder_files(folder, PREFIX)
    return set(files), {r.key: (r.status, r.reason) for r in refused}


def test_links_are_skipped_and_regular_files_kept(tmp_path: Path, outside: Path) -> None:
    folder = tmp_path / "kb"
    (folder / "sub").mkdir(parents=True)
    (folder / "good.txt").write_text("inside")
    (folder / "sub" / "deep.md").write_text("# inside")
    (folder / "passwd_link.txt").symlink_to(outside / "passwd")
    (folder / "inner_link.txt").symlink_to(folder / "good.txt")  # inside, still not followed
    (folder / "dangling.txt").symlink_to(tmp_path / "nothing")
    (folder / "linked_dir").symlink_to(outside / "dir")
    os.mkfifo(folder / "pipe.txt")
    files, refused = _fates(folder)
    assert files == {PREFIX + "good.txt", PREFIX + "sub/deep.md"}
    assert refused == {
        "passwd_link.txt": ("skipped", LINK_REASON),
        "inner_link.txt": ("skipped", LINK_REASON),
        "dangling.txt": ("skipped", LINK_REASON),
        "linked_dir": ("skipped", DIRECTORY_LINK_REASON),
        "pipe.txt": ("skipped", NOT_REGULAR_REASON),
    }


def test_names_s3_cannot_take_fail_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "new\nline.txt").write_text("a")
    (folder / "tab\there.txt").write_text("a")
    long_dir = folder / ("d" * 200) / ("e" * 200) / ("f" * 200) / ("g" * 200) / ("h" * 200)
    long_dir.mkdir(parents=True)
    (long_dir / "long.txt").write_text("a")
    (folder / "fine é.txt").write_text("a")
    files, refused = _fates(folder)
    assert files == {PREFIX + "fine é.txt"}
    assert refused["new\\nline.txt"][0] == refused["tab\\there.txt"][0] == "failed"
    assert "control character" in refused["new\\nline.txt"][1]
    (long_key,) = (key for key in refused if key.endswith("long.txt"))
    assert refused[long_key][0] == "failed" and "1,024 bytes" in refused[long_key][1]


def test_key_problems() -> None:
    assert key_problem(PREFIX + "a/b c.txt") is None
    assert key_problem(PREFIX + "x" * (1024 - len(PREFIX))) is None
    assert "1,025 bytes" in (key_problem(PREFIX + "x" * (1025 - len(PREFIX))) or "")
    assert "1,024" in (key_problem(PREFIX + "é" * 510) or "")  # 1,034 bytes in UTF-8
    assert "control" in (key_problem(PREFIX + "a\x7f") or "")
    assert "not UTF-8" in (key_problem(PREFIX + os.fsdecode(b"\xff.txt")) or "")


def test_printable_keeps_a_report_line_one_line() -> None:
    assert printable("a\nb\x00c") == "a\\nb\\x00c"
    assert printable(os.fsdecode(b"\xff")) == "\\udcff"
    assert printable("é ok") == "é ok"


def test_the_read_never_follows_a_link(tmp_path: Path, outside: Path) -> None:
    link = tmp_path / "link.txt"
    link.symlink_to(outside / "passwd")
    with pytest.raises(UnsafePathError) as refused:
        read_regular(link)
    assert refused.value.reason == LINK_REASON
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(UnsafePathError):
        read_regular(tmp_path / "pipe")  # refused at once, never blocked on
    assert read_regular(outside / "passwd").startswith(b"root:")


def test_ingest_refuses_a_link_a_foreign_key_and_a_bad_name(tmp_path: Path, outside: Path) -> None:
    link = tmp_path / "passwd_link.txt"
    link.symlink_to(outside / "passwd")
    good = tmp_path / "good.txt"
    good.write_text("inside")
    for path, key, words in [
        (link, PREFIX + "passwd_link.txt", "symbolic link"),
        (good, "contexts/globex/x.txt", "not a key under contexts/acme/"),
        (good, "elsewhere/x.txt", "not a key under contexts/acme/"),
        (good, PREFIX + "a\nb.txt", "control character"),
        (tmp_path / "missing.txt", PREFIX + "missing.txt", "no such file"),
    ]:
        with pytest.raises(RefusedFileError) as refused:
            readable(path, key, "acme")
        assert words in str(refused.value) and "\n" not in str(refused.value)
    assert readable(good, PREFIX + "good.txt", "acme") == b"inside"


def test_documents_query_refuses_a_malformed_limit_by_field() -> None:
    from retrieval_core.documents.listing import list_request
    from retrieval_core.entrypoints.status import status_of
    from retrieval_core.errors import BadRequestError

    assert list_request("a/", None, None).limit == 100
    assert list_request("a/", "500", None).limit == 100  # clamped, as documented
    for limit in ("-1", "0", "abc", "1.5", "", "\uff11"):
        with pytest.raises(BadRequestError) as refused:
            list_request("a/", limit, None)
        assert refused.value.details["field"] == "limit" and status_of(refused.value) == 400


def test_a_documents_token_opens_only_for_its_context_and_prefix_and_names_no_file() -> None:
    import base64

    from retrieval_core import base64url
    from retrieval_core.documents.listing import ListingTokens
    from retrieval_core.entrypoints.status import status_of
    from retrieval_core.errors import BadRequestError

    tokens = ListingTokens(b"k" * 32)
    token = tokens.issue("acme", "a/", "a/one.txt")
    assert tokens.open(token, "acme", "a/") == "a/one.txt"
    assert tokens.issue("acme", "a/", "a/one.txt") != token  # a fresh nonce each time
    assert b"one.txt" not in base64url.decode(token.split(".")[1])
    version, body, mac = token.split(".")
    flipped = body[:-1] + ("A" if body[-1] != "A" else "B")
    unsigned = base64.urlsafe_b64encode(b'["d1","a/","a/one.txt"]').decode().rstrip("=")
    refusals = [
        (token, "globex", "a/"),  # another context's token
        (token, "acme", "b/"),  # another prefix's
        (f"{version}.{flipped}.{mac}", "acme", "a/"),  # one byte altered
        (ListingTokens(b"o" * 32).issue("acme", "a/", "a/one.txt"), "acme", "a/"),  # another key's
        (unsigned, "acme", "a/"),  # the old unsigned spelling, forged
        ("garbage", "acme", "a/"),
        ("a/one.txt", "acme", "a/"),
    ]
    messages = set()
    for bad, context, prefix in refusals:
        with pytest.raises(BadRequestError) as refused:
            tokens.open(bad, context, prefix)
        assert refused.value.details["field"] == "next_token" and status_of(refused.value) == 400
        messages.add(str(refused.value))
    assert len(messages) == 1  # a foreign token is refused exactly as a garbage one


def test_a_folder_ten_thousand_deep_is_a_line_of_the_report(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "top.txt").write_text("At the top.")
    nested(folder, 10_000)
    try:
        files, refused = folder_files.folder_files(folder, PREFIX)
        assert set(files) == {PREFIX + "top.txt"}
        (deepest,) = refused
        assert deepest.status == "failed" and deepest.reason == folder_files.DEPTH_REASON
        assert deepest.key == "/".join(["d"] * (folder_files.MAX_DEPTH + 1))
        assert folder_files.count_files(folder, lambda key: True) == 1
    finally:
        flattened(folder)
    deep = folder / "deep"
    deep.mkdir()
    nested(deep, 500, "x.txt")  # as deep as a key can be (1,005 bytes): walked and read
    try:
        files, refused = folder_files.folder_files(deep, "")
        (key,) = (k for k in files if k.endswith("x.txt"))
        assert refused == [] and files[key].read() == b"At the bottom of the well."
    finally:
        flattened(deep)


def test_a_hard_linked_file_is_skipped_and_never_read(tmp_path: Path, outside: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    os.link(outside / "passwd", folder / "passwd.txt")
    (folder / "good.txt").write_text("inside")
    files, refused = _fates(folder)
    assert files == {PREFIX + "good.txt"}
    assert refused == {"passwd.txt": ("skipped", folder_files.hard_link_reason(2))}
    with pytest.raises(UnsafePathError) as read:
        read_regular(folder / "passwd.txt")
    assert read.value.reason == folder_files.hard_link_reason(2)


def test_a_folder_swapped_for_a_link_after_the_walk_is_never_followed(tmp_path: Path, outside: Path) -> None:
    folder = tmp_path / "kb"
    (folder / "dir").mkdir(parents=True)
    (folder / "dir" / "inner.txt").write_text("inside")
    files, _ = folder_files.folder_files(folder, PREFIX)
    walked = files[PREFIX + "dir/inner.txt"]
    (folder / "dir").rename(tmp_path / "moved")
    (folder / "dir").symlink_to(outside / "dir")  # holds an inner.txt too: the outside one
    with pytest.raises(UnsafePathError) as refused:
        walked.read()
    assert refused.value.reason == folder_files.SWAPPED_REASON


def test_a_file_over_its_size_bound_is_never_read(tmp_path: Path) -> None:
    big = tmp_path / "big.pdf"
    with big.open("wb") as sparse:  # 1 GiB on paper, nothing on disk
        sparse.truncate(1 << 30)
    walked = folder_files.FolderFile(tmp_path, ("big.pdf",))
    bound = folder_files.size_bound(PREFIX + "big.pdf")
    with pytest.raises(folder_files.OversizedFileError) as refused:
        walked.read(bound)
    assert refused.value.reason == "larger than 50 MB (the size limit)"
    assert folder_files.size_bound(PREFIX + "items.jsonl") is None  # the loader bounds JSON Lines
