"""Issue 66: each file's event reads its sidecar, and most files have none. ``retrieval sync`` knows from
the folder and the bucket's listing which sidecars are missing and tells the object store, whose read
of one then answers None without a request (a missed ``GetObject`` was 6% of a sync's samples)."""

from __future__ import annotations

from retrieval_core.adapters.s3_objects import S3ObjectStore
from retrieval_core.models.ingest import ObjectRef
from retrieval_dev.cli.sync import _without_sidecars
from test_s3_uploads_in_hand import RecordingS3


def test_a_sidecar_known_absent_is_not_requested_until_it_is_uploaded() -> None:
    s3 = RecordingS3(versioned=True)
    store = S3ObjectStore(s3)
    store.upload("b", "contexts/acme/b.md.metadata.json", b"{}")
    store.upload("b", "contexts/acme/c.md", b"# C")  # the last upload is in hand; the sidecar is not
    with store.known_absent("b", ["contexts/acme/a.md.metadata.json"]):
        assert store.read_bytes(ObjectRef("b", "contexts/acme/a.md.metadata.json"), 100) is None
        assert s3.gets == []
        store.upload("b", "contexts/acme/a.md.metadata.json", b'{"metadataAttributes": {}}')
        store.upload("b", "contexts/acme/a.md", b"# A")
        sidecar = store.read_bytes(ObjectRef("b", "contexts/acme/a.md.metadata.json"), 100)
        assert sidecar == b'{"metadataAttributes": {}}'  # read from the bucket once uploaded
        assert store.read_bytes(ObjectRef("b", "contexts/acme/b.md.metadata.json"), 100) == b"{}"
    assert [get["Key"] for get in s3.gets] == [
        "contexts/acme/a.md.metadata.json",
        "contexts/acme/b.md.metadata.json",
    ]


def test_the_sidecars_a_sync_knows_absent_are_those_neither_the_folder_nor_the_bucket_has() -> None:
    local = {f"p/{name}": None for name in ("a.md", "a.md.metadata.json", "b.md", "c.pdf", "d.txt")}
    stored = {"p/b.md": "e1", "p/c.pdf.metadata.json": "e2", "p/gone.md": "e3"}
    assert _without_sidecars(local, stored) == ["p/b.md.metadata.json", "p/d.txt.metadata.json"]


def test_what_a_sync_knew_absent_is_forgotten_when_it_ends() -> None:
    """The store outlives the sync (one per container): a sidecar another writer adds afterwards is read."""
    s3 = RecordingS3(versioned=True)
    store = S3ObjectStore(s3)
    with store.known_absent("b", ["contexts/acme/a.md.metadata.json"]):
        pass
    s3.put_object(Bucket="b", Key="contexts/acme/a.md.metadata.json", Body=b"{}")  # another writer's
    assert store.read_bytes(ObjectRef("b", "contexts/acme/a.md.metadata.json"), 100) == b"{}"
