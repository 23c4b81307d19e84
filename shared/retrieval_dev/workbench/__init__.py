"""The workbench: one page, served by ``retrieval serve`` at ``/``, that calls the real API with a dev
token and draws what an agent gets back (hits and their signals, compare, lineage and path graphs, the
context packet, the session, document status). Development only: never part of the deployed stack.

``page_asset(path)`` is all a server needs: the page for ``/``, its files under ``/workbench/``, and
None for any other path (the server routes that as before). Assets are package data under ``static/``;
the browser libraries are vendored in ``static/vendor/`` (README there), so the page loads nothing from
outside the server it came from, which its Content-Security-Policy enforces.
"""

from __future__ import annotations

from .assets import Asset, page_asset

__all__ = ["Asset", "page_asset"]
