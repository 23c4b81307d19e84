"""A seeded corpus for the filter tests: two contexts whose items carry strings, numbers, dates, booleans,
lists, nulls and missing keys in their metadata, plus every built-in field a filter can name. The other
context's metadata values exist only there (``FOREIGN_*``), so a filter naming them must find nothing
in the main context."""

from __future__ import annotations

import json
import math
import random
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from retrieval_core.models.item import Item
from retrieval_core.models.vocabulary import Kind, Status

CTX = "fprop"
OTHER = "fother"
QUERY_WORD = "zephyr"
WORDS = ("zephyr", "quartz", "marble", "copper", "violet", "falcon")
METADATA_TYPES = {"team": "keyword", "tags": "keyword", "amount": "number", "due": "date", "flag": "boolean"}
TEAMS = ("payments", "pay-ops", "risk", "core")
TAGS = ("red", "green", "blue", "amber")
NOTES = ("alpha note", "beta", "gamma ray")
AMOUNTS = (-3, -0.5, 0, 1, 2.5, 4, 7, 10, 12.5, 20)
CONFIDENCES = tuple(round(0.05 * n, 2) for n in range(21))
ZONES = (UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5)))
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
FOREIGN_TEAM = "fother-only-team"
FOREIGN_TAG = "fother-tag"
FOREIGN_NOTE = "fother secret"
ENTITIES = 5
DOCS = 4
DIMENSION = 384


def moment(day: int, zone: timezone = UTC) -> str:
    """An ISO-8601 timestamp ``day`` days and a few hours after the epoch, written in ``zone``."""
    return (EPOCH + timedelta(days=day, hours=day % 7)).astimezone(zone).isoformat()


def unit_vector(rng: random.Random) -> list[float]:
    raw = [rng.gauss(0, 1) for _ in range(DIMENSION)]
    norm = math.sqrt(sum(v * v for v in raw))
    return [round(v / norm, 6) for v in raw]


def _maybe(rng: random.Random, value: Any) -> Any:
    return value if rng.random() < 0.7 else None


def _metadata(rng: random.Random, foreign: bool) -> dict[str, Any]:
    values = {
        "team": FOREIGN_TEAM if foreign else rng.choice(TEAMS),
        "tags": [FOREIGN_TAG] if foreign else rng.sample(TAGS, rng.randint(0, 3)),
        "amount": rng.choice(AMOUNTS) + (1000 if foreign else 0),
        "due": moment(rng.randint(0, 60), rng.choice(ZONES)),
        "flag": rng.random() < 0.5,
        "note": FOREIGN_NOTE if foreign else rng.choice(NOTES),
    }
    # Missing keys and explicit nulls both mean "no value".
    return {k: v for k, v in values.items() if rng.random() < 0.8} | (
        {"amount": None} if rng.random() < 0.1 else {}
    )


def _item(rng: random.Random, ctx: str, n: int) -> Item:
    mentions = [
        {
            "entity_id": f"{ctx}:person/p{j}",
            "name": f"P{j}",
            "type": rng.choice(("Person", "Team", "Service")),
        }
        for j in rng.sample(range(ENTITIES), rng.randint(0, 2))
    ]
    created = rng.randint(0, 60)
    valid_from = _maybe(rng, created)
    valid_to = None if valid_from is None else _maybe(rng, valid_from + rng.randint(0, 30))
    return Item.model_validate(
        {
            "context_id": ctx,
            "id": f"{ctx}:i-{n:03d}",
            "kind": rng.choice(list(Kind)),
            "status": rng.choice(list(Status)),
            "text": f"item {n} " + " ".join(rng.sample(WORDS, 3)),
            "mentions": mentions,
            "confidence": _maybe(rng, rng.choice(CONFIDENCES)),
            "created_at": moment(created),
            "valid_from": None if valid_from is None else moment(valid_from),
            "valid_to": None if valid_to is None else moment(valid_to),
            "source_ids": [f"{ctx}:doc-{j}" for j in rng.sample(range(DOCS), rng.randint(0, 2))],
            "metadata": _metadata(rng, foreign=ctx == OTHER),
            "embedding": unit_vector(rng),
        }
    )


def build(seed: int = 16, size: int = 80, foreign: int = 20) -> list[Item]:
    rng = random.Random(seed)
    return [_item(rng, CTX, n) for n in range(size)] + [_item(rng, OTHER, n) for n in range(foreign)]


def jsonl(items: list[Item]) -> list[str]:
    return [json.dumps(item.model_dump(mode="json")) for item in items]
