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
