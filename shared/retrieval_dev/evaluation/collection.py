"""A judged test collection in the Cranfield layout, and its documents as loader input.

Files (all JSON arrays): ``documents.json`` ``[{id, title, author, body}]``, queries ``[{id, text}]`` and
qrels ``[{queryId, docId, relevance}]``. Ids may be numbers or strings; they are compared as strings.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from retrieval_core.errors import InvalidRequestError

DATA_ENV = "RETRIEVAL_EVAL_DATA"
"""Names the folder holding the judged collections (``cranfield/``, ``cacm/``) when ``--data`` does not.
There is no default: the collections are not the team's work and are never in the repository, so a user
names their own folder (``make eval`` and the tests name the team's shared data set beside the checkout)."""
WHERE = f"the collections are read from the folder --data DIR or ${DATA_ENV} names"
CONTEXT_ID = "cran"
DOC_ID_PREFIX = f"{CONTEXT_ID}:d-"
# Items need a creation time; the collection has none, so every document gets this fixed one.
CREATED_AT = "1968-01-01T00:00:00Z"


T = TypeVar("T")


class CollectionFiles(NamedTuple):
    documents: Path
    queries: Path
    qrels: Path


class CollectionFileError(InvalidRequestError):
    """A collection file is missing or not in the expected shape."""


def data_root(given: Path | None = None) -> Path:
    """Where the collections are: ``given`` (``--data``), else ``$RETRIEVAL_EVAL_DATA``; raises
    ``CollectionFileError`` when neither names a folder."""
    if given is not None:
        return given
    named = os.environ.get(DATA_ENV)
    if not named:
        raise CollectionFileError(
            f"no collections folder: give --data DIR or set {DATA_ENV} to a folder holding cranfield/ and "
            "cacm/ (or name one collection's files with --documents, --queries and --qrels)"
        )
    return Path(named)


def cranfield_dev(root: Path) -> CollectionFiles:
    """Cranfield's dev half (the other half is held back on purpose and is not in the data set)."""
    folder = root / "cranfield"
    return CollectionFiles(folder / "documents.json", folder / "queries-dev.json", folder / "qrels-dev.json")


def cacm(root: Path) -> CollectionFiles:
    folder = root / "cacm"
    return CollectionFiles(folder / "documents.json", folder / "queries.json", folder / "qrels.json")


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

    @property
    def page(self) -> str:
        """The document as a Markdown page, the way users bring pages: ``# title``, then the body (the
        title is then the page's entity, docs/DOCUMENTS.md); the body alone when it has no title."""
        title = " ".join(self.title.split())
        return f"# {title}\n\n{self.body.strip()}\n" if title else self.text


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
        raise CollectionFileError(f"{path}: no such file ({WHERE})") from error
    except (json.JSONDecodeError, ValidationError) as error:
        raise CollectionFileError(f"{path}: not a collection file ({error})") from error


def item_id(doc_id: str) -> str:
    return f"{DOC_ID_PREFIX}{doc_id}"


FILE_CHUNK = re.compile(rf"^{CONTEXT_ID}:doc/(?P<id>[^/#]+)\.(?:txt|md)#\d+$")
"""A chunk of the collection ingested as files (``evaluation/as_files.py``): ``cran:doc/12.txt#0000``."""
PAGE_CHUNK = re.compile(rf"^{CONTEXT_ID}:doc/(?P<id>[^#]+\.html?)#\d+$")
"""A chunk of a documentation page synced with its folder's tree (``evaluation/documentation.py``): the
page's path is its id, ``cran:doc/usage/configuration.html#0003`` -> ``usage/configuration.html``."""


def doc_id_of(item_id: str) -> str | None:
    """The collection's document id behind an item id (a loaded document, or a chunk of its file), or
    None for an item that is not one of them."""
    if item_id.startswith(DOC_ID_PREFIX):
        return item_id.removeprefix(DOC_ID_PREFIX)
    chunk = FILE_CHUNK.match(item_id) or PAGE_CHUNK.match(item_id)
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
