"""Issue 40: every date computation stays in the one calendar (years 1-9999 in UTC). Any time cue read
against any accepted ``now`` is a window inside the calendar with its start before its end, or no window;
never an exception. Dates outside the calendar are refused where they enter, by field."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from retrieval_core.models.calendar import CALENDAR_END, CALENDAR_START
from retrieval_core.models.item import Item
from retrieval_core.models.vocabulary import iso
from retrieval_core.retrieval.requests import RetrieveRequest
from retrieval_core.understanding.temporal import parse_time, time_cues

CUES = [
    "deploys before 0001-01-01",
    "deploys after 9999-12-31",
    "until 0001-01-01",
    "on 0001-01-01",
    "on 9999-12-31 UTC+14",
    "between 0001-01-01 and 0001-01-02 UTC-12",
    "in 1969",
    "since 2025",
    "last month",
    "this week",
    "previous quarter",
    "last year",
    "yesterday",
    "today",
    "before April",
    "after March",
    "in Q1",
    "from November to February",
    "in the past 999 years",
    "999 months ago",
    "currently",
]
ZONES = st.sampled_from([UTC, timezone(timedelta(hours=14)), timezone(timedelta(hours=-12))])
EDGE_NOWS = [
    datetime(1, 1, 1, tzinfo=UTC),
    datetime(1, 1, 1, 13, tzinfo=timezone(timedelta(hours=12))),
    datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    datetime(9999, 12, 31, 10, tzinfo=timezone(timedelta(hours=-12))),
]


def accepted_nows() -> st.SearchStrategy[datetime]:
    """Every ``now`` the request model accepts: the calendar's edges, and anywhere in it, in any zone."""
    anywhere = st.builds(
        lambda moment, zone: moment.replace(tzinfo=UTC).astimezone(zone),
        st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.none()),
        ZONES,
    )
    return st.sampled_from(EDGE_NOWS) | anywhere


@settings(max_examples=300, derandomize=True, deadline=None)
@given(cue=st.sampled_from(CUES), now=accepted_nows())
@example(cue="last month", now=datetime(1, 1, 5, tzinfo=UTC))
@example(cue="after 9999-12-31", now=datetime(2026, 5, 1, tzinfo=UTC))
def test_any_cue_against_any_accepted_now_is_a_window_in_the_calendar_or_none(
    cue: str, now: datetime
) -> None:
    RetrieveRequest.model_validate({"mode": "auto", "text": cue, "now": now.isoformat()})
    for found in time_cues(f"what changed {cue}", now):
        assert CALENDAR_START <= found.start <= found.end <= CALENDAR_END


@pytest.mark.parametrize("cue", ["before 0001-01-01", "until 0001-01-01", "after 9999-12-31"])
def test_a_window_that_would_leave_the_calendar_is_not_read(cue: str) -> None:
    assert parse_time(f"deploys {cue}", datetime(2026, 5, 1, tzinfo=UTC)) is None


def test_a_year_before_1970_is_its_own_year_not_an_inverted_window() -> None:
    cue = parse_time("what shipped in 1969", datetime(2026, 5, 1, tzinfo=UTC))
    assert cue is not None
    assert (cue.start, cue.end) == (
        datetime(1969, 1, 1, tzinfo=UTC),
        datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    )


@pytest.mark.parametrize("text", ["in March 99999", "in Q1 20266", "between January and March 99999"])
def test_a_number_that_cannot_be_the_year_keeps_the_period_unread(text: str) -> None:
    assert parse_time(f"deploys {text}", datetime(2026, 5, 1, tzinfo=UTC)) is None


def test_now_outside_the_calendar_in_utc_is_a_validation_error_naming_it() -> None:
    with pytest.raises(ValidationError) as refused:
        RetrieveRequest.model_validate({"mode": "auto", "text": "x", "now": "0001-01-01T00:00:00+01:00"})
    assert refused.value.errors()[0]["loc"] == ("now",)
    assert "years 1-9999" in str(refused.value)


def test_an_item_dated_year_one_is_stored_with_a_four_digit_year() -> None:
    """It used to pass validation and then fail in the index (strftime wrote the year as "1")."""
    moment = datetime(1, 1, 1, tzinfo=UTC)
    assert iso(moment) == "0001-01-01T00:00:00Z"
    item = Item.model_validate(
        {
            "context_id": "acme",
            "id": "acme:p-1",
            "kind": "proposition",
            "text": "x",
            "created_at": "0001-01-01T00:00:00Z",
        }
    )
    assert iso(item.created_at) == "0001-01-01T00:00:00Z"
