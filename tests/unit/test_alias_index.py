"""The dictionary held in the function: the linker reads a question against the entries ``AliasIndex``
finds for it exactly as against the whole dictionary (names, aliases, near misses, ambiguous aliases)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from retrieval_core.models.page_titles import PAGE_ENTITY_TYPE, SINGLE_NAME_TYPE
from retrieval_core.ports import NamedEntity
from retrieval_core.understanding.alias_index import AliasIndex
from retrieval_core.understanding.linker import Link, link

SYLLABLES = ["ka", "lo", "ven", "mir", "dra", "sol", "tas", "ri", "no", "bel", "quin", "ar"]
TYPES = ["Person", "page", "Team", "Customer", SINGLE_NAME_TYPE, "Project"]
FILLER = ["where", "was", "the", "of", "born", "which", "team", "and", "in", "a", "Who", "did"]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4))).capitalize()


def _dictionary(rng: random.Random, size: int) -> list[NamedEntity]:
    entries = []
    for n in range(size):
        kind = rng.choice(TYPES)
        name = " ".join(_word(rng) for _ in range(rng.randint(1, 3)))
        if kind == "Project" and rng.random() < 0.5:
            name = f"Project {name}"
        if kind == PAGE_ENTITY_TYPE and rng.random() < 0.3:
            name = f"{name} ({_word(rng).lower()})"
        entries.append(NamedEntity(f"c:{kind.lower()}/{n}", name, kind))
    return entries


def _edited(word: str, rng: random.Random) -> str:
    at = rng.randrange(1, len(word)) if len(word) > 1 else 0
    return word[:at] + rng.choice("aeioukl") + word[at + 1 :]


def _question(rng: random.Random, entries: list[NamedEntity]) -> str:
    words = [rng.choice(FILLER) for _ in range(rng.randint(2, 6))]
    for entry in rng.sample(entries, k=min(len(entries), rng.randint(1, 3))):
        name = entry.name.split(" (")[0]
        parts = name.split()
        if rng.random() < 0.3:  # a near miss
            parts = [_edited(p, rng) if rng.random() < 0.5 else p for p in parts]
        if rng.random() < 0.3:  # one word of it: an alias, or nothing
            parts = [rng.choice(parts)]
        if rng.random() < 0.2:
            parts = [p.lower() for p in parts]
        words.insert(rng.randrange(len(words) + 1), " ".join(parts) + ("'s" if rng.random() < 0.2 else ""))
    return " ".join(words) + "?"


def _read(question: str, entries: list[NamedEntity]) -> list[Link]:
    return link(question, entries)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=1, max_value=200))
def test_the_index_s_candidates_read_every_question_as_the_whole_dictionary_does(
    seed: int, size: int
) -> None:
    rng = random.Random(seed)
    entries = _dictionary(rng, size)
    index = AliasIndex(entries)
    for _ in range(5):
        question = _question(rng, entries)
        assert _read(question, index.candidates(question)) == _read(question, entries), question


def test_an_alias_two_entities_share_stays_ambiguous_through_the_index() -> None:
    alice_chen = NamedEntity("c:person/alice-chen", "Alice Chen", "Person")
    alice_wong = NamedEntity("c:person/alice-wong", "Alice Wong", "Person")
    index = AliasIndex([alice_chen, alice_wong])
    assert set(index.candidates("What did Alice ship?")) == {alice_chen, alice_wong}
    assert link("What did Alice ship?", index.candidates("What did Alice ship?")) == []


def test_a_near_miss_of_a_long_name_is_a_candidate_and_a_stranger_is_not() -> None:
    dmitri = NamedEntity("c:person/dmitri-volkov", "Dmitri Volkov", "Person")
    other = NamedEntity("c:team/payments", "Payments", "Team")
    index = AliasIndex([dmitri, other])
    assert index.candidates("what did Dmitry Volkov deploy") == [dmitri]
    (found,) = link("what did Dmitry Volkov deploy", index.candidates("what did Dmitry Volkov deploy"))
    assert (found.entity_id, found.how) == (dmitri.entity_id, "fuzzy")


def test_added_names_become_candidates_and_single_names_never_do() -> None:
    index = AliasIndex()
    zimbabwe = NamedEntity("c:single-name/zimbabwe", "Zimbabwe", SINGLE_NAME_TYPE)
    page = NamedEntity("c:entity/harare", "Harare", PAGE_ENTITY_TYPE)
    assert index.add([zimbabwe, page]) == 1
    assert index.add([page]) == 0
    assert index.candidates("Is Harare in Zimbabwe?") == [page]
    assert index.types == {SINGLE_NAME_TYPE, PAGE_ENTITY_TYPE}
