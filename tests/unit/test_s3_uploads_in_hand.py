"""Issue 66: ``retrieval sync`` uploads each file and runs its event at once; that event's reads are
answered from the bytes the sync still holds (the same bytes: the ledger's digest is unchanged), not
read back from the bucket. Any other version, or a read of whatever is current, still goes to S3."""

from __future__ import annotations

import io
from typing import Any

from retrieval_core.adapters.s3_objects import S3ObjectStore
from retrieval_core.models.ingest import ObjectRef


class RecordingS3:
    """``put_object`` numbering versions (``versioned``) or not, ``get_object`` counted and ranged."""

    def __init__(self, *, versioned: bool) -> None:
        self.versions: dict[str, list[bytes]] = {}
        self.gets: list[dict[str, Any]] = []
        self._versioned = versioned

    def put_object(self, Bucket: str, Key: str, Body: bytes) -> dict[str, Any]:
        self.versions.setdefault(Key, []).append(Body)
        number = len(self.versions[Key])
        return {"ETag": f'"etag-{Key}-{number}"', **({"VersionId": f"v{number}"} if self._versioned else {})}

    def get_object(
        self, Bucket: str, Key: str, VersionId: str | None = None, Range: str = ""
    ) -> dict[str, Any]:
        self.gets.append({"Key": Key, "VersionId": VersionId})
        body = self.versions[Key][int(VersionId[1:]) - 1 if VersionId else -1]
        last = int(Range.rpartition("-")[2]) if Range else len(body)
        return {"Body": io.BytesIO(body[: last + 1])}


def test_the_event_of_an_upload_reads_the_bytes_in_hand() -> None:
    s3 = RecordingS3(versioned=True)
    store = S3ObjectStore(s3)
    ref = store.upload("b", "contexts/acme/a.md", b"# Alpha\n\nText.")
    assert store.read_bytes(ref, 4) == b"# Alp"
    assert store.read_bytes(ref, 100) == b"# Alpha\n\nText."
    assert store.open(ref, 2, 7).read() == b"Alpha"
    assert s3.gets == []


def test_another_version_or_the_current_one_is_read_from_the_bucket() -> None:
    s3 = RecordingS3(versioned=True)
    store = S3ObjectStore(s3)
    first = store.upload("b", "contexts/acme/a.md", b"one")
    store.upload("b", "contexts/acme/a.md", b"two")
    assert store.read_bytes(first, 100) == b"one"
    assert store.read_bytes(ObjectRef("b", "contexts/acme/a.md"), 100) == b"two"  # whatever is current
    store.upload("b", "contexts/acme/b.md", b"three")
    assert store.read_bytes(ObjectRef("b", "contexts/acme/a.md", "v2"), 100) == b"two"  # not the last upload
    assert [get["VersionId"] for get in s3.gets] == ["v1", None, "v2"]


def test_an_unversioned_bucket_names_the_upload_by_its_etag() -> None:
    s3 = RecordingS3(versioned=False)
    store = S3ObjectStore(s3)
    ref = store.upload("b", "contexts/acme/a.md", b"one")
    assert ref.version_id is None and store.read_bytes(ref, 100) == b"one" and s3.gets == []
    other = ObjectRef("b", "contexts/acme/a.md", None, '"etag-contexts/acme/a.md-9"')
    s3.versions["contexts/acme/a.md"].append(b"newer")
    assert store.read_bytes(other, 100) == b"newer" and len(s3.gets) == 1
