"""The offline extractor's rules (documents/name_rules.py), each on a file it must get right: stop words,
shouting, fragments and one-off capitalised phrases out; recurring names, defined acronyms and page
titles in."""

from __future__ import annotations

from collections.abc import Sequence

from retrieval_core.documents.entities import MentionFinder
from retrieval_core.documents.name_rules import RuleBasedExtractor
from retrieval_core.models.page_titles import PAGE_ENTITY_TYPE, SINGLE_NAME_TYPE
from retrieval_core.ports import NamedEntity


def names(*texts: str) -> list[list[str]]:
    """The names and acronyms of each text (one-word names apart: ``singles``)."""
    found = RuleBasedExtractor().extract(texts)
    return [[entity.name for entity in chunk if entity.type != SINGLE_NAME_TYPE] for chunk in found]


def singles(*texts: str) -> list[list[str]]:
    found = RuleBasedExtractor().extract(texts)
    return [[entity.name for entity in chunk if entity.type == SINGLE_NAME_TYPE] for chunk in found]


def test_stop_words_around_a_name_are_cut_and_stop_words_in_capitals_are_no_acronyms() -> None:
    assert names("See Debian Policy for further details. This is NOT equivalent.") == [["Debian Policy"]]


def test_shouting_is_no_acronym_but_an_acronym_within_prose_is() -> None:
    licence = "THE SOFTWARE IS PROVIDED AS IS, WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED."
    assert names(licence, "The daemon speaks SMTP to the relay.") == [[], ["SMTP"]]


def test_a_sentence_s_first_word_that_the_file_writes_in_lower_case_is_cut() -> None:
    texts = (
        "Existing Python 2 libraries must not be dropped.",
        "Keep the existing packages; mark them python2 only.",
    )
    assert names(*texts) == [[], []]


def test_a_name_is_whole_accents_possessives_and_camel_case_included() -> None:
    # A typographer's apostrophe (U+2019), as HTML pages write them.
    found = names(
        "Patches from Tobias Nießen and Gürgün Daşdemir. Many of Ninja\u2019s flags match Make\u2019s."
    )
    assert found == [["Tobias Nießen", "Gürgün Daşdemir"]]
    assert names("Install it with Boxstarter WebLauncher first.") == [["Boxstarter WebLauncher"]]


def test_a_one_off_capitalised_phrase_of_common_words_is_out_and_a_recurring_one_is_in() -> None:
    one_off = ("## Running Tests", "Tests are running on every commit; the team reviews each release.")
    assert names(*one_off) == [[], []]
    recurring = (
        "A member of the Release Team signs each release.",
        "Keys of the Release Team are listed; the team rotates them every release.",
    )
    assert names(*recurring) == [["Release Team"], ["Release Team"]]


def test_a_one_off_name_of_words_only_a_name_uses_is_in() -> None:
    assert names("Copyright 2008 Anthony Green and Red Hat, Inc.") == [["Anthony Green", "Red Hat"]]


def test_defined_acronyms_are_in_with_their_expansions_and_generic_ones_only_when_defined() -> None:
    found = names(
        "We fine-tune Bidirectional Encoder Representations from Transformers (BERT) on the task.",
        "FFI stands for Foreign Function Interface. Its API is small.",
    )
    assert found == [
        ["Bidirectional Encoder Representations from Transformers", "BERT"],
        ["FFI", "Foreign Function Interface"],
    ]
    # A generic abbreviation counts where its file defines it, in any of its chunks.
    defining = names("An Application Programming Interface (API) names its calls.", "The API is small.")
    assert defining == [["Application Programming Interface", "API"], ["API"]]


def test_code_and_markers_are_no_names() -> None:
    text = "Run `LBRACK = pp.Suppress('[')` first. export CXX=g++ then $HOME. TODO: NULL is fine."
    assert names(text) == [[]]


class Pages:
    def entity_names(self, context_id: str) -> list[NamedEntity]:
        return [NamedEntity(f"{context_id}:entity/running-tests", "Running Tests", PAGE_ENTITY_TYPE)]


def test_a_page_title_is_in_where_the_extractor_alone_would_leave_it_out() -> None:
    texts: Sequence[str] = ("See Running Tests before tests are running.",)
    assert names(*texts) == [[]]
    (found,) = MentionFinder(Pages(), RuleBasedExtractor()).mentions("acme", texts)
    assert [(m["entity_id"], m["type"]) for m in found] == [("acme:entity/running-tests", PAGE_ENTITY_TYPE)]


class PageAndName:
    """A dictionary where a page's title was first found as a name by the extractor (the same id: the
    title's slug), before the page itself was indexed."""

    def entity_names(self, context_id: str) -> list[NamedEntity]:
        return [
            NamedEntity("acme:entity/west-virginia", "West Virginia", "name"),
            NamedEntity("acme:entity/west-virginia", "West Virginia", PAGE_ENTITY_TYPE),
        ]


def test_a_name_that_is_also_a_page_is_mentioned_as_the_page() -> None:
    # The multi-hop stage follows page mentions only: typed as a name, the link would be lost.
    texts = ("The county lies in West Virginia, near the river.",)
    for extractor in (None, RuleBasedExtractor()):
        (found,) = MentionFinder(PageAndName(), extractor).mentions("acme", texts)
        assert [(m["entity_id"], m["type"]) for m in found] == [
            ("acme:entity/west-virginia", PAGE_ENTITY_TYPE)
        ]


def test_an_acronym_in_front_of_a_name_is_part_of_it_and_no_fragment_is_left() -> None:
    (found,) = names("Libraries of the X Window System read the XDG Base Directory Specification first.")
    assert set(found) == {"X Window System", "XDG Base Directory Specification", "XDG"}
    # An acronym followed by no capitalised word opens no name; it stays an acronym of its own.
    (found,) = names("The GNU toolchain builds it; GNU General Public License terms apply.")
    assert set(found) == {"GNU", "GNU General Public License"}


def test_a_changelog_marker_is_no_first_word_of_names() -> None:
    # "Docs" links open every entry: it opens three runs whose next word is prose ("fixes", "adds",
    # "removed"), so it is a marker; the entries' one-off openers leave no name, a person's name stays.
    changelog = (
        "Diff \u2014 Docs Fixes a bug in the fixes list. \u2014 Diff \u2014 Docs Adds what one adds.",
        "Diff \u2014 Docs Removed what was removed. \u2014 Diff \u2014 Docs Restores the old order.",
        "Diff \u2014 Docs Merges two branches. \u2014 Diff \u2014 Docs Andri M\u00f6ll wrote the tests.",
    )
    assert names(*changelog) == [[], [], ["Andri M\u00f6ll"]]
    # A roster's first names open many runs too, but before surnames, never before prose words.
    roster = ("Robert Nagy reviews.", "Robert Kowalski reviews.", "Robert Jefe Lindstaedt reviews.")
    assert names(*roster) == [["Robert Nagy"], ["Robert Kowalski"], ["Robert Jefe Lindstaedt"]]


def test_a_capitalised_word_standing_alone_within_a_sentence_is_a_single_name() -> None:
    text = (
        "The Bubye River is a river in southern Africa. It flows through Zimbabwe and joins the "
        "Limpopo near Beitbridge in May, as the river authority records."
    )
    assert singles(text) == [["Africa", "Zimbabwe", "Limpopo", "Beitbridge"]]


def test_no_single_name_at_a_sentence_s_start_in_a_longer_name_or_from_code_and_dates() -> None:
    text = (
        "Zimbabwe lies inland. The river crosses New Jersey and the Board of Directors met on "
        "Monday in March. It returns None or raises ValueError. Make sure the river is clean; the "
        "Band played and the band left."
    )
    # "Zimbabwe" opens a sentence, "Jersey" and "Directors" end longer names, "Monday" and "March"
    # are dates, "None" and "ValueError" code, "Band" a word the file writes in lower case.
    assert singles(text) == [[]]


def test_a_single_name_in_the_dictionary_links_only_where_a_text_writes_it_capitalised() -> None:
    class Named:
        def entity_names(self, context_id: str) -> list[NamedEntity]:
            return [NamedEntity("acme:entity/lily", "Lily", SINGLE_NAME_TYPE)]

    texts = ["A lily grows by the pond.", "Her daughter Lily grew up by the pond."]
    found = MentionFinder(Named(), None).mentions("acme", texts)
    assert [[m["entity_id"] for m in chunk] for chunk in found] == [[], ["acme:entity/lily"]]
