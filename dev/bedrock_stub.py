"""A stand-in for Bedrock Runtime's ``InvokeModel`` on 127.0.0.1, for measuring and testing the deployed
embedder's calls without AWS: botocore signs and sends real requests to it (``AWS_ENDPOINT_URL_BEDROCK_
RUNTIME``), it answers Titan-v2-shaped embeddings after a set latency (the model's time, as a
benchmark's stand-in), and it can answer ``ThrottlingException`` (429) the way Bedrock does, so the
client's backoff runs for real. It counts calls and the most that were in flight at once.

``python -m dev.bedrock_stub --latency-ms 40`` serves until interrupted, its counts at ``GET /stats``;
``in_process`` serves one on a thread (tests), ``own_process`` in a process of its own, so a benchmark's
CPU time is the client's alone (``bench/embedder.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

THROTTLING_TYPE = "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"


@dataclass
class StubBehaviour:
    """How the stub answers. ``throttle_every``: every n-th call is refused with a 429 (0: never).
    ``quota_per_second``: a call past that rate (a bucket of one second's calls) is refused, as an
    account's quota is (0: no quota).
    ``meet``: the first ``meet`` calls each wait (up to ten seconds) until all of them have arrived, so a
    test sees that many in flight together without timing anything."""

    latency_seconds: float = 0.0
    throttle_every: int = 0
    quota_per_second: float = 0.0
    meet: int = 0
    calls: int = 0
    throttled: int = 0
    in_flight: int = 0
    most_in_flight: int = 0
    tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    barrier: threading.Barrier | None = field(default=None, repr=False)
    _bucket: float = field(default=0.0, repr=False)
    _filled_at: float = field(default_factory=time.monotonic, repr=False)

    def __post_init__(self) -> None:
        if self.meet > 1:
            self.barrier = threading.Barrier(self.meet, timeout=10)
        self._bucket = self.quota_per_second

    def _over_quota(self) -> bool:
        if not self.quota_per_second:
            return False
        now = time.monotonic()
        self._bucket = min(
            self.quota_per_second, self._bucket + (now - self._filled_at) * self.quota_per_second
        )
        self._filled_at = now
        if self._bucket < 1:
            return True
        self._bucket -= 1
        return False

    def arrive(self) -> tuple[int, bool]:
        """This call's number and whether it is refused; counts it in flight."""
        with self._lock:
            self.calls += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            refused = bool(self.throttle_every) and self.calls % self.throttle_every == 0
            refused = refused or self._over_quota()
            self.throttled += refused
            return self.calls, refused

    def count_tokens(self, tokens: int) -> None:
        with self._lock:
            self.tokens += tokens

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


def embedding_of(text: str, dimension: int) -> list[float]:
    """A deterministic unit vector for ``text`` (the same text, the same vector)."""
    seed = hashlib.sha256(text.encode()).digest()
    raw = [((seed[n % 32] + n * 37) % 251) / 251 - 0.5 for n in range(dimension)]
    norm = math.sqrt(sum(v * v for v in raw)) or 1.0
    return [v / norm for v in raw]


def _handler(behaviour: StubBehaviour) -> type[BaseHTTPRequestHandler]:
    class InvokeModel(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            counts = ("calls", "throttled", "most_in_flight", "tokens")
            self._answer(200, {name: getattr(behaviour, name) for name in counts})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            status, payload = self._work(body)
            self._answer(status, payload)

        def _work(self, body: dict[str, object]) -> tuple[int, dict[str, object]]:
            """The answer to one call, counted in flight until it is ready (a client may send its next
            call as soon as it has read this one)."""
            number, refused = behaviour.arrive()
            try:
                if behaviour.barrier is not None and number <= behaviour.meet:
                    behaviour.barrier.wait()
                if behaviour.latency_seconds:
                    time.sleep(behaviour.latency_seconds)  # the model's time: what the stub stands in for
                if refused:
                    return 429, {"message": "Too many requests, please wait before trying again."}
                text = str(body.get("inputText", ""))
                behaviour.count_tokens(len(text.split()))
                dimension = int(str(body.get("dimensions", 1024)))
                return 200, {
                    "embedding": embedding_of(text, dimension),
                    "inputTextTokenCount": len(text.split()),
                }
            finally:
                behaviour.leave()

        def _answer(self, status: int, payload: dict[str, object]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("x-amzn-ErrorType", THROTTLING_TYPE)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return InvokeModel


@contextmanager
def in_process(behaviour: StubBehaviour) -> Iterator[str]:
    """The stub on a free port of 127.0.0.1, on a thread of this process, for the block; yields its
    endpoint URL (``behaviour`` holds its counts)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(behaviour))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def own_process(latency_ms: float, quota_per_second: float = 0.0) -> Iterator[str]:
    """The stub in a process of its own for the block; yields its endpoint URL (counts: ``stats``)."""
    command = [sys.executable, "-m", "dev.bedrock_stub", f"--latency-ms={latency_ms}"]
    process = subprocess.Popen([*command, f"--quota={quota_per_second}"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip().rsplit("=", 1)[-1]
    finally:
        process.terminate()
        process.wait(timeout=10)


def stats(endpoint: str) -> dict[str, int]:
    """The counts of the stub at ``endpoint``."""
    with urllib.request.urlopen(f"{endpoint}/stats", timeout=5) as response:
        return dict(json.loads(response.read()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=40.0)
    parser.add_argument("--quota", type=float, default=0.0, help="calls a second before 429s (0: none)")
    args = parser.parse_args()
    behaviour = StubBehaviour(latency_seconds=args.latency_ms / 1000, quota_per_second=args.quota)
    with in_process(behaviour) as endpoint:
        print(f"Bedrock Runtime stub: AWS_ENDPOINT_URL_BEDROCK_RUNTIME={endpoint}", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
