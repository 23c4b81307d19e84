"""The rebuild function's event: which indices, and whether to embed again or roll back."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..context import CONTEXT_ID_PATTERN


class RebuildRequest(BaseModel):
    """``{"context_id": "acme"}`` or ``{"all": true}``, with ``"reembed": true`` or ``"rollback": true``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    context_id: str | None = Field(default=None, pattern=CONTEXT_ID_PATTERN.pattern)
    all: bool = False
    reembed: bool = False
    rollback: bool = False

    @model_validator(mode="after")
    def _one_target(self) -> RebuildRequest:
        if (self.context_id is None) == (not self.all):
            raise ValueError("give either context_id or all: true")
        if self.reembed and self.rollback:
            raise ValueError("reembed applies to a rebuild, not to a rollback")
        return self
