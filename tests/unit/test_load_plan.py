"""`make load`'s plan and report (bench/load.py) without a stack: the run is bounded, the tenants' copies
of the corpus are whole and renamed, and the report's figures come from the samples."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from bench.load import MAX_REQUESTS, MAX_SECONDS, LoadPlan, Sample, report, schedule, tenant_lines


def test_a_plan_past_its_bounds_is_refused() -> None:
    with pytest.raises(ValidationError, match="bound"):
        LoadPlan(phase_seconds=MAX_SECONDS, rounds=1)
    with pytest.raises(ValidationError, match="bound"):
        LoadPlan(flood_rate=MAX_REQUESTS, phase_seconds=10, rounds=1)
    assert LoadPlan().seconds <= MAX_SECONDS and LoadPlan().requests <= MAX_REQUESTS


def test_every_tenant_gets_a_whole_copy_under_its_own_name() -> None:
    items = [json.loads(line) for line in tenant_lines(LoadPlan())]
    by_context: dict[str, list[dict[str, object]]] = {}
    for item in items:
        by_context.setdefault(str(item["context_id"]), []).append(item)
    assert set(by_context) == {"acme", "globex", "hooli", "initech"}
    assert len(by_context["hooli"]) == len(by_context["initech"]) == len(by_context["acme"])
    for item in by_context["initech"]:
        text = json.dumps({k: v for k, v in item.items() if k != "text"})
        assert '"acme:' not in text and str(item["id"]).startswith("initech:")


def test_the_report_puts_alone_beside_flood_and_counts_throttles_and_5xx() -> None:
    plan = LoadPlan(quiet=("acme",), flooder="initech", rounds=1)
    samples = [Sample("acme", "alone", 0, 200, 0.1) for _ in range(99)] + [
        Sample("acme", "alone", 0, 200, 0.2)
    ]
    samples += [Sample("acme", "flood", 0, 200, 0.15) for _ in range(99)] + [
        Sample("acme", "flood", 0, 503, 0.3)
    ]
    samples += [Sample("initech", "flood", 0, 429, 0.001) for _ in range(9)] + [
        Sample("initech", "flood", 0, 200, 1.0)
    ]
    result = report(plan, samples)
    acme = result["quiet"]["acme"]
    assert acme["p99_ms"] == {"alone": 200.0, "flood": 300.0}
    assert acme["p99_ratio"] == 1.5
    assert (acme["server_errors"], acme["throttled"], acme["other_statuses"]) == (1, 0, [503])
    flooder = result["flooder"]
    assert (flooder["requests"], flooder["throttled"], flooder["throttled_share"]) == (10, 9, 0.9)
    assert result["server_errors"] == 1


def test_the_report_finds_the_quiet_requests_that_ran_beside_an_admitted_expensive_one() -> None:
    plan = LoadPlan(quiet=("acme",), flooder="initech", rounds=1)
    samples = [
        Sample("initech", "flood", 0, 200, 1.0, sent=10.0, expensive=True),
        Sample("initech", "flood", 0, 200, 1.0, sent=20.0, expensive=False),
        Sample("initech", "flood", 0, 429, 1.0, sent=30.0, expensive=True),
        Sample("acme", "flood", 0, 200, 0.5, sent=10.5),  # beside the admitted expensive one
        Sample("acme", "flood", 0, 200, 0.1, sent=20.5),  # beside a cheap one
        Sample("acme", "flood", 0, 200, 0.1, sent=30.5),  # beside a throttled one
        Sample("acme", "alone", 0, 200, 0.1, sent=0.0),
    ]
    acme = report(plan, samples)["quiet"]["acme"]
    assert acme["beside_expensive"] == {"requests": 1, "p50_ms": 500.0, "p99_ms": 500.0}
    assert acme["p90_ms"] == {"alone": 100.0, "flood": 500.0}
    assert acme["requests"] == {"alone": 1, "flood": 3}


def test_each_tenant_sends_its_rate_once_per_slot_at_a_seeded_point_of_it() -> None:
    plan = LoadPlan(quiet=("acme", "globex"), flooder="initech", quiet_rate=3, flood_rate=20, phase_seconds=5)
    departures = schedule(plan, "flood", 0)
    assert departures == schedule(plan, "flood", 0)  # the same load every run
    assert departures != schedule(plan, "flood", 1)
    for tenant, rate in (("acme", 3), ("globex", 3), ("initech", 20)):
        mine = [(at, n) for at, who, n in departures if who == tenant]
        assert [n for _, n in mine] == list(range(rate * 5))
        assert all(n / rate <= at < (n + 1) / rate for at, n in mine)
    offsets = {round(at % (1 / 3), 3) for at, who, _ in departures if who == "acme"}
    assert len(offsets) > 1  # not locked to one phase of the flooder's schedule
    assert {who for _, who, _ in schedule(plan, "alone", 0)} == {"acme", "globex"}
