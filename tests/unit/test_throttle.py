"""The local usage-plan throttle: a token bucket per usage key and a daily quota, on injected clocks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from retrieval_core.context import CONTEXT_ID_PATTERN, usage_identifier_key, usage_key_context
from retrieval_core.errors import InvalidRequestError
from retrieval_dev.cli.throttle import TokenBucket, UsageThrottle, Verdict
from retrieval_dev.cli.tiers import TIERS, TierAssignment

BASIC = TIERS["basic"]
REPO = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.at = 1000.0
        self.day = 20_000

    def now(self) -> float:
        return self.at

    def today(self) -> int:
        return self.day


def test_a_bucket_admits_its_burst_then_refills_at_its_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate_per_second=2, burst=3, now=clock.now)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    clock.at += 0.5  # one token back
    assert [bucket.take(), bucket.take()] == [True, False]
    clock.at += 60  # never more than the burst
    assert sum(bucket.take() for _ in range(10)) == 3


def test_each_usage_key_has_its_own_bucket() -> None:
    clock = Clock()
    throttle = UsageThrottle(now=clock.now, today=clock.today)
    burst = TIERS["basic"].burst
    flood = [throttle.admit(usage_identifier_key("flood"), BASIC) for _ in range(burst + 5)]
    assert flood.count(Verdict.ADMITTED) == burst
    assert flood[burst:] == [Verdict.THROTTLED] * 5
    assert throttle.admit(usage_identifier_key("quiet"), BASIC) is Verdict.ADMITTED


def test_the_daily_quota_ends_at_the_quota_and_resets_the_next_day() -> None:
    clock = Clock()
    throttle = UsageThrottle(now=clock.now, today=clock.today)
    quota = TIERS["basic"].daily_quota
    assert quota is not None
    key = usage_identifier_key("batch")
    admitted = 0
    for _ in range(quota):
        clock.at += 1  # always a token: only the quota can refuse
        admitted += throttle.admit(key, BASIC) is Verdict.ADMITTED
    assert admitted == quota
    clock.at += 1
    assert throttle.admit(key, BASIC) is Verdict.QUOTA_EXCEEDED
    clock.day += 1
    assert throttle.admit(key, BASIC) is Verdict.ADMITTED


def test_a_throttled_request_does_not_count_against_the_quota() -> None:
    clock = Clock()
    throttle = UsageThrottle(now=clock.now, today=clock.today)
    key = usage_identifier_key("flood")
    for _ in range(1000):
        throttle.admit(key, BASIC)
    clock.at += 1
    assert throttle.admit(key, BASIC) is Verdict.ADMITTED


def test_an_assignment_names_tiers_and_falls_back_to_its_default() -> None:
    assignment = TierAssignment(default_tier="standard", contexts={"flood": "basic"})
    assert assignment.tier_of("flood") == TIERS["basic"]
    assert assignment.tier_of("anyone") == TIERS["standard"]


@pytest.mark.parametrize("contexts", [{"acme": "gold"}, {"Not A Context": "basic"}])
def test_an_assignment_refuses_unknown_tiers_and_bad_context_ids(contexts: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        TierAssignment.model_validate({"contexts": contexts})


def test_the_dev_assignment_file_is_valid() -> None:
    assert TierAssignment.from_file(REPO / "dev" / "tiers.json").tier_of("initech") == TIERS["basic"]


def test_usage_keys_are_api_gateway_sized_and_one_per_context() -> None:
    keys = {usage_identifier_key(ctx) for ctx in ("a", "acme", "acme-2", "a" * 63)}
    assert len(keys) == 4
    assert all(20 <= len(key) <= 128 for key in keys)
    with pytest.raises(InvalidRequestError):
        usage_identifier_key("Acme")


CONTEXT_IDS = st.from_regex(CONTEXT_ID_PATTERN, fullmatch=True)


@given(CONTEXT_IDS, CONTEXT_IDS)
def test_no_two_contexts_share_a_usage_key(first: str, second: str) -> None:
    assert (usage_identifier_key(first) == usage_identifier_key(second)) == (first == second)


@given(CONTEXT_IDS.filter(lambda c: len(c) < 63), st.integers(1, 3))
def test_a_context_and_itself_with_padding_spelled_out_are_two_buckets(context: str, dashes: int) -> None:
    padded = (context + "-" * dashes)[:63]
    assert usage_identifier_key(context) != usage_identifier_key(padded)


@given(CONTEXT_IDS)
def test_a_usage_key_names_its_context_and_fits_api_gateway(context: str) -> None:
    key = usage_identifier_key(context)
    assert usage_key_context(key) == context
    assert 20 <= len(key) <= 128


def test_the_reported_collision_is_two_buckets() -> None:
    assert usage_identifier_key("ab") != usage_identifier_key("ab--")
