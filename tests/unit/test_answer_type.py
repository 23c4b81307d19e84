"""The answer type: which of the context's entity types a question asks for."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from retrieval_core.ports import NamedEntity
from retrieval_core.understanding.answer_types import CALLED, NAMED, WHO, answer_type, singular
from retrieval_core.understanding.reading import read

TYPES = {"Person", "Customer", "Service", "Team"}


@pytest.mark.parametrize(
    ("question", "span", "asked", "confidence"),
    [
        ("Which customers does Ines Moreau manage?", "Which customers", "Customer", NAMED),
        ("which services does the Ledger team own?", "which services", "Service", NAMED),
        ("Which team owns tracking-api?", "Which team", "Team", NAMED),
        ("Which clients rely on fraud-scoring?", "Which clients", "Customer", CALLED),
        ("Who led the Payments team in March 2026?", "Who", "Person", WHO),
        ("To whom does the Fleet team report?", "whom", "Person", WHO),
    ],
)
def test_it_reads_the_type_a_question_asks_for(
    question: str, span: str, asked: str, confidence: float
) -> None:
    found = answer_type(question, TYPES)
    assert found is not None
    assert (found.span.text, found.type, found.confidence) == (span, asked, confidence)
    assert question[found.span.start : found.span.end] == span


@pytest.mark.parametrize(
    "question",
    [
        "What did Dmitri Volkov deploy before April?",  # asks for nothing typed
        "Which HR records are for people based in Berlin?",  # a kind of item, not a type of entity
        "Tell me about Project Falcon",
    ],
)
def test_a_question_that_asks_for_no_known_type_reads_none(question: str) -> None:
    assert answer_type(question, TYPES) is None


def test_who_needs_a_person_type_in_the_context() -> None:
    assert answer_type("Who owns ledger-core?", {"Service", "Team"}) is None
    found = answer_type("Who owns ledger-core?", {"Employee", "Service"})
    assert found is not None and found.type == "Employee"


def test_the_type_is_spelled_as_the_dictionary_spells_it() -> None:
    found = answer_type("Which vendors supply GPS units?", {"VENDOR"})
    assert found is not None and found.type == "VENDOR"


@pytest.mark.parametrize(
    ("plural", "one"),
    [
        ("services", "service"),
        ("companies", "company"),
        ("boxes", "box"),
        ("business", "business"),
        ("team", "team"),
    ],
)
def test_singular(plural: str, one: str) -> None:
    assert singular(plural) == one


def test_a_name_is_not_read_as_an_asked_type() -> None:
    # "Customers" here names a team (capitalised mid-sentence): the question asks about it, not for a type.
    dictionary = [
        NamedEntity("acme:team/customers", "Customers", "Team"),
        NamedEntity("acme:customer/northwind", "Northwind", "Customer"),
    ]
    reading = read("Which Customers members are on call?", dictionary, datetime(2026, 6, 1, tzinfo=UTC))
    assert [link.entity_id for link in reading.links] == ["acme:team/customers"]
    assert reading.answer is None
