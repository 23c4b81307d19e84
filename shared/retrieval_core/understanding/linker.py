"""Entity linking: which of the caller's entities a question names.

The dictionary is the names the context's own items mention (``NamedEntity``: id, name, type), read in the
caller's context like every other read. Each name also answers to a few aliases: a person's first or
last name alone, a project's name without "Project", an organisation's first word ("Northwind" for
"Northwind Bank"), a hyphenated name with spaces. Matching is on
normalised tokens (case, accents, punctuation and possessives ignored), longest match first, and a
long name also matches within a small edit distance ("Dmitry Volkov"). A name that is also an ordinary
word ("Platform", "Data", "Payments") is linked only when the question writes it as a name: capitalised
where a sentence does not start, or followed by its type ("the payments team").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..models.page_titles import PAGE_ENTITY_TYPE, SINGLE_NAME_TYPE, title_aliases
from ..ports import NamedEntity
from .spans import Span

MIN_CONFIDENCE = 0.5
"""Links below this are not used (and not reported): a guess would narrow the ranking wrongly."""

EXACT, ALIAS, FUZZY, WORDLIKE = 1.0, 0.8, 0.7, 0.3
"""Confidence of a full-name match, an alias, a near miss, and a name read as an ordinary word."""

_TOKEN = re.compile("[^\\W_]+(?:['\u2019]s\\b|['\u2019](?=\\s|$))?", re.UNICODE)
_NAME_PREFIXES = ("project ",)
_DIGITS = re.compile(r"\d+")
NEAR_MIN_CHARS = 8
_POSSESSIVE = re.compile("['\u2019]s?$")
# Words a type is called by in a question ("the Payments team", "service api-edge", "which clients").
TYPE_WORDS: dict[str, tuple[str, ...]] = {
    "team": ("team", "squad", "group"),
    "service": ("service", "svc", "api"),
    "project": ("project",),
    "customer": ("customer", "client", "account"),
    "vendor": ("vendor", "supplier", "provider"),
    "datastore": ("database", "db", "datastore", "store"),
    "incident": ("incident",),
}

ALIASES_REMEMBERED = 16_384
"""Dictionary entries whose aliases a container remembers (a question's lookup brings up to 500; a few
megabytes at most)."""

_ANY_TYPE_WORD = frozenset(word for words in TYPE_WORDS.values() for word in words)


@dataclass(frozen=True, slots=True)
class Link:
    span: Span
    entity_id: str
    name: str
    type: str
    confidence: float
    how: str
    """``name``, ``alias``, ``fuzzy`` (how the span matched the entity's name)."""


@dataclass(frozen=True, slots=True)
class _Token:
    norm: str
    start: int
    end: int


def normalised(text: str) -> str:
    """Lower case, accents dropped, possessive "'s" dropped: "Tomás's" -> "tomas"."""
    if text.isascii():  # most names: casefold is lower, and there is no accent to drop
        return _POSSESSIVE.sub("", text.lower())
    folded = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _POSSESSIVE.sub("", plain)


def tokens(text: str) -> list[_Token]:
    return [_Token(normalised(m.group(0)), m.start(), m.end()) for m in _TOKEN.finditer(text)]


@lru_cache(maxsize=ALIASES_REMEMBERED)
def aliases(entity: NamedEntity) -> tuple[tuple[tuple[str, ...], str], ...]:
    """The token sequences an entity answers to, each with how it matched (``name`` or ``alias``);
    remembered per container, as a warm function meets the same context's names question after
    question (an entry's id carries its context, so no context is served another's)."""
    full = _norms(entity.name)
    found: list[tuple[tuple[str, ...], str]] = [(full, "name")] if full else []
    lowered = entity.name.casefold()
    for prefix in _NAME_PREFIXES:
        if lowered.startswith(prefix) and len(full) > 1:
            found.append((full[1:], "alias"))
    if entity.type == PAGE_ENTITY_TYPE:  # a page answers to its title's aliases: "Maurice (film)"
        found += [(alias, "alias") for a in title_aliases(entity.name) if (alias := _norms(a))]
    elif entity.type.casefold() == "person" and len(full) >= 2:
        found += [((full[0],), "alias"), ((full[-1],), "alias")]
    elif _proper_head(entity):
        found.append(((full[0],), "alias"))
    return tuple(found)


def _norms(name: str) -> tuple[str, ...]:
    return tuple(normalised(m.group(0)) for m in _TOKEN.finditer(name))


def _proper_head(entity: NamedEntity) -> bool:
    """Whether an organisation's name answers to its first word, as "Northwind" for "Northwind Bank":
    a name of two or more capitalised words (not a person's, not a project's), whose first word is a
    word of letters and no type's word ("Customer Success" does not answer to "Customer"). A hyphenated
    or lower-case name ("fraud-scoring") is a system's, and its first word ("fraud") means something
    else."""
    words = entity.name.split()
    return (
        len(words) >= 2
        and normalised(words[0]) not in _ANY_TYPE_WORD
        and entity.type.casefold() not in ("person", "project")
        and not entity.name.casefold().startswith(_NAME_PREFIXES)
        and all(word[:1].isupper() for word in words)
        and words[0].isalpha()
        and len(words[0]) >= 3
    )


def link(question: str, dictionary: Iterable[NamedEntity]) -> list[Link]:
    """The entities the question names, longest and most confident matches first claiming their span;
    an alias shared by several entities ("Alice" for two Alices) links none of them."""
    words = tokens(question)
    windows = _Windows(words)
    candidates: list[Link] = []
    by_alias: dict[tuple[str, ...], set[str]] = {}
    # A one-word name no page is about ("Zimbabwe") is a bridge the walk crosses from a page the
    # question names, not a thing the question names: linked, it pulls in what every passage writing
    # "India" or "German" says (MuSiQue dev as pages R@2 0.536 -> 0.516).
    answers_to = {entity: aliases(entity) for entity in dictionary if entity.type != SINGLE_NAME_TYPE}
    for entity, names in answers_to.items():
        for alias, _ in names:
            by_alias.setdefault(alias, set()).add(entity.entity_id)
    for entity, names in answers_to.items():
        for alias, how in names:
            if (how == "alias" and len(by_alias[alias]) > 1) or not windows.could_match(alias):
                continue
            candidates += _matches(question, words, windows, entity, alias, how)
    chosen: list[Link] = []
    for candidate in sorted(candidates, key=lambda c: (-(c.span.end - c.span.start), -c.confidence)):
        if candidate.confidence < MIN_CONFIDENCE:
            continue
        clash = [c for c in chosen if c.span.overlaps(candidate.span)]
        if not clash:
            chosen.append(candidate)
        elif all(c.span == candidate.span and c.entity_id != candidate.entity_id for c in clash) and all(
            c.confidence == candidate.confidence for c in clash
        ):
            chosen.append(candidate)  # two entities named exactly alike: both are meant, equally
    kept = list(dict.fromkeys(c.entity_id for c in chosen))
    first = {entity_id: next(c for c in chosen if c.entity_id == entity_id) for entity_id in kept}
    return sorted(first.values(), key=lambda c: c.span.start)


class _Windows:
    """The question's runs of consecutive tokens, indexed by length: by their normalised tokens (an exact
    match is one lookup) and by their joined text's first character (a near miss starts with the same
    character), so a dictionary of hundreds of names is matched without trying every name at every
    position."""

    def __init__(self, words: Sequence[_Token]) -> None:
        self._words = words
        self._exact: dict[int, dict[tuple[str, ...], list[int]]] = {}
        self._near: dict[int, dict[str, list[tuple[int, str]]]] = {}
        self._starts = {w.norm for w in words}
        self._initials = {w.norm[:1] for w in words}

    def could_match(self, alias: tuple[str, ...]) -> bool:
        """Whether ``alias`` can match anywhere (most of a dictionary cannot, and is passed over): an
        exact match starts at a token equal to its first word, a near miss (a name of
        ``NEAR_MIN_CHARS`` or more) at a token with its first letter."""
        first = alias[0]
        if first in self._starts:
            return True
        return first[:1] in self._initials and len(" ".join(alias)) >= NEAR_MIN_CHARS  # as _matches

    def exact(self, size: int, alias: tuple[str, ...]) -> list[int]:
        if size not in self._exact:
            found: dict[tuple[str, ...], list[int]] = {}
            for i in range(len(self._words) - size + 1):
                found.setdefault(tuple(w.norm for w in self._words[i : i + size]), []).append(i)
            self._exact[size] = found
        return self._exact[size].get(alias, [])

    def near(self, size: int, name: str) -> list[int]:
        """The positions whose run of ``size`` tokens is within ``_near`` of ``name``."""
        if size not in self._near:
            found: dict[str, list[tuple[int, str]]] = {}
            for i in range(len(self._words) - size + 1):
                seen = " ".join(w.norm for w in self._words[i : i + size])
                found.setdefault(seen[:1], []).append((i, seen))
            self._near[size] = found
        return [i for i, seen in self._near[size].get(name[:1], []) if near_miss(seen, name)]


def _matches(
    question: str,
    words: Sequence[_Token],
    windows: _Windows,
    entity: NamedEntity,
    alias: tuple[str, ...],
    how: str,
) -> list[Link]:
    size = len(alias)
    if size > len(words):
        return []
    exact = windows.exact(size, alias)
    name = " ".join(alias)
    near = windows.near(size, name) if len(name) >= NEAR_MIN_CHARS else []
    found = []
    for i in sorted({*exact, *near}):
        if i in exact:
            confidence, kind = (EXACT if how == "name" else ALIAS), how
        else:
            confidence, kind = FUZZY, "fuzzy"
        window = words[i : i + size]
        span = Span(window[0].start, window[-1].end, question[window[0].start : window[-1].end])
        if _wordlike(entity, alias) and not _written_as_name(question, words, i, size, entity):
            confidence = min(confidence, WORDLIKE)
        found.append(Link(span, entity.entity_id, entity.name, entity.type, confidence, kind))
    return found


def near_edits(name: str) -> int:
    """The edits a near miss of ``name`` (``NEAR_MIN_CHARS`` or more) may make: two from 14 characters."""
    return 2 if len(name) >= 14 else 1


def near_miss(seen: str, name: str) -> bool:
    """A small edit distance for longer names only: one edit from 8 characters, two from 14; the numbers
    in them the same ("1920 Summer Olympics" is not "1904 Summer Olympics", nor "HD 23" "HD 32")."""
    if len(name) < NEAR_MIN_CHARS or seen[:1] != name[:1]:
        return False
    allowed = near_edits(name)
    if abs(len(seen) - len(name)) > allowed or len(set(seen) ^ set(name)) > 2 * allowed:
        return False  # an edit adds or removes at most two letters to the letters either one uses
    return _DIGITS.findall(seen) == _DIGITS.findall(name) and _within(seen, name, allowed)


def _within(a: str, b: str, cap: int) -> bool:
    """Whether ``a`` is at most ``cap`` edits (Levenshtein) from ``b``. Only cells of the edit table
    within ``cap`` of its diagonal can hold ``cap`` or less, so only they are computed (the others
    count as ``cap + 1``, which no path through them can undercut)."""
    over = cap + 1
    previous = [j if j <= cap else over for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        low, high = max(1, i - cap), min(len(b), i + cap)
        current = [over] * (len(b) + 1)
        if i <= cap:
            current[0] = i
        letter = a[i - 1]
        for j in range(low, high + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (letter != b[j - 1]))
        if min(current) > cap:
            return False
        previous = current
    return previous[-1] <= cap


def _wordlike(entity: NamedEntity, alias: tuple[str, ...]) -> bool:
    """A one-word name of letters only, as an ordinary word could be spelled ("Platform", "Risk");
    a person's name is not (a first name alone is already an alias of lower confidence)."""
    return len(alias) == 1 and alias[0].isalpha() and entity.type.casefold() != "person"


def _written_as_name(question: str, words: Sequence[_Token], i: int, size: int, entity: NamedEntity) -> bool:
    after = words[i + size].norm if i + size < len(words) else ""
    if after in TYPE_WORDS.get(entity.type.casefold(), ()):
        return True
    first = words[i]
    written = question[first.start : first.end]
    if not written[:1].isupper() or (written.isupper() and len(written) > 1):
        return False
    before = question[: first.start].rstrip()
    return bool(before) and before[-1] not in ".!?:\"'“"
