"""How CLI commands find the backends, from any directory: the process environment, completed by a
settings file of ``KEY=value`` lines: ``RETRIEVAL_STACK_ENV`` when it names one, else the dev stack's
``.stack/env`` (``make up`` writes it) in the working directory or in the checkout the CLI was
installed from (``retrieval_dev.project``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..project import project_path

if TYPE_CHECKING:
    from retrieval_core.config import Settings
    from retrieval_core.loading.loader import Loader

SETTINGS_FILE_VARIABLE = "RETRIEVAL_STACK_ENV"
STACK_ENV = ".stack/env"


def stack_env_file() -> Path | None:
    """The settings file this process reads, if there is one."""
    named = os.environ.get(SETTINGS_FILE_VARIABLE)
    if named:
        return Path(named).expanduser()
    found = project_path(STACK_ENV)
    return found if found.is_file() else None


def use_local_stack_env(path: Path | None = None) -> Path | None:
    """Export the settings file's variables that the environment does not already set; returns the
    file read (None: none found)."""
    path = path or stack_env_file()
    if path is None or not path.is_file():
        return None
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and key.strip() not in os.environ:
            os.environ[key.strip()] = value.strip()
    return path


def local_settings() -> Settings:
    """The settings of the deployment the environment (completed by the dev stack's) names."""
    from retrieval_core.config import Settings

    use_local_stack_env()
    return Settings.from_env()


def local_loader() -> Loader:
    """The loader of that deployment."""
    from retrieval_core.bootstrap import Container

    return Container(local_settings()).loader
