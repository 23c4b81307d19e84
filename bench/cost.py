"""What a million requests cost, computed from the run's own figures and public on-demand list prices.

Per request: Lambda is billed for its duration (rounded up to 1 ms) times its memory, plus a request fee;
DynamoDB on-demand for write and read request units (``bench/units.py`` computes them per call);
OpenSearch is billed by capacity (instance hours for a managed domain, OCU hours for Serverless), not
per call, so its column is a call count to size that capacity with, not a price. The duration is this
run's warm handler p50 on this machine against the local stack: a deployed function's duration differs
(a network round trip to each backend, a different CPU share), so read the Lambda column as this run's
figure, to be re-derived from CloudWatch's billed duration after deploying.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TEMPLATE = Path(__file__).resolve().parent.parent / "template.yaml"


@dataclass(frozen=True, slots=True)
class Prices:
    """US East (N. Virginia) on-demand list prices in USD, as published on the pages cited."""

    lambda_gb_second: float = 0.0000166667
    """x86_64, first 6 billion GB-seconds a month: https://aws.amazon.com/lambda/pricing/"""
    lambda_request: float = 0.20 / 1e6
    """https://aws.amazon.com/lambda/pricing/"""
    dynamodb_write_unit: float = 0.625 / 1e6
    """On-demand write request unit (1 KB): https://aws.amazon.com/dynamodb/pricing/on-demand/"""
    dynamodb_read_unit: float = 0.125 / 1e6
    """On-demand read request unit (a strongly consistent read of 4 KB, or two eventually consistent
    ones): https://aws.amazon.com/dynamodb/pricing/on-demand/"""
    as_of: str = "list prices since 2024-11-01 (DynamoDB on-demand halved that day); check before relying"


PRICES = Prices()


@dataclass(frozen=True, slots=True)
class RequestFigures:
    """What one request of a kind measured: warm handler p50, DynamoDB units, OpenSearch calls."""

    label: str
    p50_ms: float
    write_units: float
    read_units: float
    opensearch_calls: float


def function_memory_mb(template: Path = TEMPLATE) -> int:
    """The API functions' memory: ``Globals.Function.MemorySize`` in template.yaml."""
    globals_part = template.read_text().split("\nGlobals:", 1)[1].split("\nResources:", 1)[0]
    found = re.search(r"^\s+MemorySize:\s*(\d+)\s*$", globals_part, re.MULTILINE)
    if found is None:
        raise ValueError(f"no Globals MemorySize in {template}")
    return int(found.group(1))


def per_million(figures: RequestFigures, memory_mb: int, prices: Prices = PRICES) -> dict[str, Any]:
    billed_seconds = math.ceil(figures.p50_ms) / 1000
    gb_seconds = 1e6 * billed_seconds * memory_mb / 1024
    lambda_usd = gb_seconds * prices.lambda_gb_second + 1e6 * prices.lambda_request
    dynamodb_usd = 1e6 * (
        figures.write_units * prices.dynamodb_write_unit + figures.read_units * prices.dynamodb_read_unit
    )
    return {
        "label": figures.label,
        "memory_mb": memory_mb,
        "billed_ms": math.ceil(figures.p50_ms),
        "lambda_gb_seconds": gb_seconds,
        "lambda_usd": lambda_usd,
        "write_units": figures.write_units * 1e6,
        "read_units": figures.read_units * 1e6,
        "dynamodb_usd": dynamodb_usd,
        "opensearch_calls": figures.opensearch_calls * 1e6,
        "total_usd": lambda_usd + dynamodb_usd,
    }


def figures_of(results: dict[str, Any]) -> list[RequestFigures]:
    """The request kinds this run measured, each with its figures."""
    found: list[RequestFigures] = []
    for mode, measured in results.get("retrieve", {}).items():
        if "handler" in measured:
            found.append(
                RequestFigures(
                    f"retrieve {mode}",
                    measured["handler"]["p50_ms"],
                    measured.get("write_units", 0.0),
                    measured.get("read_units", 0.0),
                    measured["opensearch_calls"],
                )
            )
    policy = results.get("policy", {})
    sizes = policy.get("by_session_size", {})
    if "with_session" in policy and sizes:
        # The units of a warm request in the largest measured session: constant by design.
        largest = sizes[max(sizes, key=int)]
        found.append(
            RequestFigures(
                "retrieve lexical, with a session",
                policy["with_session"]["p50_ms"],
                largest["write_units"],
                largest["read_units"],
                1,
            )
        )
    for function in ("graph_path", "why_explain"):
        by_depth = results.get("graph", {}).get(function, {})
        depth3 = by_depth.get(3) or by_depth.get("3")
        if depth3 and "read_units" in depth3:
            found.append(
                RequestFigures(
                    f"{function}, depth 3",
                    depth3["p50_ms"],
                    0.0,
                    depth3["read_units"],
                    depth3["opensearch_calls"],
                )
            )
    return found


def cost_table(results: dict[str, Any], memory_mb: int | None = None) -> list[dict[str, Any]]:
    memory = memory_mb or function_memory_mb()
    return [per_million(figures, memory) for figures in figures_of(results)]
