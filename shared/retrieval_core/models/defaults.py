"""Empty defaults for pydantic fields, as Python functions rather than the ``list`` and ``dict`` types.

Pydantic reads a default factory's signature (does it take the validated data?). For a builtin type
that means parsing its text signature with ``tokenize``: about 3 ms of a cold start over the models the
retrieve function imports (1.3 ms of it compiling tokenize's pattern), where a function's signature is
read directly. The JSON Schema is the same: neither states a default.
"""

from __future__ import annotations

from typing import Any


def empty_list() -> list[Any]:
    return []


def empty_dict() -> dict[Any, Any]:
    return {}
