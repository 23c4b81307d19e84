"""A route's answer as JSON, the same for API Gateway and direct invocations. An answer may leave parts
out of what it writes (a retrieve answer drops the hit parts its request did not ``include``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def _exclude(answer: BaseModel) -> dict[str, Any] | None:
    leave_out = getattr(answer, "serialisation_exclude", None)
    return leave_out() if callable(leave_out) else None


def answer_json(answer: BaseModel) -> str:
    """JSON text written by pydantic-core in one pass."""
    return answer.model_dump_json(by_alias=True, exclude=_exclude(answer))


def answer_body(answer: BaseModel) -> Any:
    """JSON-ready Python values (a direct invocation's ``body``)."""
    return answer.model_dump(mode="json", by_alias=True, exclude=_exclude(answer))
