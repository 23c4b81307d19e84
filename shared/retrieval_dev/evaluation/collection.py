"""A judged test collection in the Cranfield layout, and its documents as loader input.

Files (all JSON arrays): ``documents.json`` ``[{id, title, author, body}]``, queries ``[{id, text}]`` and
qrels ``[{queryId, docId, relevance}]``. Ids may be numbers or strings; they are compared as strings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from retrieval_core.errors import InvalidRequestError

from ..project import project_path

DEFAULT_DATA_DIR = project_path("data/cranfield")
"""Relative to the repository root, where ``make eval`` runs (data/cranfield/README.md: provenance)."""
CONTEXT_ID = "cran"
DOC_ID_PREFIX = f"{CONTEXT_ID}:d-"
# Items need a creation time; the collection has none, so every document gets this fixed one.
CREATED_AT = "1968-01-01T00:00:00Z"


T = TypeVar("T")


class CollectionFileError(InvalidRequestError):
    """A collection file is missing or not in the expected shape."""


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True)


class Document(_Loose):
    id: str
    title: str = ""
    body: str = ""

    @property
    def text(self) -> str:
        """Title, then body: what is indexed and embedded (empty for the few blank documents)."""
        return f"{self.title}\n{self.body}".strip()


class Query(_Loose):
    id: str
    text: str = Field(min_length=1)


class Judgment(_Loose):
    query_id: str = Field(alias="queryId")
    doc_id: str = Field(alias="docId")
    relevance: int


_DOCUMENTS = TypeAdapter(list[Document])
_QUERIES = TypeAdapter(list[Query])
_JUDGMENTS = TypeAdapter(list[Judgment])


@dataclass(frozen=True)
class Collection:
    documents: list[Document]
    queries: list[Query]
    qrels: dict[str, dict[str, int]]  # query id -> document id -> grade


def read_collection(documents: Path, queries: Path, qrels: Path) -> Collection:
    """Read and validate the three files; raises ``CollectionFileError`` naming the bad file."""
    judged: dict[str, dict[str, int]] = {}
    for judgment in _read(qrels, _JUDGMENTS):
        judged.setdefault(judgment.query_id, {})[judgment.doc_id] = judgment.relevance
    return Collection(_read(documents, _DOCUMENTS), _read(queries, _QUERIES), judged)


def _read(path: Path, shape: TypeAdapter[T]) -> T:
    try:
        return shape.validate_python(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError as error:
        raise CollectionFileError(f"{path}: no such file") from error
    except (json.JSONDecodeError, ValidationError) as error:
        raise CollectionFileError(f"{path}: not a collection file ({error})") from error


def item_id(doc_id: str) -> str:
    return f"{DOC_ID_PREFIX}{doc_id}"


FILE_CHUNK = re.compile(rf"^{CONTEXT_ID}:doc/(?P<id>[^/#]+)\.txt#\d+$")
"""A chunk of the collection ingested as files (``evaluation/as_files.py``): ``cran:doc/12.txt#0000``."""


def doc_id_of(item_id: str) -> str | None:
    """The collection's document id behind an item id (a loaded document, or a chunk of its file), or
    None for an item that is not one of them."""
    if item_id.startswith(DOC_ID_PREFIX):
        return item_id.removeprefix(DOC_ID_PREFIX)
    chunk = FILE_CHUNK.match(item_id)
    return chunk["id"] if chunk else None


def item_lines(documents: Sequence[Document]) -> list[str]:
    """The documents as item JSON Lines for the loader: ``document`` items whose text is title + body.
    Blank documents are left out (an item needs text); nothing can retrieve them anyway."""
    return [
        json.dumps(
            {
                "context_id": CONTEXT_ID,
                "id": item_id(doc.id),
                "kind": "document",
                "text": doc.text,
                "created_at": CREATED_AT,
            }
        )
        for doc in documents
        if doc.text
    ]
