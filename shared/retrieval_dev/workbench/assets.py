"""The workbench's files as HTTP answers: a fixed set read from package data, nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

PAGE_PATH = "/"
ASSET_PREFIX = "/workbench/"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
# Only the server the page came from: scripts, styles, fetches (the API) and images. Cytoscape sets
# element styles from script, which style-src 'unsafe-inline' allows; no inline script runs.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; "
    "img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@dataclass(frozen=True)
class Asset:
    """One answer: its headers and UTF-8 body."""

    content_type: str
    body: str

    @property
    def headers(self) -> list[tuple[str, str]]:
        return [
            ("Content-Type", self.content_type),
            ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("Cache-Control", "no-store"),
        ]


def page_asset(path: str) -> Asset | None:
    """The answer to ``GET path`` (the path part of the URL only), or None when it is not the
    workbench's: the page at ``/``, a served file under ``/workbench/``."""
    if path == PAGE_PATH:
        return _served().get("index.html")
    if path.startswith(ASSET_PREFIX):
        return _served().get(path.removeprefix(ASSET_PREFIX))
    return None


@cache
def _served() -> dict[str, Asset]:
    """Every file under ``static/`` whose type the page serves, by its path there (read once)."""
    root = resources.files(__package__).joinpath("static")
    found: dict[str, Asset] = {}
    pending = [("", root)]
    while pending:
        prefix, folder = pending.pop()
        for entry in folder.iterdir():
            name = f"{prefix}{entry.name}"
            if entry.is_dir():
                pending.append((f"{name}/", entry))
            elif (suffix := _suffix(entry.name)) in CONTENT_TYPES:
                found[name] = Asset(CONTENT_TYPES[suffix], entry.read_text(encoding="utf-8"))
    return found


def _suffix(name: str) -> str:
    return name[name.rfind(".") :] if "." in name else ""
