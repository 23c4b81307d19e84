"""`make fuzz`'s documents campaign (opt-in: not a `test_` file, so `make test` does not collect it):
random files through the ingest use case (in-memory fakes, a stub embedder) and random names through the
sync's name checks. Every file ends `indexed` or `failed` with a reason, never an exception; a name is
taken or refused, never an exception; and the process stays under `MAX_RSS_MB` whatever the files.

Files: random formats (every supported suffix, and ones none supports), sizes up to 400 KB, random
bytes or text, CSVs up to 5,000 columns, Markdown of fences and headings, HTML nested to random depths,
sidecars nested 1-6,000 deep. FUZZ_DOCUMENT_EXAMPLES sets the campaign's size (default 300)."""

from __future__ import annotations

import os
import resource
from collections.abc import Sequence
from typing import Any

from fakes_documents import MemoryDocumentStatuses
from fakes_ingest import MemoryObjects, RecordingSink
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from retrieval_core.documents.entities import MentionFinder
from retrieval_core.documents.limits import DocumentLimits
from retrieval_core.documents.policy import ChunkingPolicy
from retrieval_core.ingest.document_files import DocumentFiles
from retrieval_core.models.ingest import ObjectRef
from retrieval_dev.cli.folder_files import key_problem, printable

EXAMPLES = int(os.environ.get("FUZZ_DOCUMENT_EXAMPLES", "300"))
MAX_RSS_MB = 1_024
SUFFIXES = [".txt", ".md", ".csv", ".html", ".docx", ".pdf", ".markdown", ".htm"]


class StubEmbedder:
    dimension = 2
    name = "local:all-MiniLM-L6-v2-int8"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]


class NoVectors:
    def vectors(self, context_id: str, ids: Sequence[str]) -> dict[str, Any]:
        return {}


def _files(objects: MemoryObjects) -> DocumentFiles:
    return DocumentFiles(
        sink=RecordingSink(),
        objects=objects,
        statuses=MemoryDocumentStatuses(),
        embedder=StubEmbedder(),
        vectors=NoVectors(),
        mentions=MentionFinder(None, None),
        chunking=ChunkingPolicy(),
        metadata={},
        limits=DocumentLimits(seconds=30),
    )


def _nested(depth: int, opener: bytes, closer: bytes) -> bytes:
    return opener * depth + closer * depth


BODIES = st.one_of(
    st.binary(max_size=4096),
    st.text(max_size=4096).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.integers(1, 5_000).map(lambda n: (",".join(f"c{i}" for i in range(n)) + "\n" + "v," * n).encode()),
    st.integers(1, 100_000).map(lambda n: b"```\n" * n),
    st.integers(1, 20_000).map(lambda n: b"# h\n\ntext. " * n),
    st.integers(1, 5_000).map(lambda n: _nested(n, b"<div>", b"</div>")),
    st.integers(1, 400_000).map(lambda n: b"x" * n),
)
SIDECARS = st.one_of(
    st.none(),
    st.integers(1, 6_000).map(lambda d: b'{"metadataAttributes": {"k": ' + _nested(d, b"[", b"]") + b"}}"),
    st.binary(max_size=512),
    st.just(b'{"metadataAttributes": {"team": "x"}}'),
)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(SUFFIXES), BODIES, SIDECARS)
def test_every_file_ends_indexed_or_failed_with_a_reason(
    suffix: str, body: bytes, sidecar: bytes | None
) -> None:
    objects = MemoryObjects()
    key = f"contexts/acme/f{suffix}"
    objects.blobs[("b", key)] = body
    if sidecar is not None:
        objects.blobs[("b", key + ".metadata.json")] = sidecar
    status = _files(objects).created(ObjectRef("b", key, "v1", sequencer="01"))
    assert status is not None and status.status in {"indexed", "failed"}
    assert status.status == "indexed" or status.reason
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 < MAX_RSS_MB


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.text(max_size=1_200))
def test_every_name_is_taken_or_refused_and_reported_on_one_line(name: str) -> None:
    problem = key_problem(f"contexts/acme/{name}")
    assert problem is None or problem.startswith("has ")
    assert "\n" not in printable(name)
