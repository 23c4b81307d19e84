"""The machine facts every report carries, so numbers from different machines are never mixed up."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from typing import Any


def facts(opensearch_client: Any) -> dict[str, Any]:
    info = opensearch_client.info()
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cores": os.cpu_count(),
        "cpu": _cpu_model(),
        "memory_gib": _memory_gib(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "opensearch": info["version"]["number"],
        "lucene": info["version"].get("lucene_version"),
    }


def _cpu_model() -> str:
    for line in _lines("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    for line in _lines("/proc/meminfo"):
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / 1024 / 1024, 1)
    return None


def _lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as source:
            return source.readlines()
    except OSError:
        return []
