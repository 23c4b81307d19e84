"""The entity linker: names, aliases, overlapping names, possessives, near misses, names that are words."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given
from hypothesis import strategies as st
from retrieval_core.models.page_titles import PAGE_ENTITY_TYPE, SINGLE_NAME_TYPE
from retrieval_core.ports import NamedEntity
from retrieval_core.understanding.linker import (
    MIN_CONFIDENCE,
    _Windows,
    _within,
    aliases,
    link,
    near_miss,
    tokens,
)

ALICE = NamedEntity("acme:person/alice-chen", "Alice Chen", "Person")
ALICE_WONG = NamedEntity("acme:person/alice-wong", "Alice Wong", "Person")
DMITRI = NamedEntity("acme:person/dmitri-volkov", "Dmitri Volkov", "Person")
TOMAS = NamedEntity("acme:person/tomas-herrera", "Tomás Herrera", "Person")
PAYMENTS = NamedEntity("acme:team/payments", "Payments", "Team")
PLATFORM = NamedEntity("acme:team/platform", "Platform", "Team")
GATEWAY = NamedEntity("acme:service/payments-gateway", "payments-gateway", "Service")
FALCON = NamedEntity("acme:project/falcon", "Project Falcon", "Project")
NORTHWIND = NamedEntity("acme:customer/northwind-bank", "Northwind Bank", "Customer")
NORTHWIND_TRADERS = NamedEntity("acme:customer/northwind-traders", "Northwind Traders", "Customer")
DICTIONARY = [ALICE, DMITRI, TOMAS, PAYMENTS, PLATFORM, GATEWAY, FALCON, NORTHWIND, NORTHWIND_TRADERS]


def linked(question: str, dictionary: list[NamedEntity] = DICTIONARY) -> list[tuple[str, str]]:
    return [(found.span.text, found.entity_id) for found in link(question, dictionary)]


def test_a_full_name_links_with_full_confidence_and_its_span() -> None:
    (found,) = link("What did Dmitri Volkov deploy before April?", DICTIONARY)
    assert (found.entity_id, found.confidence, found.how) == (DMITRI.entity_id, 1.0, "name")
    assert (found.span.start, found.span.end, found.span.text) == (9, 22, "Dmitri Volkov")


def test_case_and_punctuation_do_not_matter() -> None:
    assert linked("status of DMITRI volkov?") == [("DMITRI volkov", DMITRI.entity_id)]
    assert linked("latency of payments gateway") == [("payments gateway", GATEWAY.entity_id)]


def test_possessives_link_the_owner() -> None:
    assert linked("What is Alice Chen's role?") == [("Alice Chen's", ALICE.entity_id)]
    assert linked("Dmitri Volkov\u2019s deploys") == [("Dmitri Volkov\u2019s", DMITRI.entity_id)]


def test_accents_are_folded() -> None:
    assert linked("tickets of Tomas Herrera") == [("Tomas Herrera", TOMAS.entity_id)]


def test_aliases_a_persons_first_or_last_name_and_a_project_without_its_prefix() -> None:
    (found,) = link("what did Volkov ship", DICTIONARY)
    assert (found.entity_id, found.how) == (DMITRI.entity_id, "alias")
    assert found.confidence < 1.0
    assert linked("who sponsors the Falcon project") == [("Falcon", FALCON.entity_id)]


def test_an_organisations_first_word_is_an_alias_written_as_a_name() -> None:
    kestrel = NamedEntity("globex:vendor/kestrel-trucking", "Kestrel Trucking", "Vendor")
    scoring = NamedEntity("acme:service/fraud-scoring", "fraud-scoring", "Service")
    (found,) = link("Where does Kestrel send GPS pings?", [kestrel, scoring])
    assert (found.entity_id, found.how, found.span.text) == (kestrel.entity_id, "alias", "Kestrel")
    # A system's hyphenated name does not answer to its first word, nor a person's to anything but
    # their own first and last names.
    assert linked("what did fraud teams flag", [kestrel, scoring]) == []
    # An alias, so shared by two Northwinds it links neither; like any one-word name it must be written
    # as a name.
    assert linked("Is Northwind a customer?") == []
    assert linked("Is Kestrel a vendor?", [kestrel]) == [("Kestrel", kestrel.entity_id)]
    assert linked("is kestrel a bird?", [kestrel]) == []
    success = NamedEntity("globex:team/customer-success", "Customer Success", "Team")
    assert linked("Which Customer accounts churned?", [success]) == []


def test_an_alias_two_entities_share_links_neither() -> None:
    assert linked("what does Alice own", [ALICE, ALICE_WONG]) == []
    assert linked("what does Alice Wong own", [ALICE, ALICE_WONG]) == [("Alice Wong", ALICE_WONG.entity_id)]


def test_overlapping_names_the_longest_match_wins() -> None:
    # "Payments" (a team) lies inside "payments gateway" (a service): the service is meant.
    assert linked("Who owns the Payments gateway?") == [("Payments gateway", GATEWAY.entity_id)]
    # Two entities that share a first word: each full name claims its own span.
    assert linked("Northwind Bank and Northwind Traders") == [
        ("Northwind Bank", NORTHWIND.entity_id),
        ("Northwind Traders", NORTHWIND_TRADERS.entity_id),
    ]


def test_a_small_edit_distance_for_longer_names_only() -> None:
    (found,) = link("what did Dmitry Volkov deploy", DICTIONARY)
    assert (found.entity_id, found.how) == (DMITRI.entity_id, "fuzzy")
    assert MIN_CONFIDENCE <= found.confidence < 1.0
    # One edit from eight characters ("Platfrm"), none below ("Falcom" is not Falcon).
    assert [(f.entity_id, f.how) for f in link("the Platfrm team", DICTIONARY)] == [
        (PLATFORM.entity_id, "fuzzy")
    ]
    assert linked("what about Falcom") == []


def test_a_near_miss_keeps_its_numbers() -> None:
    games = NamedEntity("acme:page/1904-summer-olympics", "1904 Summer Olympics", "page")
    assert linked("who competed at the 1920 Summer Olympics", [games]) == []
    assert linked("who competed at the 1904 Sumer Olympics", [games]) == [
        ("1904 Sumer Olympics", games.entity_id)
    ]


def test_names_that_are_also_common_words_need_to_be_written_as_names() -> None:
    assert linked("which platform incidents happened") == []
    assert linked("how do payments settle") == []
    # Capitalised inside a sentence, or followed by the word for its type: a name.
    assert linked("incidents on Platform last week") == [("Platform", PLATFORM.entity_id)]
    assert linked("who leads the payments team") == [("payments", PAYMENTS.entity_id)]
    # At the start of a sentence a capital says nothing.
    assert linked("Platform incidents last week") == []


def test_nothing_outside_the_dictionary_links() -> None:
    assert linked("Who is Sven Larsen?") == []
    assert linked("anything at all", []) == []


def _levenshtein(a: str, b: str) -> int:
    """The whole edit table, as the banded check must agree with it."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


@given(st.text(alphabet="abc d", max_size=12), st.text(alphabet="abc d", max_size=12), st.integers(0, 3))
def test_the_banded_edit_check_agrees_with_the_whole_table(a: str, b: str, cap: int) -> None:
    assert _within(a, b, cap) == (_levenshtein(a, b) <= cap)


@given(st.text(alphabet="ab1 e", min_size=6, max_size=16), st.text(alphabet="ab1 e", min_size=6, max_size=16))
def test_a_near_miss_is_the_edit_distance_whatever_the_shortcuts(seen: str, name: str) -> None:
    # The definition, without the cheap rejections (length, letters used) taken before the edit table.
    allowed = 2 if len(name) >= 14 else 1
    numbers = [w for w in seen.replace("a", " ").replace("b", " ").replace("e", " ").split()]
    named = [w for w in name.replace("a", " ").replace("b", " ").replace("e", " ").split()]
    expected = (
        len(name) >= 8 and seen[:1] == name[:1] and numbers == named and _levenshtein(seen, name) <= allowed
    )
    assert near_miss(seen, name) == expected


def test_a_name_matches_wherever_the_question_writes_it_exactly_before_nearly() -> None:
    # The same name twice, misspelt first: the exact mention is the link, wherever it is.
    (found,) = link("Dmitry Volkov or Dmitri Volkov, and who else?", DICTIONARY)
    assert (found.span.text, found.how, found.confidence) == ("Dmitri Volkov", "name", 1.0)
    (found,) = link("tell me about Dmitry Volkov", DICTIONARY)
    assert (found.span.text, found.how) == ("Dmitry Volkov", "fuzzy")
    # A question shorter than the name links nothing, and a name at the very end links.
    assert linked("Dmitri") == [("Dmitri", DMITRI.entity_id)]
    assert linked("what about Project Falcon") == [("Project Falcon", FALCON.entity_id)]


def test_an_alias_that_can_start_nowhere_in_the_question_is_passed_over() -> None:
    windows = _Windows(tokens("Where was Dmitry Volkov born?"))
    assert windows.could_match(("volkov",))  # a token is its first word: an exact match may start there
    assert windows.could_match(("dmitri", "volkov"))  # "dmitry" starts with its letter: a near miss may
    assert windows.could_match(("wxyzabcd",))  # eight letters from a token's first: a near miss may
    assert not windows.could_match(("berlin",))  # no token starts with "b" but "born": not a near miss
    assert not windows.could_match(("wx",))  # too short for a near miss, and no token is "wx"
    assert not windows.could_match(("dmitri",))  # six letters: exact or nothing


_WORD = st.text(alphabet="abé1", min_size=1, max_size=9)


@given(
    st.lists(_WORD, min_size=1, max_size=8),
    st.lists(
        st.tuples(st.lists(_WORD, min_size=1, max_size=3), st.sampled_from(["Thing", "Person"])), max_size=6
    ),
)
def test_passing_over_what_cannot_match_changes_no_link(
    question: list[str], names: list[tuple[list[str], str]]
) -> None:
    dictionary = [NamedEntity(f"acme:x/{n}", " ".join(name), kind) for n, (name, kind) in enumerate(names)]
    text = " ".join(question)
    with patch.object(_Windows, "could_match", lambda self, alias: True):
        every_alias_tried = link(text, dictionary)
    assert link(text, dictionary) == every_alias_tried


def test_an_entrys_aliases_are_remembered_not_recomputed() -> None:
    aliases.cache_clear()
    first = aliases(DMITRI)
    assert aliases(DMITRI) is first
    assert aliases.cache_info().hits == 1


def test_a_one_word_name_no_page_is_about_is_a_bridge_the_question_does_not_link() -> None:
    zimbabwe = NamedEntity("acme:entity/zimbabwe", "Zimbabwe", SINGLE_NAME_TYPE)
    river = NamedEntity("acme:entity/bubye-river", "Bubye River", PAGE_ENTITY_TYPE)
    question = "Which waterfall of Zimbabwe is in the country where the Bubye River is found?"
    assert linked(question, [zimbabwe, river]) == [("Bubye River", river.entity_id)]
