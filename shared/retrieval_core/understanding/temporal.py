"""Time cues in a question: absolute ("in March 2026", "Q1 2026", "on 2026-03-14"), ranges ("between
January and March 2026"), open-ended ("before April", "since 2025", "after Q1") and relative ("last
month", "in the past 7 days") forms become a window; "currently" and its kin become a cue for what is
valid now.

Every window lies in the product's calendar (``models.calendar``: years 1-9999 in UTC): a cue whose
window would leave it ("before 0001-01-01", "yesterday" read on the calendar's first day) or come out
empty is not read, and a number that cannot be a year where one could stand ("in March 99999") keeps the
month from being read at all, rather than read as the latest March.

Calendar units are read in the zone of the request's time (``now``): "yesterday" asked at 01:00 in Tokyo
is the Tokyo day before, and its window is that day's span in UTC. A form that could mean two things
("03/04/2026": March or April?, "may" the verb or the month?) is left alone: a wrong window costs more
than no window.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from typing import Literal

from ..models.calendar import CALENDAR_END, CALENDAR_START
from .spans import Span

EARLIEST = CALENDAR_START
LATEST = CALENDAR_END
"""The open ends of "before X" and "after X" windows: the calendar's (the index's dates all fall between
them)."""

CueKind = Literal["window", "current"]

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH_WORDS = "|".join(sorted(MONTHS, key=len, reverse=True))
_MONTH = r"(?P<month>" + _MONTH_WORDS + r")\.?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_NO_NUMBER_NEXT = r"(?!\s*(?:of\s+)?\d)"
"""After a period whose year may be left out: no number may follow where the year would stand ("in March
99999", "Q1 20266"), which would otherwise be read without it."""
_ZONE = r"(?:\s+(?P<zone>UTC|GMT|Z)(?P<offset>[+-]\d{1,2}(?::?\d\d)?)?)?"
_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7, "month": 30, "months": 30, "year": 365, "years": 365}
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10, "a": 1}


@dataclass(frozen=True, slots=True)
class TimeCue:
    """One time cue: the window it names (inclusive, UTC) or, for ``current``, the moment it means."""

    span: Span
    kind: CueKind
    start: datetime
    end: datetime
    confidence: float

    @property
    def label(self) -> str:
        if self.kind == "current":
            return f"valid at {self.start.isoformat()}"
        return f"window {_iso(self.start)} .. {_iso(self.end)}"


def _iso(moment: datetime) -> str:
    if moment == EARLIEST:
        return "-"
    if moment == LATEST:
        return "-"
    return moment.isoformat().replace("+00:00", "Z")


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


def _day_start(day: date, zone: tzinfo) -> datetime:
    return datetime.combine(day, time(0), tzinfo=zone)


def _month_span(year: int, month: int, zone: tzinfo) -> tuple[datetime, datetime]:
    start = _day_start(date(year, month, 1), zone)
    following = date(year + month // 12, month % 12 + 1, 1)
    return start, _day_start(following, zone) - timedelta(microseconds=1)


def _year_span(year: int, zone: tzinfo) -> tuple[datetime, datetime]:
    return _day_start(date(year, 1, 1), zone), _day_start(date(year + 1, 1, 1), zone) - timedelta(
        microseconds=1
    )


def _zone_of(zone: str | None, offset: str | None, default: tzinfo) -> tzinfo:
    if zone is None:
        return default
    if not offset:
        return UTC
    sign = -1 if offset[0] == "-" else 1
    digits = offset[1:].replace(":", "")
    hours, minutes = (int(digits[:-2]), int(digits[-2:])) if len(digits) > 2 else (int(digits), 0)
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def _latest_month(month: int, now: datetime) -> int:
    """The year of the latest ``month`` that has begun by ``now`` ("in March", asked in May 2026: 2026)."""
    return now.year if month <= now.month else now.year - 1


_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # Ambiguous numeric dates come first so no later pattern reads part of them.
    ("ambiguous", re.compile(r"\b\d{1,2}[/.]\d{1,2}(?:[/.]\d{2,4})?\b")),
    (
        "between",
        re.compile(
            r"\bbetween\s+(?P<a>\d{4}-\d{2}-\d{2})\s+and\s+(?P<b>\d{4}-\d{2}-\d{2})" + _ZONE, re.IGNORECASE
        ),
    ),
    (
        "relative_n",
        re.compile(
            r"\b(?:in\s+|over\s+|during\s+)?(?:the\s+)?(?:last|past)\s+(?P<n>\d{1,3}|"
            + "|".join(k for k in _NUMBERS if k != "a")
            + r")\s+(?P<unit>days?|weeks?|months?|years?)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "ago",
        re.compile(
            r"\b(?P<n>\d{1,3}|" + "|".join(_NUMBERS) + r")\s+(?P<unit>days?|weeks?|months?)\s+ago\b",
            re.IGNORECASE,
        ),
    ),
    (
        "relative",
        re.compile(
            r"\b(?P<which>last|this|previous|past)\s+(?P<unit>week|month|year|quarter)\b|"
            r"\b(?P<day>yesterday|today)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "month_range",
        re.compile(
            rf"\b(?:between|from)\s+(?P<first>{_MONTH_WORDS})\.?(?:\s+(?P<first_year>(?:19|20)\d\d))?"
            rf"\s+(?:and|to|until|till|through)\s+(?P<last>{_MONTH_WORDS})\.?(?:\s+{_YEAR})?{_NO_NUMBER_NEXT}"
            rf"{_ZONE}(?![\w-])",
            re.IGNORECASE,
        ),
    ),
    (
        "month_range",
        re.compile(
            rf"\b(?P<first>{_MONTH_WORDS})\.?\s*[-\u2013]\s*(?P<last>{_MONTH_WORDS})\.?\s+{_YEAR}{_ZONE}(?![\w-])",
            re.IGNORECASE,
        ),
    ),
    (
        "quarter",
        re.compile(
            r"\b(?P<prep>(?:in|during|since|before|after|until|by)\s+)?(?:the\s+)?Q(?P<q>[1-4])"
            r"(?:\s*(?:of\s+)?" + _YEAR + r")?\b" + _NO_NUMBER_NEXT,
            re.IGNORECASE,
        ),
    ),
    (
        "iso_day",
        re.compile(r"\b(?P<prep>(?:on|before|after|since|until)\s+)?(?P<d>\d{4}-\d{2}-\d{2})\b" + _ZONE),
    ),
    (
        "month",
        re.compile(
            r"\b(?P<prep>(?:in|during|since|before|after|until|by)\s+)?(?:(?P<dd>\d{1,2})\s+)?"
            + _MONTH
            + r"(?:\s+"
            + _YEAR
            + r")?"
            + _NO_NUMBER_NEXT
            + _ZONE
            + r"(?![\w-])",
            re.IGNORECASE,
        ),
    ),
    (
        "year",
        re.compile(r"\b(?P<prep>(?:in|during|since|before|after|until)\s+)" + _YEAR + r"\b", re.IGNORECASE),
    ),
    (
        "current",
        re.compile(
            r"\b(?:currently|current|right\s+now|at\s+the\s+moment|at\s+present|nowadays|these\s+days|"
            r"as\s+of\s+now|now|today's|still)\b",
            re.IGNORECASE,
        ),
    ),
]


def parse_time(question: str, now: datetime) -> TimeCue | None:
    """The question's strongest time cue, or None. A window cue wins over "currently" (a question about
    March 2026 that says "current" asks about what was current then)."""
    cues = time_cues(question, now)
    windows = [cue for cue in cues if cue.kind == "window"]
    best = windows or cues
    return best[0] if best else None


def time_cues(question: str, now: datetime) -> list[TimeCue]:
    """Every time cue in the question, in order, no two overlapping (earlier patterns claim first)."""
    zone = now.tzinfo or UTC
    found: list[TimeCue] = []
    claimed: list[Span] = []
    for name, pattern in _PATTERNS:
        for match in pattern.finditer(question):
            span = Span(match.start(), match.end(), match.group(0))
            if any(span.overlaps(other) for other in claimed):
                continue
            claimed.append(span)
            try:
                cue = _read(name, match, span, now, zone)
            except (OverflowError, ValueError):  # a computed moment outside what datetime holds
                cue = None
            if cue is not None:
                found.append(cue)
    return sorted(found, key=lambda cue: cue.span.start)


def _read(name: str, match: re.Match[str], span: Span, now: datetime, zone: tzinfo) -> TimeCue | None:
    groups = match.groupdict()
    if name == "ambiguous":
        return None
    if name == "current":
        return TimeCue(span, "current", _utc(now), _utc(now), 0.8)
    if name == "between":
        local = _zone_of(groups["zone"], groups["offset"], zone)
        start = _day_start(date.fromisoformat(groups["a"]), local)
        end = _day_start(date.fromisoformat(groups["b"]), local) + timedelta(days=1, microseconds=-1)
        return _window(span, start, end, 0.95)
    if name in ("relative_n", "ago"):
        count = groups["n"].lower()
        n = int(count) if count.isdigit() else _NUMBERS[count]
        days = n * _UNITS[groups["unit"].lower()]
        if name == "ago":  # "3 days ago": that day (or week or month) back
            unit = _UNITS[groups["unit"].lower()]
            start = _day_start((now - timedelta(days=days)).astimezone(zone).date(), zone)
            return _window(span, start, start + timedelta(days=unit, microseconds=-1), 0.8)
        return _window(span, now - timedelta(days=days), now, 0.9)
    if name == "relative":
        return _relative(groups, span, now.astimezone(zone), zone)
    if name == "month_range":
        return _month_range(groups, span, now, zone)
    if name == "quarter":
        return _quarter(groups, span, now, zone)
    if name == "iso_day":
        local = _zone_of(groups["zone"], groups["offset"], zone)
        try:
            day = date.fromisoformat(groups["d"])
        except ValueError:
            return None
        start = _day_start(day, local)
        return _bounded(span, groups["prep"], start, start + timedelta(days=1, microseconds=-1), now, 0.95)
    if name == "month":
        return _month_cue(groups, span, now, zone)
    if name == "year":
        start, end = _year_span(int(groups["year"]), zone)
        return _bounded(span, groups["prep"], start, end, now, 0.9)
    return None


def _month_cue(groups: dict[str, str | None], span: Span, now: datetime, zone: tzinfo) -> TimeCue | None:
    word = (groups["month"] or "").lower()
    written = span.text[len(groups["prep"] or "") :].lstrip("0123456789 ")
    # A month without a year needs a preposition and a capital ("in March"); "may" and "mar" without
    # both are too often other words. With a year ("march 2026") the number makes it a date.
    if groups["year"] is None and (groups["prep"] is None or not written[:1].isupper()):
        return None
    if word in ("may", "mar") and groups["year"] is None and not written[:1].isupper():
        return None
    local = _zone_of(groups["zone"], groups["offset"], zone)
    month = MONTHS[word]
    year = int(groups["year"]) if groups["year"] else _latest_month(month, now.astimezone(local))
    start, end = _month_span(year, month, local)
    confidence = 0.95 if groups["year"] else 0.75
    if groups["dd"]:
        try:
            start = _day_start(date(year, month, int(groups["dd"])), local)
        except ValueError:
            return None
        end = start + timedelta(days=1, microseconds=-1)
    return _bounded(span, groups["prep"], start, end, now, confidence)


def _quarter(groups: dict[str, str | None], span: Span, now: datetime, zone: tzinfo) -> TimeCue | None:
    """ "Q1 2026", "before Q3 2026"; without a year, its latest occurrence, and only after a preposition
    ("in Q1": "Q1" alone is as often a name as a quarter)."""
    if groups["year"] is None and groups["prep"] is None:
        return None
    quarter = int(groups["q"] or 0)
    first_month = 3 * quarter - 2
    year = int(groups["year"]) if groups["year"] else _latest_month(first_month, now.astimezone(zone))
    start, _ = _month_span(year, first_month, zone)
    _, end = _month_span(year, 3 * quarter, zone)
    return _bounded(span, groups["prep"], start, end, now, 0.95 if groups["year"] else 0.75)


def _month_range(groups: dict[str, str | None], span: Span, now: datetime, zone: tzinfo) -> TimeCue | None:
    """ "between January and March 2026", "from November 2025 to February 2026", "Jan-Mar 2026": from the
    first month's start to the last one's end. A year written once serves both ends (a first month later
    in the calendar than the last is the year before); with none, the range ends at the last month's
    latest occurrence, and both month words must be written as names ("from may to june" is left alone).
    """
    first_word, last_word = (groups["first"] or "").lower(), (groups["last"] or "").lower()
    first, last = MONTHS[first_word], MONTHS[last_word]
    local = _zone_of(groups["zone"], groups["offset"], zone)
    first_year, last_year = groups.get("first_year"), groups["year"]
    if first_year is None and last_year is None:
        written = (groups["first"] or "", groups["last"] or "")
        if not all(word[:1].isupper() for word in written):
            return None
        end_year = _latest_month(last, now.astimezone(local))
    elif last_year is None:
        end_year = int(first_year or 0) + (1 if last < first else 0)
    else:
        end_year = int(last_year)
    start_year = int(first_year) if first_year else end_year - (1 if first > last else 0)
    start, _ = _month_span(start_year, first, local)
    _, end = _month_span(end_year, last, local)
    confidence = 0.9 if first_year or last_year else 0.7
    return _window(span, start, end, confidence)


def _relative(groups: dict[str, str | None], span: Span, local_now: datetime, zone: tzinfo) -> TimeCue | None:
    today = local_now.date()
    if groups["day"]:
        day = today if groups["day"].lower() == "today" else today - timedelta(days=1)
        start = _day_start(day, zone)
        return _window(span, start, start + timedelta(days=1, microseconds=-1), 0.9)
    which = (groups["which"] or "").lower()
    back = 0 if which == "this" else 1
    unit = (groups["unit"] or "").lower()
    if which == "past":  # "the past month": the rolling month up to now, not the calendar month before
        days = {"week": 7, "month": 30, "quarter": 91, "year": 365}[unit]
        return _window(span, local_now - timedelta(days=days), local_now, 0.9)
    if unit == "week":
        monday = today - timedelta(days=today.weekday() + 7 * back)
        start = _day_start(monday, zone)
        return _window(span, start, start + timedelta(days=7, microseconds=-1), 0.9)
    if unit == "month":
        month_index = today.year * 12 + today.month - 1 - back
        start, end = _month_span(month_index // 12, month_index % 12 + 1, zone)
        return _window(span, start, end, 0.9)
    if unit == "quarter":
        quarter_index = today.year * 4 + (today.month - 1) // 3 - back
        year, quarter = divmod(quarter_index, 4)
        start, _ = _month_span(year, 3 * quarter + 1, zone)
        _, end = _month_span(year, 3 * quarter + 3, zone)
        return _window(span, start, end, 0.9)
    start, end = _year_span(today.year - back, zone)
    return _window(span, start, end, 0.9)


def _bounded(
    span: Span, prep: str | None, start: datetime, end: datetime, now: datetime, confidence: float
) -> TimeCue | None:
    """The window a preposition makes of a period: "before April" ends where April starts, "since 2025"
    runs from 2025 to now, "after March" from the end of March on."""
    word = (prep or "").strip().lower()
    if word in ("before", "until", "by"):
        return _window(span, EARLIEST, start - timedelta(microseconds=1), confidence)
    if word == "since":
        return _window(span, start, max(now, end), confidence)
    if word == "after":
        return _window(span, end + timedelta(microseconds=1), LATEST, confidence)
    return _window(span, start, end, confidence)


def _window(span: Span, start: datetime, end: datetime, confidence: float) -> TimeCue | None:
    """The window clamped to the calendar, or None when nothing of it is left (never an inverted one)."""
    start, end = _utc(max(start, EARLIEST)), _utc(min(end, LATEST))
    return TimeCue(span, "window", start, end, confidence) if start <= end else None
