"""A fixed, short sample of `make load` (bench/load.py) on the real stack: quiet tenants beside a
tenant flooding at 20x its tier, through `retrieval serve --tiers`. It asserts what must hold whatever
the machine's speed: no 5xx for anyone, no quiet tenant throttled, the flooder answered 429 for most of
its flood (throttled, not queued into timeouts). The latency ratio is the bench report's to state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from retrieval_dev.cli.tiers import TIERS

from bench.load import LoadPlan, measure_served

PLAN = LoadPlan(
    quiet=("acme",),
    flooder="globex",
    quiet_rate=2,
    flood_rate=20,
    phase_seconds=3,
    rounds=1,
    warmup_requests=2,
)


def test_a_flood_is_throttled_and_nobody_gets_a_5xx(corpus_settings: Any, tmp_path: Path) -> None:
    result = measure_served(PLAN, corpus_settings, tmp_path)
    assert result["server_errors"] == 0
    quiet = result["quiet"]["acme"]
    assert quiet["requests"] == {"alone": 6, "flood": 6}
    assert (quiet["throttled"], quiet["server_errors"], quiet["other_statuses"]) == (0, 0, [])
    flooder = result["flooder"]
    assert flooder["requests"] == 60
    # The bucket admits its burst and then its rate: at most burst + rate x phase of the 60 requests.
    basic = TIERS["basic"]
    assert flooder["admitted"] <= basic.burst + basic.rate_per_second * PLAN.phase_seconds + 1
    assert flooder["throttled"] == flooder["requests"] - flooder["admitted"]
    assert flooder["throttled_share"] >= 0.8
    assert quiet["p99_ratio"] is not None
