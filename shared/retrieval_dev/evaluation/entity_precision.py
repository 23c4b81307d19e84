"""How precise the offline entity extractor is on real files (docs/DOCUMENTS.md, "Entity precision").

``dump`` runs ``RuleBasedExtractor`` over every document under the folders given (parsed and chunked as
ingest does: fixed chunks of Bedrock's default size) and writes one JSON line per distinct name a file
yields: the file, the name, its type, how many chunks carry it and, with ``--context``, a few words
either side of its first occurrence for whoever labels it (that text is for reading, never to commit).
A labeller adds ``"correct": true|false`` to each line. ``score`` runs the extractor again and reports
the share of its mentions (one per chunk a name is found in) whose (file, name) is labelled correct; a
mention nobody labelled is counted apart, never as right or wrong.

    python -m retrieval_dev.evaluation.entity_precision dump /usr/share/doc/libffi8 --out m.jsonl
    python -m retrieval_dev.evaluation.entity_precision score --labels labels.jsonl /usr/share/doc/libffi8
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from retrieval_core.documents.chunking import ChunkingConfig, chunk_document
from retrieval_core.documents.entities import EntityExtractor, FoundEntity
from retrieval_core.documents.errors import DocumentRejectedError
from retrieval_core.documents.formats import format_of
from retrieval_core.documents.limits import DOCUMENT_LIMITS
from retrieval_core.documents.name_rules import RuleBasedExtractor
from retrieval_core.documents.parsers import parse

WINDOW = 512
"""The local embedder's window: chunks as a local sync cuts them."""
CONTEXT_CHARS = 80


@dataclass(frozen=True, slots=True)
class Mention:
    file: str
    chunk: int
    name: str
    type: str


def chunk_texts(path: Path) -> list[str]:
    """The file's chunk texts as ingest makes them ([] for a file it cannot read)."""
    fmt = format_of(path.name)
    if fmt is None:
        return []
    try:
        parsed = parse(fmt, path.read_bytes(), DOCUMENT_LIMITS)
    except DocumentRejectedError:
        return []
    return [chunk.text for chunk in chunk_document(parsed, ChunkingConfig(), window=WINDOW)]


def documents(folders: Sequence[Path]) -> Iterator[Path]:
    for folder in folders:
        files = [folder] if folder.is_file() else sorted(p for p in folder.rglob("*") if p.is_file())
        yield from (path for path in files if format_of(path.name) is not None)


def mentions(folders: Sequence[Path], extractor: EntityExtractor) -> Iterator[tuple[Mention, str]]:
    """Every mention the extractor makes, with the text of the chunk it is found in."""
    for path in documents(folders):
        texts = chunk_texts(path)
        found: list[list[FoundEntity]] = extractor.extract(texts) if texts else []
        for position, (text, names) in enumerate(zip(texts, found, strict=True)):
            for entity in names:
                yield Mention(str(path), position, entity.name, entity.type), text


def dump(folders: Sequence[Path], with_context: bool) -> Iterator[dict[str, object]]:
    """One row per distinct (file, name): what a labeller judges."""
    rows: dict[tuple[str, str], dict[str, object]] = {}
    for mention, text in mentions(folders, RuleBasedExtractor()):
        row = rows.setdefault(
            (mention.file, mention.name),
            {"file": mention.file, "name": mention.name, "type": mention.type, "chunks": 0},
        )
        row["chunks"] = int(str(row["chunks"])) + 1
        if with_context and "context" not in row:
            at = text.find(mention.name)
            row["context"] = text[max(0, at - CONTEXT_CHARS) : at + len(mention.name) + CONTEXT_CHARS]
    yield from rows.values()


def score(folders: Sequence[Path], labels: dict[tuple[str, str], bool]) -> dict[str, float | int]:
    verdicts: Counter[str] = Counter()
    for mention, _ in mentions(folders, RuleBasedExtractor()):
        verdict = labels.get((mention.file, mention.name))
        verdicts["unlabelled" if verdict is None else "correct" if verdict else "wrong"] += 1
    judged = verdicts["correct"] + verdicts["wrong"]
    return {
        "mentions": judged + verdicts["unlabelled"],
        "correct": verdicts["correct"],
        "wrong": verdicts["wrong"],
        "unlabelled": verdicts["unlabelled"],
        "precision": round(verdicts["correct"] / judged, 3) if judged else 0.0,
    }


def read_labels(path: Path) -> dict[tuple[str, str], bool]:
    rows = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return {(row["file"], row["name"]): bool(row["correct"]) for row in rows if "correct" in row}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="entity_precision", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dumping = commands.add_parser("dump", help="the extractor's names, one line per (file, name)")
    dumping.add_argument("folders", nargs="+", type=Path)
    dumping.add_argument("--out", type=Path, required=True)
    dumping.add_argument("--context", action="store_true", help="words around each name, to label by")
    scoring = commands.add_parser("score", help="precision of the mentions against hand labels")
    scoring.add_argument("folders", nargs="+", type=Path)
    scoring.add_argument("--labels", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "dump":
        rows = list(dump(args.folders, args.context))
        args.out.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
        print(f"{len(rows)} names, {sum(int(str(r['chunks'])) for r in rows)} mentions -> {args.out}")
    else:
        print(json.dumps(score(args.folders, read_labels(args.labels))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
