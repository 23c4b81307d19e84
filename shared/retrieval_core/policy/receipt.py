"""What an accepted query hands back besides its result: a receipt the agent can cite, and the effect
hooks that may add to it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from ..models.hits import Hit
from ..models.vocabulary import empty_dict, empty_list


class Receipt(BaseModel):
    """Proof that a query was accepted and answered, naming its sources the way packed context cites
    them (``S1``, ``S2``...)."""

    model_config = ConfigDict(frozen=True)

    sequence: int = Field(ge=1, description="1-based count of accepted queries in the session.")
    query_key: str
    session_id: str | None = None
    requested_at: str
    completed_at: str
    source_ids: list[str] = Field(description="The sources' session names, in result order.")
    extensions: dict[str, Any] = Field(
        default_factory=empty_dict, description="Effect name -> fields it added."
    )
    failed_effects: list[str] = Field(default_factory=empty_list)


@dataclass(frozen=True, slots=True)
class EffectInput:
    """Everything an effect may look at; effects add to the receipt, they never change the result."""

    context_id: str
    query: Mapping[str, Any]
    result: Sequence[Hit]
    receipt: Receipt
    names: Mapping[str, str]


Effect = Callable[[EffectInput], Mapping[str, Any]]
"""A named handler whose returned fields land in ``receipt.extensions[name]``."""


class Outcome(NamedTuple):
    """A completed query's receipt, and item id -> citable name."""

    receipt: Receipt
    names: dict[str, str]


@dataclass(frozen=True, slots=True)
class Replay:
    """The kept answer of an idempotent request sent again, as the caller rendered it, and the receipt
    it got then. Nothing ran and nothing was counted."""

    answer: bytes
    receipt: Receipt
