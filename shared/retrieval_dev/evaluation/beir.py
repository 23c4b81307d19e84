"""A judged collection in the BEIR layout, read into the same ``Collection`` as the Cranfield layout.

A BEIR folder holds ``corpus.jsonl`` (``{"_id", "title", "text", ...}`` per line), ``queries.jsonl``
(``{"_id", "text", ...}``) and ``qrels/<split>.tsv`` (a header line, then ``query-id``, ``corpus-id``,
``score`` separated by tabs). As BEIR's own evaluation does, only the queries judged in the split are
evaluated. Ids are kept as strings.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .collection import Collection, CollectionFileError, Document, Query

DEFAULT_SPLIT = "test"


def read_beir(directory: Path, split: str = DEFAULT_SPLIT) -> Collection:
    """Read and validate a BEIR folder; raises ``CollectionFileError`` naming the bad file and line."""
    qrels_path = directory / "qrels" / f"{split}.tsv"
    judged = _qrels(qrels_path)
    corpus, topics = directory / "corpus.jsonl", directory / "queries.jsonl"
    try:
        documents = [
            Document(id=row["_id"], title=row.get("title") or "", body=row.get("text") or "")
            for row in _json_lines(corpus, required=("_id",))
        ]
    except ValidationError as error:
        raise CollectionFileError(f"{corpus}: a title or text is not a string ({error})") from error
    try:
        queries = [
            Query(id=row["_id"], text=row["text"])
            for row in _json_lines(topics, required=("_id", "text"))
            if row["_id"] in judged
        ]
    except ValidationError as error:
        raise CollectionFileError(f"{topics}: a query text is empty or not a string ({error})") from error
    if not queries:
        raise CollectionFileError(f"{qrels_path}: no query of queries.jsonl is judged in this split")
    return Collection(documents, queries, judged)


def _json_lines(path: Path, *, required: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    try:
        with path.open(encoding="utf-8") as stream:
            for number, line in enumerate(stream, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as error:
                    raise CollectionFileError(f"{path}:{number}: not JSON ({error.msg})") from error
                if not isinstance(row, dict) or any(key not in row for key in required):
                    raise CollectionFileError(f"{path}:{number}: needs the fields {', '.join(required)}")
                yield {**row, "_id": str(row["_id"])}
    except FileNotFoundError as error:
        raise CollectionFileError(
            f"{path}: no such file (a BEIR folder has corpus.jsonl and queries.jsonl)"
        ) from error


def _qrels(path: Path) -> dict[str, dict[str, int]]:
    judged: dict[str, dict[str, int]] = {}
    try:
        with path.open(encoding="utf-8", newline="") as stream:
            rows = csv.reader(stream, delimiter="\t")
            header = next(rows, None)
            if header is None or [h.strip().lower() for h in header[:3]] != [
                "query-id",
                "corpus-id",
                "score",
            ]:
                raise CollectionFileError(
                    f"{path}: the first line must be the header query-id, corpus-id, score"
                )
            for number, row in enumerate(rows, start=2):
                if not row:
                    continue
                try:
                    query_id, doc_id, score = row[0], row[1], int(row[2])
                except (IndexError, ValueError) as error:
                    raise CollectionFileError(
                        f"{path}:{number}: expected query-id, corpus-id, integer score"
                    ) from error
                judged.setdefault(query_id, {})[doc_id] = score
    except FileNotFoundError as error:
        raise CollectionFileError(
            f"{path}: no such file (give the split whose qrels the folder has)"
        ) from error
    return judged
