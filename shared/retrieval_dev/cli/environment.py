"""How CLI commands find the backends: the process environment, completed by the dev stack's
``.stack/env`` when one is present in the working directory (``make up`` writes it)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retrieval_core.config import Settings
    from retrieval_core.loading.loader import Loader

STACK_ENV = Path(".stack/env")


def use_local_stack_env(path: Path = STACK_ENV) -> None:
    """Export the dev stack's variables that the environment does not already set."""
    if not path.is_file():
        return
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and key.strip() not in os.environ:
            os.environ[key.strip()] = value.strip()


def local_settings() -> Settings:
    """The settings of the deployment the environment (completed by the dev stack's) names."""
    from retrieval_core.config import Settings

    use_local_stack_env()
    return Settings.from_env()


def local_loader() -> Loader:
    """The loader of that deployment."""
    from retrieval_core.bootstrap import Container

    return Container(local_settings()).loader
