"""A DynamoDB row's address, on its own so that the writer and the errors it raises can both name it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RowRef:
    """A row's address: its table and key (``pk``, ``sk``; ``sk`` may be absent)."""

    table: str
    pk: str
    sk: str | None = None

    def key(self) -> dict[str, dict[str, str]]:
        key = {"pk": {"S": self.pk}}
        if self.sk is not None:
            key["sk"] = {"S": self.sk}
        return key
