"""Where the project's checkout is, so the CLI works from any directory: the folder holding
``pyproject.toml`` above this package (the dev install is editable: ``make install``), else the
working directory. Paths the CLI reads by default (``functions/``, the sample corpus, the stack's
``.stack/env``) are looked up in the working directory first, then there."""

from __future__ import annotations

from functools import cache
from pathlib import Path


@cache
def project_root() -> Path | None:
    """The checkout this package was installed from; None for a non-editable install."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() and (root / "functions").is_dir() else None


def project_path(relative: str) -> Path:
    """``relative`` in the working directory when it is there, else in the checkout (when known); made
    absolute, so a later change of directory does not lose it."""
    here = Path.cwd() / relative
    root = project_root()
    if here.exists() or root is None:
        return here
    return root / relative
