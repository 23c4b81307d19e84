"""API Gateway's usage-plan throttle, locally: a token bucket per usage key, and a daily quota.

A request takes one token; the bucket holds at most the tier's ``burst`` and refills at its
``rate_per_second``. An empty bucket is a 429 ``THROTTLED``, a spent quota a 429 ``QUOTA_EXCEEDED``, both
answered before any function runs (the flooder pays nothing downstream). Thread-safe: ``retrieval
serve`` asks from its worker threads. The clocks are injected so tests need no sleeps.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from .tiers import Tier


class Verdict(Enum):
    ADMITTED = "admitted"
    THROTTLED = "throttled"
    QUOTA_EXCEEDED = "quota_exceeded"


@dataclass(slots=True)
class TokenBucket:
    """``burst`` tokens at most, ``rate_per_second`` more each second; full when created."""

    rate_per_second: float
    burst: int
    tokens: float = field(init=False)
    refilled_at: float = field(init=False)
    now: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)
        self.refilled_at = self.now()

    def take(self) -> bool:
        """One token if there is one (True), else nothing is taken (False)."""
        at = self.now()
        self.tokens = min(float(self.burst), self.tokens + (at - self.refilled_at) * self.rate_per_second)
        self.refilled_at = at
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass(slots=True)
class _Usage:
    bucket: TokenBucket
    day: int
    used_today: int = 0


class UsageThrottle:
    """The verdict on each request of a usage key, by its tier (its usage plan)."""

    def __init__(
        self,
        now: Callable[[], float] = time.monotonic,
        today: Callable[[], int] = lambda: int(time.time() // 86_400),
    ) -> None:
        self._now = now
        self._today = today
        self._usage: dict[str, _Usage] = {}
        self._lock = threading.Lock()

    def admit(self, usage_key: str, tier: Tier) -> Verdict:
        """Count one request of ``usage_key``, metered on ``tier`` (the key's first request sets it)."""
        with self._lock:
            usage = self._usage.get(usage_key) or self._start(usage_key, tier)
            day = self._today()
            if day != usage.day:
                usage.day, usage.used_today = day, 0
            if tier.daily_quota is not None and usage.used_today >= tier.daily_quota:
                return Verdict.QUOTA_EXCEEDED
            if not usage.bucket.take():
                return Verdict.THROTTLED
            usage.used_today += 1
            return Verdict.ADMITTED

    def _start(self, usage_key: str, tier: Tier) -> _Usage:
        bucket = TokenBucket(tier.rate_per_second, tier.burst, now=self._now)
        usage = self._usage[usage_key] = _Usage(bucket, self._today())
        return usage
