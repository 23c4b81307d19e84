"""Retrieval quality on a judged test collection, measured through the real retrieve handler.

Submodules import only the standard library and pydantic at import time; the stack, the loader and the
handler are reached inside the functions that need them.
"""
