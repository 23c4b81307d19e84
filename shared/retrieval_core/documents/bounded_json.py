"""JSON from a file (a sidecar) parsed with a nesting-depth limit: the depth is counted by one pass over
the text before the parser sees it, so a document nested 4,000 deep is refused by its depth, never by
the parser's recursion (``RecursionError``)."""

from __future__ import annotations

import json
from typing import Any


class TooDeepError(ValueError):
    """The JSON text nests deeper than allowed."""


def nesting_depth_exceeds(text: str, limit: int) -> bool:
    """Whether ``text`` opens more than ``limit`` arrays or objects inside one another (strings and their
    escapes skipped). Linear, no recursion; malformed JSON is the parser's to report."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def loads(data: bytes | str, max_depth: int) -> Any:
    """``json.loads`` of ``data`` once its nesting is within ``max_depth`` (``TooDeepError`` otherwise);
    invalid JSON or UTF-8 raise what ``json.loads`` raises (``ValueError``s)."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    if nesting_depth_exceeds(text, max_depth):
        raise TooDeepError(f"nests deeper than {max_depth} levels")
    return json.loads(text)
