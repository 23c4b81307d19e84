"""How far one request wanders: the product files and functions a call enters, and how often control
changes file, counted with ``sys.setprofile`` over the product's own code (``shared/retrieval_core`` and
``functions/``; libraries, the dev tools and tests are not counted).

A *switch* is a call whose function lives in another product file than the product function that was
running when it was made (a call into a library and back is no switch). Issue 50's aim for one warm
hybrid request: at most 30 files and 100 switches (50 and 189 when it was filed).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PRODUCT = (str(REPO / "shared" / "retrieval_core") + "/", str(REPO / "functions") + "/")


@dataclass(frozen=True, slots=True)
class Flow:
    """What one call entered: files (with how many calls each), functions, and file switches."""

    files: Counter[str]
    functions: int
    switches: int
    crossings: Counter[tuple[str, str]]
    """Switches by (caller's file, callee's file)."""

    def summary(self) -> str:
        return f"{len(self.files)} files, {self.functions} functions, {self.switches} file switches"


def _product_file(frame: FrameType | None) -> str | None:
    """The nearest product frame's file, walking out of library frames."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(PRODUCT):
            return name
        frame = frame.f_back
    return None


def counted(call: Callable[[], Any]) -> tuple[Any, Flow]:
    """``call()``'s result and the flow it took."""
    files: Counter[str] = Counter()
    functions: set[tuple[str, int]] = set()
    crossings: Counter[tuple[str, str]] = Counter()

    def profile(frame: FrameType, event: str, _: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if not code.co_filename.startswith(PRODUCT):
            return
        files[code.co_filename] += 1
        functions.add((code.co_filename, code.co_firstlineno))
        caller = _product_file(frame.f_back)
        if caller is not None and caller != code.co_filename:
            crossings[caller, code.co_filename] += 1

    sys.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(None)

    def short(name: str) -> str:
        return str(Path(name).relative_to(REPO)).removeprefix("shared/retrieval_core/")

    relative = Counter({short(name): n for name, n in files.items()})
    pairs = Counter({(short(a), short(b)): n for (a, b), n in crossings.items()})
    return result, Flow(relative, len(functions), sum(pairs.values()), pairs)
