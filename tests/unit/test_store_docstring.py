"""``OpenSearchStore``'s docstring names every port it implements, so it stays true as ports come."""

from __future__ import annotations

import re
from typing import Protocol

from retrieval_core.adapters.opensearch.store import OpenSearchStore
from retrieval_core.ports import SearchStore

COUNTS = {8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}


def test_the_store_docstring_names_each_port_of_search_store_and_their_count() -> None:
    ports = [base.__name__ for base in SearchStore.__bases__ if base is not Protocol]
    doc = OpenSearchStore.__doc__ or ""
    assert set(ports) <= set(re.findall(r"\b[A-Z][A-Za-z]+\b", doc))
    assert f"all {COUNTS[len(ports)]} of its ports" in doc
