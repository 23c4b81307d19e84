"""The loader's DynamoDB client waits out a slow answer that the request path's client gives up on: a
load has no caller waiting on a deadline, and three attempts two seconds each had stopped a million-row
load ("stopped early") on one slow moment of its endpoint."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from botocore.exceptions import ReadTimeoutError
from retrieval_core import bootstrap
from retrieval_core.adapters.dynamodb_client import dynamodb_client, dynamodb_load_client
from retrieval_core.config import Settings

SLOW_SECONDS = 0.6
"""The stand-in endpoint's answer time: past the request client's read timeout set below (0.2 s)."""


class SlowDynamoDB(BaseHTTPRequestHandler):
    """Answers every call, after ``SLOW_SECONDS``, as BatchWriteItem does when all went through."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        time.sleep(SLOW_SECONDS)  # the slow endpoint itself, not a wait for the test's timing
        body = json.dumps({"UnprocessedItems": {}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-amz-json-1.0")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowDynamoDB)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Settings(
            dynamodb_endpoint=f"http://127.0.0.1:{server.server_address[1]}",
            aws_region="us-east-1",
            dynamodb_read_timeout_seconds=0.2,
            dynamodb_max_attempts=2,
        )
    finally:
        server.shutdown()
        server.server_close()


def _batch(client: object) -> dict[str, object]:
    items = {"t": [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}]}
    return client.batch_write_item(RequestItems=items)  # type: ignore[attr-defined, no-any-return]


def test_the_request_client_gives_up_on_a_slow_answer(settings: Settings) -> None:
    with pytest.raises(ReadTimeoutError):
        _batch(dynamodb_client(settings))


def test_the_load_client_waits_for_it(settings: Settings) -> None:
    assert _batch(dynamodb_load_client(settings))["UnprocessedItems"] == {}


def test_the_loaders_row_writes_go_through_the_load_client(settings: Settings) -> None:
    writer = bootstrap.Container(settings).lineage_writer
    assert writer._client is dynamodb_load_client(settings)  # type: ignore[attr-defined]
