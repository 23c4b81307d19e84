"""``python -m bench.load`` (``make load``): one tenant's flood must not become every tenant's latency.

Several tenants call ``retrieval serve --tiers`` at once on the real local stack (loopback only). Each
round runs two phases of the same length: ``alone`` (every quiet tenant at its steady rate) and ``flood``
(the same, while one tenant on the ``basic`` tier sends ``flood_rate`` requests a second, many times its
tier, every other one its most expensive allowed request). The report puts each quiet tenant's p50, p90
and p99 alone and under the flood side by side (pooled over the rounds: on a shared 2-core machine one
phase's tail is noise), the flooder's 429 share and how fast its 429s came back (throttled, not slowed),
and every 5xx; it is written to ``.bench/load-<time>.json``. Bounded in time and count: ``LoadPlan``
refuses a run past ``MAX_SECONDS`` or ``MAX_REQUESTS``, and every request has ``REQUEST_TIMEOUT_SECONDS``.

The corpus is the sample corpus's two contexts plus copies of ``acme`` under more tenants' names, loaded
into a scratch space (fresh tables and alias) removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from retrieval_core.config import Settings
from retrieval_dev.cli.serve import DEFAULT_CONTAINERS
from retrieval_dev.cli.tiers import TIERS, TierName

from dev import processes
from dev.tables import scratch_space

from .dynamodb_server import add_stack_dynamodb_flag, bench_dynamodb
from .progress import say
from .workspace import stack_settings

REPO = Path(__file__).resolve().parents[1]
SAMPLE_CORPUS = REPO / "dev" / "sample" / "corpus.jsonl"
RETRIEVAL = Path(sys.executable).with_name("retrieval")
MAX_SECONDS = 600
MAX_REQUESTS = 40_000
REQUEST_TIMEOUT_SECONDS = 10.0
READY_SECONDS = 60.0
QUIET_TIER: TierName = "standard"
FLOOD_TIER: TierName = "basic"
QUIET_QUESTIONS = (
    "who leads the payments team",
    "what did the platform team decide about the database migration",
    "which incidents affected checkout",
    "who owns the billing service",
)
# The flooder's most expensive allowed request: the largest page, graph expansion at full depth,
# diversity, feedback (asked for) over a long question: every cap at its ceiling. Every
# ``EXPENSIVE_EVERY``-th flood request is this one, the rest the quiet tenants' kind (a runaway loop
# repeats what an agent asks, with the costly ones among them).
EXPENSIVE_EVERY = 2
FLOOD_REQUEST = {
    "mode": "hybrid",
    "text": " ".join(QUIET_QUESTIONS),
    "top_k": 100,
    "expand_graph": True,
    "depth": 5,
    "diversify": True,
    "feedback": {"enabled": True},
}


class LoadPlan(BaseModel):
    """What one run does; the defaults are ``make load``'s."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    quiet: tuple[str, ...] = ("acme", "globex", "hooli")
    flooder: str = "initech"
    # Sized for a 2-core machine shared with other work: the quiet load stays well under what one
    # ``retrieval serve`` process (one interpreter) can answer, so what the flood adds is what is measured.
    quiet_rate: float = Field(default=3.0, gt=0, description="Requests/s of each quiet tenant.")
    flood_rate: float = Field(default=20.0, gt=0, description="Requests/s the flooder sends.")
    # Many short rounds: the machine's other load comes in bursts of seconds, and alternating often
    # spreads them over both phases instead of one; pooled, 20 rounds of 5 s give each quiet tenant 300
    # requests per phase, so its p99 is its 4th slowest request, not its slowest.
    phase_seconds: float = Field(default=5.0, gt=0)
    rounds: int = Field(default=20, ge=1)
    warmup_requests: int = Field(default=5, ge=0, description="Unmeasured requests per tenant first.")
    seed: int = Field(default=41, description="Of the departures' jitter: every run offers the same load.")
    containers: int = Field(
        default=DEFAULT_CONTAINERS, ge=0, description="serve's --containers (0: handlers on its threads)."
    )

    @model_validator(mode="after")
    def _bounded(self) -> LoadPlan:
        if self.seconds > MAX_SECONDS:
            raise ValueError(f"a run of {self.seconds:.0f} s is past the {MAX_SECONDS} s bound")
        if self.requests > MAX_REQUESTS:
            raise ValueError(f"a run of {self.requests} requests is past the {MAX_REQUESTS} bound")
        return self

    @property
    def seconds(self) -> float:
        return 2 * self.rounds * self.phase_seconds

    @property
    def requests(self) -> int:
        per_round = 2 * len(self.quiet) * self.quiet_rate + self.flood_rate
        return int(self.rounds * self.phase_seconds * per_round)

    def tiers(self) -> dict[str, Any]:
        """``serve --tiers``: every quiet tenant on ``standard``, the flooder on ``basic``."""
        return {
            "default_tier": QUIET_TIER,
            "contexts": {self.flooder: FLOOD_TIER} | {tenant: QUIET_TIER for tenant in self.quiet},
        }


@dataclass(frozen=True, slots=True)
class Sample:
    tenant: str
    phase: str
    round: int
    status: int
    seconds: float
    sent: float = 0.0
    """When it left, in seconds from the run's start."""
    expensive: bool = False


# -------------------------------------------------------------------------------------------- corpus


def _renamed(value: Any, source: str, target: str) -> Any:
    if isinstance(value, str):
        if value == source:
            return target
        return target + value[len(source) :] if value.startswith(f"{source}:") else value
    if isinstance(value, list):
        return [_renamed(v, source, target) for v in value]
    if isinstance(value, dict):
        return {k: _renamed(v, source, target) for k, v in value.items()}
    return value


def tenant_lines(plan: LoadPlan) -> list[str]:
    """The sample corpus, with ``acme``'s items copied under each tenant it does not already have."""
    lines = SAMPLE_CORPUS.read_text(encoding="utf-8").splitlines()
    items = [json.loads(line) for line in lines if line.strip()]
    present = {item["context_id"] for item in items}
    acme = [item for item in items if item["context_id"] == "acme"]
    copies = [
        _renamed(item, "acme", tenant)
        for tenant in (*plan.quiet, plan.flooder)
        if tenant not in present
        for item in acme
    ]
    return [json.dumps(item) for item in items + copies]


@contextmanager
def provisioned(base: Settings, plan: LoadPlan) -> Iterator[Settings]:
    from retrieval_core.bootstrap import Container

    with scratch_space(base, "load") as settings:
        report = Container(settings).loader.load_lines(tenant_lines(plan))
        if not report.ok:
            raise RuntimeError(f"the loader rejected part of the load corpus: {report.summary()}")
        yield settings


# ------------------------------------------------------------------------------------------- serving


@contextmanager
def serving(settings: Settings, plan: LoadPlan, workdir: Path) -> Iterator[str]:
    """``retrieval serve --tiers`` on a free loopback port, until the block ends."""
    tiers = workdir / "load-tiers.json"
    tiers.write_text(json.dumps(plan.tiers()), encoding="utf-8")
    port = processes.free_port()
    command = [
        *(str(RETRIEVAL), "serve", "--host", "127.0.0.1", "--port", str(port), "--tiers", str(tiers)),
        *("--containers", str(plan.containers)),
    ]
    log = workdir / "load-serve.log"
    try:
        with processes.serving(
            command, port=port, log=log, env=os.environ | settings.to_env(), ready_seconds=READY_SECONDS
        ) as url:
            yield url
    except processes.NotServingError as error:
        raise RuntimeError(f"retrieval serve did not start: {error} (log: {log})") from error


def _call(base_url: str, tenant: str, body: dict[str, Any]) -> tuple[int, float]:
    request = urllib.request.Request(
        f"{base_url}/v1/retrieve",
        data=json.dumps(body).encode("utf-8"),
        method="POST",
        headers={"Authorization": f"Bearer dev:{tenant}", "Content-Type": "application/json"},
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_SECONDS) as response:
            response.read()
            status = int(response.status)
    except urllib.error.HTTPError as error:
        error.read()
        status = error.code
    except (urllib.error.URLError, TimeoutError, ConnectionError):
        status = 599  # no answer at all: counted as a server error
    return status, time.perf_counter() - started


def _quiet_body(tenant: str, n: int) -> dict[str, Any]:
    return {"mode": "hybrid", "text": QUIET_QUESTIONS[n % len(QUIET_QUESTIONS)], "top_k": 10}


# ------------------------------------------------------------------------------------------- running


def schedule(plan: LoadPlan, phase: str, round_no: int) -> list[tuple[float, str, int]]:
    """When each request of a phase leaves (seconds from its start), which tenant sends it and its number:
    ``rate x phase_seconds`` requests per tenant, the n-th at a seeded random point of the n-th
    ``1 / rate`` slot. Jittered, not periodic: periodic schedules lock each quiet tenant to a fixed
    offset from the flooder's admitted requests (one tenant then always asks 40 ms after the bucket
    refills, another never), so the tenants' tails would measure their offsets, not the flood."""
    rates = {tenant: plan.quiet_rate for tenant in plan.quiet}
    if phase == "flood":
        rates[plan.flooder] = plan.flood_rate
    departures = []
    for tenant, rate in rates.items():
        jitter = random.Random(f"{plan.seed}:{round_no}:{phase}:{tenant}")
        departures += [
            ((n + jitter.random()) / rate, tenant, n) for n in range(round(rate * plan.phase_seconds))
        ]
    return sorted(departures)


def run_phase(
    base_url: str, plan: LoadPlan, phase: str, round_no: int, pool: ThreadPoolExecutor, origin: float
) -> list[Sample]:
    """Open loop: each tenant's requests leave on schedule, whether or not earlier ones have answered
    (a slowed server cannot slow the offered load and so hide its own latency)."""
    samples: list[Sample] = []
    lock = threading.Lock()
    futures = []

    def one(tenant: str, n: int) -> None:
        expensive = tenant == plan.flooder and n % EXPENSIVE_EVERY == 0
        body = FLOOD_REQUEST if expensive else _quiet_body(tenant, n)
        sent = time.monotonic() - origin
        status, seconds = _call(base_url, tenant, body)
        with lock:
            samples.append(Sample(tenant, phase, round_no, status, seconds, sent, expensive))

    start = time.monotonic()
    for at, tenant, n in schedule(plan, phase, round_no):
        wait = start + at - time.monotonic()
        if wait > 0:
            time.sleep(wait)  # the schedule's pacing, not a timing assertion
        futures.append(pool.submit(one, tenant, n))
    for future in futures:
        future.result()
    return samples


def run(plan: LoadPlan, base_url: str) -> list[Sample]:
    samples: list[Sample] = []
    with ThreadPoolExecutor(max_workers=96, thread_name_prefix="load") as pool:
        # Cold starts, not measured: every tenant's requests at once, so that every one of serve's
        # containers (a container starts on the first invocation that finds all others busy) is warm.
        warmup = [(tenant, n) for n in range(plan.warmup_requests) for tenant in (*plan.quiet, plan.flooder)]
        list(pool.map(lambda call: _call(base_url, call[0], _quiet_body(*call)), warmup))
        time.sleep(1 / TIERS[FLOOD_TIER].rate_per_second * TIERS[FLOOD_TIER].burst)  # refill the buckets
        origin = time.monotonic()
        for round_no in range(plan.rounds):
            for phase in ("alone", "flood"):
                say(f"round {round_no + 1}/{plan.rounds}: {phase} ({plan.phase_seconds:.0f} s)")
                samples += run_phase(base_url, plan, phase, round_no, pool, origin)
    return samples


# -------------------------------------------------------------------------------------------- report


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


def _latencies(samples: list[Sample], tenant: str, phase: str) -> list[float]:
    return [s.seconds for s in samples if s.tenant == tenant and s.phase == phase]


def _overlaps(sample: Sample, others: list[Sample]) -> bool:
    return any(o.sent < sample.sent + sample.seconds and sample.sent < o.sent + o.seconds for o in others)


def _tails(alone: list[float], flood: list[float], q: float) -> tuple[dict[str, float | None], float | None]:
    tail_alone, tail_flood = _percentile(alone, q), _percentile(flood, q)
    ratio = round(tail_flood / tail_alone, 3) if tail_alone and tail_flood else None
    return {"alone": _ms(tail_alone), "flood": _ms(tail_flood)}, ratio


def report(plan: LoadPlan, samples: list[Sample]) -> dict[str, Any]:
    flooded = [s for s in samples if s.tenant == plan.flooder and s.phase == "flood"]
    expensive = [s for s in flooded if s.expensive and s.status == 200]
    quiet: dict[str, Any] = {}
    for tenant in plan.quiet:
        alone, flood = _latencies(samples, tenant, "alone"), _latencies(samples, tenant, "flood")
        p90, p90_ratio = _tails(alone, flood, 0.9)
        p99, p99_ratio = _tails(alone, flood, 0.99)
        # Where the flood's cost lands: this tenant's flood-phase requests that ran while one of the
        # flooder's admitted most expensive requests did.
        beside = [
            s.seconds
            for s in samples
            if s.tenant == tenant and s.phase == "flood" and _overlaps(s, expensive)
        ]
        mine = [s for s in samples if s.tenant == tenant]
        quiet[tenant] = {
            "requests": {"alone": len(alone), "flood": len(flood)},
            "p50_ms": {"alone": _ms(_percentile(alone, 0.5)), "flood": _ms(_percentile(flood, 0.5))},
            "p90_ms": p90,
            "p90_ratio": p90_ratio,
            "p99_ms": p99,
            "p99_ratio": p99_ratio,
            "beside_expensive": {
                "requests": len(beside),
                "p50_ms": _ms(_percentile(beside, 0.5)),
                "p99_ms": _ms(_percentile(beside, 0.99)),
            },
            "throttled": sum(s.status == 429 for s in mine),
            "server_errors": sum(s.status >= 500 for s in mine),
            "other_statuses": sorted({s.status for s in mine} - {200, 429}),
        }
    throttled = [s.seconds for s in flooded if s.status == 429]
    admitted = [s.seconds for s in flooded if s.status == 200]
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "plan": plan.model_dump(mode="json") | {"flood_tier": FLOOD_TIER, "quiet_tier": QUIET_TIER},
        "tiers": {name: TIERS[name].model_dump() for name in (QUIET_TIER, FLOOD_TIER)},
        "quiet": quiet,
        "flooder": {
            "tenant": plan.flooder,
            "requests": len(flooded),
            "offered_times_tier": round(plan.flood_rate / TIERS[FLOOD_TIER].rate_per_second, 1),
            "admitted": len(admitted),
            "throttled": len(throttled),
            "throttled_share": round(len(throttled) / len(flooded), 3) if flooded else None,
            "p50_ms": {
                "throttled": _ms(_percentile(throttled, 0.5)),
                "admitted": _ms(_percentile(admitted, 0.5)),
                "admitted_most_expensive": _ms(_percentile([s.seconds for s in expensive], 0.5)),
            },
            "server_errors": sum(s.status >= 500 for s in flooded),
        },
        "server_errors": sum(s.status >= 500 for s in samples),
    }


def markdown(result: dict[str, Any]) -> str:
    rows = [
        "| quiet tenant | requests alone / flood | p50 alone / flood | p90 alone / flood | p99 alone / flood "
        "| p99 ratio | 429 | 5xx |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for tenant, q in result["quiet"].items():
        cells = [f"{q['requests']['alone']} / {q['requests']['flood']}"] + [
            f"{q[key]['alone']} / {q[key]['flood']}" for key in ("p50_ms", "p90_ms", "p99_ms")
        ]
        rows.append(
            f"| {tenant} | {' | '.join(cells)} | {q['p99_ratio']} | {q['throttled']} | {q['server_errors']} |"
        )
    f = result["flooder"]
    rows.append("")
    rows.append(
        f"flooder {f['tenant']}: {f['requests']} requests at {f['offered_times_tier']}x its tier, "
        f"{f['throttled_share']:.1%} throttled (429 p50 {f['p50_ms']['throttled']} ms; admitted p50 "
        f"{f['p50_ms']['admitted']} ms, its most expensive {f['p50_ms']['admitted_most_expensive']} ms), "
        f"{f['server_errors']} 5xx. All tenants: {result['server_errors']} 5xx."
    )
    return "\n".join(rows)


def save(result: dict[str, Any], out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = result["date"].replace(":", "").replace("-", "").replace("+0000", "Z")
    path = out_dir / f"load-{stamp}.json"
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def measure(plan: LoadPlan, base: Settings, workdir: Path) -> dict[str, Any]:
    """Provision, serve, run the plan, stop: the report."""
    with provisioned(base, plan) as settings:
        return measure_served(plan, settings, workdir)


def measure_served(plan: LoadPlan, settings: Settings, workdir: Path) -> dict[str, Any]:
    """Serve ``settings``' corpus (already holding the plan's tenants), run the plan, stop: the report."""
    workdir.mkdir(parents=True, exist_ok=True)
    with serving(settings, plan, workdir) as url:
        return report(plan, run(plan, url))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n")[0])
    for name, field in LoadPlan.model_fields.items():
        if field.annotation in (float, int):
            parser.add_argument(f"--{name.replace('_', '-')}", type=field.annotation, default=field.default)
    parser.add_argument("--out", type=Path, default=REPO / ".bench")
    add_stack_dynamodb_flag(parser)
    args = parser.parse_args(argv)
    plan = LoadPlan(**{name: getattr(args, name) for name in LoadPlan.model_fields if hasattr(args, name)})
    say(f"load: {plan.requests} requests over {plan.seconds:.0f} s, loopback only")
    # As `make bench`: the stack's moto answers a Query by sorting the whole table, so a flood's graph
    # walks would measure moto's scan (CPU the quiet tenants' cores then lose), not our requests.
    with bench_dynamodb(args.out, use_stack=args.stack_dynamodb) as endpoint:
        result = measure(plan, stack_settings(endpoint), args.out)
    print(markdown(result))
    print(f"\nreport: {save(result, args.out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
