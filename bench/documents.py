"""Document ingest throughput: a generated set of Markdown files and multi-page PDFs, each through the
ingest handler (moto's S3, the handler run per ObjectCreated event: parse, chunk, embed, entity mentions,
load, status) beside a plain loop that parses the same files, cuts them at paragraphs, embeds with the
same embedder and bulk-indexes them with opensearch-py into a bare index: what a team would write by
hand. Both in one run, files/s and pages/s each (a Markdown file counts as one page)."""

from __future__ import annotations

import io
import random
import time
import uuid
from typing import Any

from retrieval_core import bootstrap
from retrieval_core.config import Settings

from dev.ingest_resources import scratch_ingest
from dev.tables import scratch_space

from .ingest import _aws_endpoints
from .progress import say

PDF_PAGES = 10
WORDS = [
    "wing",
    "flutter",
    "spar",
    "rib",
    "lift",
    "drag",
    "engine",
    "fuel",
    "tank",
    "hangar",
    "crew",
    "pilot",
    "radar",
    "beacon",
    "ledger",
    "refund",
]


def generated(markdown_files: int, pdf_files: int, seed: int = 7) -> dict[str, tuple[bytes, int]]:
    """key (relative) -> (bytes, pages): fixed-seed prose under headings, and PDFs of ``PDF_PAGES``."""
    from tests.document_fixtures import pdf

    rng = random.Random(seed)

    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + "."

    def paragraph() -> str:
        return " ".join(sentence() for _ in range(rng.randint(3, 6)))

    files: dict[str, tuple[bytes, int]] = {}
    for n in range(markdown_files):
        sections = "\n\n".join(f"## Part {s}\n\n{paragraph()}\n\n{paragraph()}" for s in range(3))
        files[f"notes/n{n:05d}.md"] = (f"# Note {n}\n\n{sections}\n".encode(), 1)
    for n in range(pdf_files):
        files[f"reports/r{n:04d}.pdf"] = (pdf([paragraph() for _ in range(PDF_PAGES)]), PDF_PAGES)
    return files


def measure(base: Settings, files_count: int) -> dict[str, Any]:
    files = generated(files_count, max(2, files_count // 20))
    pages = sum(p for _, p in files.values())
    results: dict[str, Any] = {"files": len(files), "pages": pages}
    endpoint = base.dynamodb_endpoint or ""
    with (
        _aws_endpoints(endpoint),
        scratch_space(base, "bench-docs") as settings,
        scratch_ingest(base, "bench-docs") as resources,
    ):
        target = settings.model_copy(update={"ingest_queue_url": None})
        with bootstrap.use(bootstrap.Container(target)):
            from retrieval_dev.cli.ingest import s3_event, sequencer
            from retrieval_dev.cli.lambda_runtime import invoke

            from dev.ingest_resources import aws_client

            container = bootstrap.container()
            container.ingest  # noqa: B018 - the warm container, not its cold start, is measured
            container.embedder.embed(["warm up"])
            s3 = aws_client("s3", endpoint)
            say(f"documents: {len(files):,} files ({pages:,} pages) through the ingest handler")
            started = time.perf_counter()
            chunks = 0
            for key, (body, _) in files.items():
                full = f"contexts/bench/{key}"
                put = s3.put_object(Bucket=resources.bucket, Key=full, Body=body)
                event = s3_event(
                    resources.bucket, full, size=len(body), etag=put["ETag"], version_id=put["VersionId"]
                )
                event["Records"][0]["s3"]["object"]["sequencer"] = sequencer()
                document = invoke("ingest", event)["body"]["objects"][0]["document"]
                assert document["status"] == "indexed", document
                chunks += document["chunks"]
            results["handler"] = _side(len(files), pages, time.perf_counter() - started, chunks)
            say("documents: the same files through a plain parse + bulk-index loop")
            results["plain"] = _plain_loop(target, files, container.embedder)
    results["handler_over_plain"] = results["handler"]["seconds"] / results["plain"]["seconds"]
    return results


def _plain_loop(settings: Settings, files: dict[str, tuple[bytes, int]], embedder: Any) -> dict[str, Any]:
    from opensearchpy import OpenSearch, helpers
    from pypdf import PdfReader

    client = OpenSearch(hosts=[settings.opensearch_endpoint], timeout=60)
    index = f"bench-plain-{uuid.uuid4().hex[:8]}"
    client.indices.create(
        index=index,
        body={
            "settings": {"index": {"knn": True, "number_of_replicas": 0}},
            "mappings": {
                "properties": {
                    "text": {"type": "text"},
                    "vector": {
                        "type": "knn_vector",
                        "dimension": embedder.dimension,
                        # The dev node has Lucene's k-NN only (a native engine halts it).
                        "method": {"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"},
                    },
                }
            },
        },
    )
    try:
        started = time.perf_counter()
        chunks = 0
        for key, (body, _) in files.items():
            if key.endswith(".pdf"):
                texts = [page.extract_text() for page in PdfReader(io.BytesIO(body)).pages]
            else:
                texts = body.decode().split("\n\n")
            paragraphs = [t.strip() for t in texts if t.strip()]
            vectors = embedder.embed(paragraphs)
            actions = [
                {"_index": index, "_id": f"{key}#{n}", "text": t, "vector": v}
                for n, (t, v) in enumerate(zip(paragraphs, vectors, strict=True))
            ]
            helpers.bulk(client, actions)
            chunks += len(actions)
        client.indices.refresh(index=index)
        pages = sum(p for _, p in files.values())
        return _side(len(files), pages, time.perf_counter() - started, chunks)
    finally:
        client.indices.delete(index=index, ignore_unavailable=True)
        client.close()


def _side(files: int, pages: int, seconds: float, chunks: int) -> dict[str, Any]:
    return {
        "seconds": seconds,
        "files_per_second": files / seconds,
        "pages_per_second": pages / seconds,
        "chunks": chunks,
    }
