"""The ``pack`` request object: how big the context packet may be and how it is shaped.

Strict types on purpose: a budget of ``True`` or ``3.0`` is a caller bug, not a number to coerce.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationInfo,
    field_validator,
)

from ..models.limits import MAX_REQUEST_INT, WHOLE

PositiveInt = Annotated[StrictInt, Field(gt=0, le=MAX_REQUEST_INT), WHOLE]

Shape = Literal["passages", "brief"]


class PackOptions(BaseModel):
    """Exactly one budget (``max_tokens`` or ``max_chars``) plus optional shaping knobs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # max_chars is declared before max_tokens so the "exactly one budget" check on max_tokens can see it;
    # a budget error is then reported at ``max_tokens``, the field most callers mean to set.
    max_chars: PositiveInt | None = Field(default=None, description="Budget in characters (or max_tokens).")
    max_tokens: PositiveInt | None = Field(
        default=None, validate_default=True, description="Budget in tokens (cl100k_base); or max_chars."
    )
    max_items: PositiveInt | None = Field(default=None, description="At most this many items.")
    shape: Shape = Field(
        default="passages", description="passages: each item's text; brief: its lead sentence."
    )
    compress: StrictBool = Field(
        default=False, description="Keep only the sentences most relevant to task (or the query text)."
    )
    task: Annotated[StrictStr, Field(min_length=1, max_length=2000)] | None = Field(
        default=None, description="What the packet is for: named in its header, guides compress."
    )
    cite_uri: StrictBool = Field(
        default=False,
        description="Put each item's section and link (location.url, else its URI) in its label: "
        "[S1] (document, score 0.9, 19.5. Shutting Down, <https://host/docs/page.html#ID>).",
    )

    @field_validator("max_tokens")
    @classmethod
    def _exactly_one_budget(cls, value: int | None, info: ValidationInfo) -> int | None:
        if "max_chars" not in info.data:  # max_chars failed its own check; that error already names it
            return value
        if value is None and info.data["max_chars"] is None:
            raise ValueError("a budget is required: give max_tokens or max_chars")
        if value is not None and info.data["max_chars"] is not None:
            raise ValueError("give max_tokens or max_chars, not both")
        return value

    @property
    def budget(self) -> int:
        """The one budget that was given, in its own unit."""
        return self.max_tokens if self.max_tokens is not None else self.max_chars  # type: ignore[return-value]

    @property
    def budget_field(self) -> str:
        """The request field the budget came from, for error messages (``pack.max_tokens``)."""
        return "pack.max_tokens" if self.max_tokens is not None else "pack.max_chars"
