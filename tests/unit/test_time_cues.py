"""The time cue parser: absolute and relative forms, open ends, time zones, ambiguous forms left alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from retrieval_core.understanding.temporal import EARLIEST, LATEST, parse_time, time_cues

NOW = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)


def window(question: str, now: datetime = NOW) -> tuple[str, str, str]:
    cue = parse_time(question, now)
    assert cue is not None and cue.kind == "window", question
    return cue.span.text, cue.start.isoformat(), cue.end.isoformat()


def day_end(day: str) -> str:
    return f"{day}T23:59:59.999999+00:00"


@pytest.mark.parametrize(
    ("question", "span", "start", "end"),
    [
        (
            "Who led Payments in March 2026?",
            "in March 2026",
            "2026-03-01T00:00:00+00:00",
            day_end("2026-03-31"),
        ),
        ("deploys in Q1 2026", "in Q1 2026", "2026-01-01T00:00:00+00:00", day_end("2026-03-31")),
        ("what happened on 2026-03-14", "on 2026-03-14", "2026-03-14T00:00:00+00:00", day_end("2026-03-14")),
        (
            "the 14 February 2026 incident",
            "14 February 2026",
            "2026-02-14T00:00:00+00:00",
            day_end("2026-02-14"),
        ),
        ("tickets in 2025", "in 2025", "2025-01-01T00:00:00+00:00", day_end("2025-12-31")),
        (
            "between 2026-01-05 and 2026-01-09",
            "between 2026-01-05 and 2026-01-09",
            "2026-01-05T00:00:00+00:00",
            day_end("2026-01-09"),
        ),
    ],
)
def test_absolute_forms(question: str, span: str, start: str, end: str) -> None:
    assert window(question) == (span, start, end)


def test_open_ended_forms() -> None:
    assert window("What did Dmitri deploy before April?") == (
        "before April",
        EARLIEST.isoformat(),
        "2026-03-31T23:59:59.999999+00:00",
    )
    assert window("incidents since 2025") == ("since 2025", "2025-01-01T00:00:00+00:00", NOW.isoformat())
    assert window("changes after March 2026") == (
        "after March 2026",
        "2026-04-01T00:00:00+00:00",
        LATEST.isoformat(),
    )


def test_a_month_without_a_year_is_its_latest_occurrence() -> None:
    # Asked in May 2026: "in March" is March 2026, "in June" is June 2025.
    assert window("who was on call in March")[1] == "2026-03-01T00:00:00+00:00"
    assert window("who was on call in June")[1] == "2025-06-01T00:00:00+00:00"


def test_a_quarter_without_a_year_is_its_latest_occurrence_and_takes_open_ends() -> None:
    # Asked in May 2026: "in Q1" is Q1 2026, "in Q3" is Q3 2025.
    assert window("Dmitri's deploys in Q1")[1:] == ("2026-01-01T00:00:00+00:00", day_end("2026-03-31"))
    assert window("deploys in Q3")[1:] == ("2025-07-01T00:00:00+00:00", day_end("2025-09-30"))
    assert window("what shipped before Q2 2026")[1:] == (EARLIEST.isoformat(), day_end("2026-03-31"))
    assert window("since Q4 2025 what changed")[1:] == ("2025-10-01T00:00:00+00:00", NOW.isoformat())


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("between January and March 2026 what changed", "2026-01-01", "2026-03-31"),
        ("from November 2025 to February 2026", "2025-11-01", "2026-02-28"),
        # One year serves both ends; a first month later in the calendar is the year before.
        ("from November to February 2026", "2025-11-01", "2026-02-28"),
        ("from January 2026 to March", "2026-01-01", "2026-03-31"),
        ("Jan-Mar 2026 incidents", "2026-01-01", "2026-03-31"),
        ("Jan\u2013Mar 2026 incidents", "2026-01-01", "2026-03-31"),
        # No year: the range ends at the last month's latest occurrence (asked in May 2026).
        ("between March and May", "2026-03-01", "2026-05-31"),
        ("from November to February", "2025-11-01", "2026-02-28"),
    ],
)
def test_month_ranges(question: str, start: str, end: str) -> None:
    assert window(question)[1:] == (f"{start}T00:00:00+00:00", day_end(end))


def test_relative_forms_are_read_against_the_request_time() -> None:
    assert window("what changed last month") == (
        "last month",
        "2026-04-01T00:00:00+00:00",
        day_end("2026-04-30"),
    )
    assert window("deploys this year")[1:] == ("2026-01-01T00:00:00+00:00", day_end("2026-12-31"))
    assert window("yesterday's deploys") == ("yesterday", "2026-05-19T00:00:00+00:00", day_end("2026-05-19"))
    assert window("tickets last week")[1:] == ("2026-05-11T00:00:00+00:00", day_end("2026-05-17"))
    assert window("changes in the past 7 days")[1:] == (
        (NOW - timedelta(days=7)).isoformat(),
        NOW.isoformat(),
    )
    assert window("rollbacks in the past year")[1] == (NOW - timedelta(days=365)).isoformat()
    assert window("last quarter's incidents")[1:] == ("2026-01-01T00:00:00+00:00", day_end("2026-03-31"))


def test_calendar_units_follow_the_request_time_zone() -> None:
    # 01:00 on 1 March in Tokyo is still 28 February in UTC: "yesterday" is Tokyo's 28 February.
    tokyo = datetime(2026, 3, 1, 1, 0, tzinfo=timezone(timedelta(hours=9)))
    _, start, end = window("what broke yesterday", tokyo)
    assert (start, end) == ("2026-02-27T15:00:00+00:00", "2026-02-28T14:59:59.999999+00:00")
    # A month asked in a zone is that zone's month.
    assert window("in March 2026", tokyo)[1] == "2026-02-28T15:00:00+00:00"


def test_an_explicit_zone_in_the_question_wins() -> None:
    assert window("on 2026-03-14 UTC+2")[1:] == (
        "2026-03-13T22:00:00+00:00",
        "2026-03-14T21:59:59.999999+00:00",
    )
    assert window("on 2026-03-14 UTC")[1] == "2026-03-14T00:00:00+00:00"


def test_currently_means_valid_now() -> None:
    cue = parse_time("Who is currently on call for api-edge?", NOW)
    assert cue is not None and (cue.kind, cue.span.text, cue.start) == ("current", "currently", NOW)
    # A window named beside it wins: "current" then refers to that time.
    assert window("who was the current lead in March 2026")[0] == "in March 2026"


@pytest.mark.parametrize(
    "question",
    [
        "what happened on 03/04/2026",  # March 4th or April 3rd?
        "deploys on 04.05",
        "may I see the runbook",  # the verb, not the month
        "the 2026 roadmap",  # a year with no preposition: a name as often as a time
        "ledger march to the event log",
        "a runbook for api-edge",
        "Q1 planning doc",  # a quarter with neither a year nor a preposition
        "from may to june",  # month words not written as names, and no year
        "from March 2026 to January 2026",  # ends before it starts
    ],
)
def test_ambiguous_or_absent_forms_are_left_alone(question: str) -> None:
    assert parse_time(question, NOW) is None


def test_cues_do_not_overlap() -> None:
    cues = time_cues("between 2026-01-05 and 2026-01-09", NOW)
    assert [c.span.text for c in cues] == ["between 2026-01-05 and 2026-01-09"]
