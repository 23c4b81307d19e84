"""Debian's Chromium driven by Playwright for Python, for tests of the workbench page: never a browser
Playwright downloads, no network beyond the loopback server under test (every other request is
aborted and recorded), and a fresh profile each time."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

CHROMIUM = Path(os.environ.get("WORKBENCH_CHROMIUM", "/usr/bin/chromium"))
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 900}


class Browser:
    """One browser profile: ``page()`` opens a tab; ``outside`` lists every request it refused."""

    def __init__(self, context: Any, origin: str) -> None:
        self.context = context
        self.origin = origin
        self.outside: list[str] = []

    def refuse_outside(self, route: Any) -> None:
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob") or f"{parts.scheme}://{parts.netloc}" == self.origin:
            route.continue_()
            return
        self.outside.append(url)
        route.abort()


@contextmanager
def chromium(origin: str, profile: Path) -> Iterator[Browser]:
    """Chromium on a fresh profile at ``profile``, allowed to reach ``origin`` only."""
    if not CHROMIUM.is_file():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: `bash dev/check_prereqs.sh` installs Debian's chromium "
            "(apt-get install chromium), or set WORKBENCH_CHROMIUM to a Chromium binary.",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            args=LAUNCH_ARGS,
            headless=True,
            viewport=VIEWPORT,
            color_scheme="light",
        )
        browser = Browser(context, origin)
        context.route("**/*", browser.refuse_outside)
        try:
            yield browser
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)
