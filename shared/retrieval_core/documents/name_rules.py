"""``RuleBasedExtractor``: the offline ``EntityExtractor`` every document gets unless a stack opts in to
Comprehend. Deterministic, no model, judged file by file (the texts of one call are one file's chunks,
so what the rest of the file writes is evidence):

- **names**: runs of two or more capitalised words (``Anthony Green``, ``Code of Conduct``), cut at the
  stop words around them (``See Debian Policy`` -> ``Debian Policy``), and at a sentence's, a line's or
  a list item's first word when the file also writes it in lower case (``Existing Python`` is no name:
  "existing" is a word of the file). A run of words the file also writes in lower case (``Running
  Tests``, ``Support Type``) is typography, not a name, unless it recurs (twice or more in the file) or
  an acronym defines it; a run with a word the file never writes in lower case (``Bryan Hughes``) is a
  name even once.
- **single names**: one capitalised word standing alone (``Zimbabwe``, ``Harare``), the bridge a
  two-hop question crosses, only where nothing else explains its capital: within a sentence (never its
  first word), no capitalised word or acronym beside it (``New Jersey``'s ``Jersey`` is a fragment), a
  word the file never writes in lower case nor as part of a longer name, no stop word, no month or day,
  four letters or more. Typed ``single name`` (``SINGLE_NAME_TYPE``): the walk weighs it by how few
  passages write it.
- **acronyms**: two to six capitals (``GNOME``), but not shouting (``WITHOUT ANY WARRANTY``: capitals
  next to capitals), an English word in capitals (``NOT``, ``FILE``), code (``CXX=g++``, ``$HOME``), nor
  a generic abbreviation (``API``, ``URL``), unless the file defines it: ``Foreign Function Interface
  (FFI)``, ``FFI (Foreign Function Interface)``, ``FFI stands for Foreign Function Interface``. A
  definition makes its expansion a name too.

Precision on hand-labelled real files is in docs/DOCUMENTS.md ("Entity precision").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from ..models.page_titles import SINGLE_NAME_TYPE
from .entities import FoundEntity
from .name_dictionary import MIN_NAME_CHARS


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOP_WORDS = _words(
    """
    a an the this that these those its it our their his her my your we you they i he she there here
    every each all any some many most more much few other such both either neither no not nor only
    own same last next first new in on at for from by with without and but or if so as of to into
    onto upon over under about after before since until while when where what which who whom whose
    how why is are was were be been being do does did has have had can could may might must shall
    should will would see also note please use using used copyright version updated example figure
    table chapter section page thanks thank yes hello dear
    """
)
"""Words that are no part of a name however they are written (compared in lower case)."""
CONNECTORS = frozenset({"of", "de", "du", "da", "del", "di", "von", "van", "der", "la", "le"})
"""Lower-case words a name may hold between capitalised ones (``Code of Conduct``, ``Vladimir de ...``)."""
GENERIC_ACRONYMS = _words(
    """
    API APIS SDK URL URI IDE CLI GUI CPU GPU RAM ROM OS PC UI UX ID IDS UID GID PID FAQ TBD ETA EOF
    EOL SHA MTA OK TODO FIXME XXX NB PS AKA RE FWD CC BCC NA
    """
)
"""Abbreviations of a kind of thing, not of one thing (kept when the file defines them)."""
SHOUTED = _words(
    """
    NULL NONE TRUE FALSE NIL NAN TODO FIXME NOTE TIP HINT WARNING CAUTION IMPORTANT DANGER BUG INFO
    README HEAD AUTO YES HELP
    """
)
"""Capitals that are markers or code words, not names."""
CALENDAR = _words(
    """
    january february march april may june july august september october november december monday
    tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays
    saturdays sundays
    """
)
"""Capitalised words of a date: a name of a kind, but one that bridges nothing."""
MIN_SINGLE_NAME = 4


class NameRules(BaseModel):
    """The extractor's word lists and thresholds, as data."""

    model_config = ConfigDict(frozen=True)

    stop_words: frozenset[str] = STOP_WORDS
    connectors: frozenset[str] = CONNECTORS
    generic_acronyms: frozenset[str] = GENERIC_ACRONYMS
    shouted: frozenset[str] = SHOUTED
    calendar: frozenset[str] = CALENDAR
    single_names: bool = True
    """Whether one capitalised word standing alone is a name (the module's docstring says when)."""
    min_recurrences: int = 2
    """How often a run of common words must occur in the file to count as a name."""
    max_acronym: int = 6


APOSTROPHES = "'\u2019"
"""A typewriter's apostrophe and a typographer's (right single quotation mark)."""
WORD = re.compile(rf"[^\W\d_](?:[^\W_]|[.{APOSTROPHES}-](?=[^\W\d_]))*")
"""A word: letters and digits, joined by inner dots, apostrophes or hyphens (``Node.js``, ``Backus-Naur``)."""
PROSE_WORD = re.compile(r"(?<![\w/@.`$<=#-])[a-z]{2,}(?![\w/@`>=]|[.-]\w)")
"""A lower-case word of prose (not of a URL, an address, a file name or code): the file's own words."""
MARKUP = " \t\r\n*#>_`-+|[(\"'\u201c\u20180123456789"
"""What may stand between a sentence's, a line's, a list item's or a table cell's start and its first word."""
POSSESSIVE = re.compile(rf"[{APOSTROPHES}]s$")


@dataclass(frozen=True, slots=True)
class _Run:
    words: tuple[str, ...]
    at_start: bool
    after_article: bool
    """Within a sentence, after a stop word or an acronym (``the Release Team``, ``GNU General ...``)."""


class RuleBasedExtractor:
    """Names and acronyms of a file's chunks (the module's docstring says which)."""

    def __init__(self, rules: NameRules | None = None) -> None:
        self.rules = rules or NameRules()

    def extract(self, texts: Sequence[str]) -> list[list[FoundEntity]]:
        texts = [_without_code(text) for text in texts]
        common = {m.group() for text in texts for m in PROSE_WORD.finditer(text)}
        runs = _without_markers(_without_openers([self._runs(text, common) for text in texts]), common)
        defined = set().union(*(self._definitions(text) for text in texts)) if texts else set()
        # A heading and the contents line that links to it are one name written twice at a line's
        # start, and a table's cells run into each other: recurring means written twice, once at least
        # within a sentence as a noun is (after "the", "of", "by"...).
        recurring = Counter(" ".join(run.words) for found in runs for run in found)
        within = {" ".join(run.words) for found in runs for run in found if run.after_article}
        recurring = Counter({name: n for name, n in recurring.items() if name in within})
        found = []
        for text, text_runs in zip(texts, runs, strict=True):
            names = [
                " ".join(run.words)
                for run in text_runs
                if self._is_name(run, common, defined, recurring[" ".join(run.words)])
            ]
            acronyms = [
                a for a in self._acronyms(text) if a in defined or self._plain_acronym(a, text, common)
            ]
            # A definition's expansion is a name as the definition spells it, lower-case words and all,
            # in place of the runs it holds ("Bidirectional Encoder Representations from Transformers").
            expansions = [d for d in defined if not d.isupper() and d in text]
            names = [n for n in names if not any(n != e and n in e for e in expansions)]
            singles = (
                self._single_names(text, common, {*names, *expansions}) if self.rules.single_names else []
            )
            ordered = sorted({*names, *expansions, *acronyms}, key=lambda n: _first(text, n))
            typed = [FoundEntity(n, "acronym" if n.isupper() else "name") for n in ordered]
            found.append([*typed, *(FoundEntity(n, SINGLE_NAME_TYPE) for n in singles)])
        return found

    def _single_names(self, text: str, common: set[str], names: set[str]) -> list[str]:
        """One capitalised word standing alone within a sentence (the module's docstring says when)."""
        within_names = {w for name in names for w in name.split()}
        singles: dict[str, None] = {}
        matches = list(WORD.finditer(text))
        for i, match in enumerate(matches):
            word = POSSESSIVE.sub("", match.group())
            if (
                len(word) < MIN_SINGLE_NAME
                or not _capitalised(word)
                or not word.isalpha()
                or any(c.isupper() for c in word[1:])  # code's CamelCase: ValueError, PyObject
                or word.upper() in self.rules.shouted  # None, True, False
                or _code(text, match)
                or text[match.end() : match.end() + 1] == "["  # a type's parameters: Callable[...]
                or word.lower() in common
                or self._stop(word)
                or word.lower() in self.rules.calendar
                or word in within_names
                or _at_start(text, match.start())
            ):
                continue
            before = matches[i - 1] if i > 0 else None
            after = matches[i + 1] if i + 1 < len(matches) else None
            if before is not None and _beside(text, before.end(), match.start()) and _capital(before.group()):
                continue
            # "Board of Directors": a connector after a capital makes the word the end of a longer name.
            if (
                before is not None
                and before.group() in self.rules.connectors
                and i > 1
                and _capital(matches[i - 2].group())
            ):
                continue
            if (
                after is not None
                and _beside(text, match.end(), after.start())
                and (_capital(after.group()) or after.group() in self.rules.connectors)
            ):
                continue
            singles.setdefault(word)
        return list(singles)

    def _runs(self, text: str, common: set[str]) -> list[_Run]:
        """Runs of capitalised words (connectors inside), trimmed, of two capitalised words or more."""
        runs: list[list[re.Match[str]]] = []
        current: list[re.Match[str]] = []
        for match in WORD.finditer(text):
            word = match.group()
            if current and text[current[-1].end() : match.start()] != " ":
                runs.append(current)
                current = []
            if len(current) == 1 and not _capitalised(current[0].group()) and not _capitalised(word):
                current = []  # an acronym not followed by a capitalised word opens no run
            if not current and self._name_prefix(word):
                current.append(match)  # "X Window System", "XDG Base Directory Specification"
                continue
            if _capitalised(word) or (current and word in self.rules.connectors):
                current.append(match)
                if POSSESSIVE.search(word):  # "Ninja's flags": the name ends at the possessive
                    runs.append(current)
                    current = []
            else:
                runs.append(current)
                current = []
        runs.append(current)
        return [run for matches in runs if matches and (run := self._trimmed(text, matches, common))]

    def _trimmed(self, text: str, matches: list[re.Match[str]], common: set[str]) -> _Run | None:
        words = [POSSESSIVE.sub("", m.group()) for m in matches]
        first, last = 0, len(words)
        at_start = _at_start(text, matches[0].start())
        while first < last and (
            self._stop(words[first])
            or words[first] in self.rules.connectors
            or (at_start and first == 0 and _opener(words[first], common))
        ):
            first += 1
        while last > first and (self._stop(words[last - 1]) or words[last - 1] in self.rules.connectors):
            last -= 1
        kept = tuple(words[first:last])
        if not _long_enough(kept):
            return None
        starts = at_start and first == 0
        before = re.search(
            r"(\w+)[ \t]+$", text[max(0, matches[first].start() - 30) : matches[first].start()]
        )
        after_article = first > 0 or (
            not starts and before is not None and (self._stop(before.group(1)) or before.group(1).isupper())
        )
        return _Run(kept, starts, after_article)

    def _is_name(self, run: _Run, common: set[str], defined: set[str], occurrences: int) -> bool:
        name = " ".join(run.words)
        if len(name) < MIN_NAME_CHARS:
            return False
        if name in defined or occurrences >= self.rules.min_recurrences:
            return True
        # Once, every word must be one the file never writes in lower case: words only a name uses.
        return all(w.lower() not in common for w in run.words if _capitalised(w))

    def _name_prefix(self, word: str) -> bool:
        """An acronym or a single capital that may open a name of capitalised words ("X Window System",
        "GNU General Public License"): without it the rest is a fragment ("Window System")."""
        return (
            word.isalpha()
            and word.isupper()
            and len(word) <= self.rules.max_acronym
            and not self._stop(word)
            and word not in self.rules.shouted
            and word not in self.rules.generic_acronyms
        )

    def _stop(self, word: str) -> bool:
        return word.lower() in self.rules.stop_words

    def _acronyms(self, text: str) -> list[str]:
        return list(
            dict.fromkeys(
                m.group()
                for m in WORD.finditer(text)
                if m.group().isalpha()
                and m.group().isupper()
                and MIN_NAME_CHARS <= len(m.group()) <= self.rules.max_acronym
            )
        )

    def _plain_acronym(self, acronym: str, text: str, common: set[str]) -> bool:
        """An acronym the file does not define: not a generic one, a marker, a stop word, shouting, code."""
        if acronym in self.rules.generic_acronyms or acronym in self.rules.shouted or self._stop(acronym):
            return False
        if acronym.lower() in common:  # an English word of the file, in capitals: FILE, PATH
            return False
        return any(not _shouting(text, m) and not _code(text, m) for m in _occurrences(text, acronym))

    def _definitions(self, text: str) -> set[str]:
        """Acronyms the text defines, and their expansions."""
        defined: set[str] = set()
        for match in DEFINITION.finditer(text):
            acronym = match.group("acronym") or match.group("acronym2") or match.group("acronym3")
            expansion = match.group("expansion") or match.group("expansion2") or match.group("expansion3")
            spelled = _spelling(acronym, tuple(expansion.split()))
            if spelled is not None:
                defined |= {acronym, spelled}
        return defined


CAPITALISED_WORD = rf"[A-Z][\w{APOSTROPHES}-]*"
CAPITALISED_RUN = rf"{CAPITALISED_WORD}(?:\s(?:{CAPITALISED_WORD}|of|for|from|and|the|to|in|on|de))*"
DEFINITION = re.compile(
    rf"(?P<expansion>{CAPITALISED_RUN})\s\((?P<acronym>[A-Z]{{2,6}})s?\)"
    rf"|\b(?P<acronym2>[A-Z]{{2,6}})\s\((?P<expansion2>{CAPITALISED_RUN})\)"
    rf"|\b(?P<acronym3>[A-Z]{{2,6}}),?\s(?:stands for|or|means|is short for)\s"
    rf"(?P<expansion3>{CAPITALISED_RUN})"
)
"""``Expansion (ACR)``, ``ACR (Expansion)`` and ``ACR stands for Expansion``."""


def _spelling(acronym: str, words: tuple[str, ...]) -> str | None:
    """The words that spell the acronym, the expansion's last ones: their initials, lower-case words
    skipped or not (``Bidirectional Encoder Representations from Transformers`` is BERT), or their
    capitals (``Call InterFace`` is CIF). None: the acronym is not defined there."""
    for start in range(len(words)):
        window = words[start:]
        if not window[0][:1].isupper():
            continue
        initials = "".join(w[0] for w in window if w[:1].isupper())
        every = "".join(w[0] for w in window).upper()
        capitals = "".join(c for w in window for c in w if c.isupper())
        if acronym in {initials, every, capitals}:
            return " ".join(window)
    return None


def _at_start(text: str, at: int) -> bool:
    """The word at ``at`` opens a sentence, a line, a list item or a table cell (markup aside)."""
    before = text[max(0, at - 80) : at]
    stripped = before.rstrip(MARKUP)
    return not stripped or stripped[-1] in ".!?:;|\u2014\u2013" or "\n" in before[len(stripped) :]


def _without_openers(runs: list[list[_Run]]) -> list[list[_Run]]:
    """A sentence's first word in front of a name the file also writes without it is no part of the
    name ("Ask Anthony Green" where "Anthony Green" is written too)."""
    names = {" ".join(run.words) for found in runs for run in found}

    def trimmed(run: _Run) -> _Run:
        rest = run.words[1:]
        if run.at_start and _long_enough(rest) and " ".join(rest) in names:
            return _Run(rest, False, run.after_article)
        return run

    return [[trimmed(run) for run in found] for found in runs]


MARKER_RUNS = 3


def _without_markers(runs: list[list[_Run]], common: set[str]) -> list[list[_Run]]:
    """A word in front of a sentence's capitalised first word, at a line's or sentence's start, in
    ``MARKER_RUNS`` or more different runs, is a marker (a changelog's link, a list's label: "Diff - Docs
    Restores the ...", "Docs Merges the ..."), not the first word of so many names. Sentence openers
    are words the file also writes in lower case; a roster's surnames ("Robert Nagy", "Robert Kowalski")
    are not. A marker is cut from every run it opens, and so is a sentence opener after it: what is left
    is a name only if two capitalised words remain ("Docs Andri Möll", "Docs Added Dmitry ...")."""

    def opens_a_sentence(run: _Run) -> bool:
        return run.at_start and len(run.words) > 1 and run.words[1].lower() in common

    openers: dict[str, set[str]] = {}
    for found in runs:
        for run in found:
            if opens_a_sentence(run):
                openers.setdefault(run.words[0], set()).add(run.words[1])
    markers = {word for word, following in openers.items() if len(following) >= MARKER_RUNS}

    def unmarked(run: _Run) -> _Run | None:
        if not (run.at_start and run.words[0] in markers):
            return run
        rest = run.words[2:] if opens_a_sentence(run) else run.words[1:]
        return _Run(rest, False, run.after_article) if _long_enough(rest) else None

    return [[kept for run in found if (kept := unmarked(run)) is not None] for found in runs]


def _opener(word: str, common: set[str]) -> bool:
    """A first word capitalised because it opens a line or a sentence: a word of the file's prose, or a
    heading's verb (``Building Node.js``, ``Disabling Telemetry``)."""
    return word.lower() in common or (word.endswith("ing") and len(word) > 5)


CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`|<!--.*?(?:-->|$)", re.DOTALL)
"""Markdown's code, fenced or inline, and comments: identifiers and notes, not names."""


def _without_code(text: str) -> str:
    """``text`` with its code blanked (same length, so offsets into it stay those of the text)."""
    return CODE.sub(lambda m: " " * len(m.group()), text)


FILE_NAME = re.compile(r"\.(?:h|c|cc|cpp|py|md|txt|html?|json|xml|ya?ml|sh|conf)$")


def _long_enough(words: Sequence[str]) -> bool:
    """Two capitalised words or more: what a run needs to be a name (connectors aside)."""
    return sum(1 for w in words if _capitalised(w)) >= 2


def _beside(text: str, end: int, start: int) -> bool:
    """Two words with only spaces (or a hyphen) between them: parts of one name if both are capitals."""
    return text[end:start].strip(" -") == ""


def _capital(word: str) -> bool:
    return word[:1].isupper()


def _capitalised(word: str) -> bool:
    """A word written with a capital first and some lower case (``Visual``, ``McDonald``), not an acronym
    nor a file's name (``Xtrans.h``)."""
    return word[:1].isupper() and any(c.islower() for c in word) and not FILE_NAME.search(word)


def _occurrences(text: str, word: str) -> list[re.Match[str]]:
    return [m for m in WORD.finditer(text) if m.group() == word]


_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t]+$")
_WORD_AFTER = re.compile(r"[ \t]+([^\W\d_]+)")


def _shouting(text: str, match: re.Match[str]) -> bool:
    """Capitals next to capitals with only spaces between: ``THE SOFTWARE IS PROVIDED``."""
    before = _WORD_BEFORE.search(text[max(0, match.start() - 40) : match.start()])
    after = _WORD_AFTER.match(text, match.end())  # from the position: no copy of the rest of the text
    return any(m is not None and m.group(1).isupper() and len(m.group(1)) > 1 for m in (before, after))


def _code(text: str, match: re.Match[str]) -> bool:
    """A variable of a shell or a program: ``$HOME``, ``CXX=g++``, ``FILE *f``, ``NAME=VALUE``."""
    before, after = text[max(0, match.start() - 1) : match.start()], text[match.end() : match.end() + 2]
    return before in {"$", "=", "_", "%"} or after[:1] in {"=", "_", "("} or after == " *"


def _first(text: str, name: str) -> int:
    at = text.find(name)
    return at if at >= 0 else len(text)
