"""The hostile files of issue 52, generated at test time (nothing large is committed): each is a file
name and its bytes. Sizes are the issue's own (a 9.9 MB CSV row of 1,000,000 columns, 100,000
code-fence lines of Markdown, an 8 KB sidecar nested 4,000 deep), so a test of them is a test of the
reported case."""

from __future__ import annotations


def wide_csv(columns: int = 1_000_000) -> bytes:
    """One header row and one data row of ``columns`` columns (the issue's 9.9 MB file)."""
    header = ",".join(f"c{n}" for n in range(columns))
    row = ",".join("v" for _ in range(columns))
    return f"{header}\n{row}\n".encode()


def fenced_markdown(lines: int = 100_000) -> bytes:
    """``lines`` code-fence lines and nothing else (400 KB at the issue's 100,000)."""
    return b"```\n" * lines


def deep_sidecar(depth: int = 4_000) -> bytes:
    """A sidecar nested ``depth`` levels deep (8 KB at 4,000): a RecursionError for a recursive parser."""
    return b'{"metadataAttributes": {"k": ' + b"[" * depth + b"]" * depth + b"}}"


def long_lines_text(characters: int = 2_000_000) -> bytes:
    """One word of ``characters`` characters: no sentence, no space to cut at."""
    return b"x" * characters


def many_sentences(sentences: int = 200_000) -> bytes:
    """Short sentences in one paragraph: many chunks from a small file (3 MB at 200,000)."""
    return b"Ok. " * sentences


HOSTILE = {
    "wide.csv": wide_csv,
    "fences.md": fenced_markdown,
    "one_word.txt": long_lines_text,
    "sentences.txt": many_sentences,
}
"""Every generated hostile document by file name (the deep sidecar belongs beside a good file)."""
