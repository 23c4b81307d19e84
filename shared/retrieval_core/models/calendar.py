"""The one calendar every date in the product lies in: the years 1-9999 in UTC, which Python's datetime
holds, the index stores (rendered with four-digit years) and every window is clamped to. A moment outside
it is refused where it enters (an item's dates, a filter's date, a window, ``now``: a 422 naming the
field), and a computed moment that would leave it (a time cue read near the calendar's ends) is not read.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime

CALENDAR_START = datetime(1, 1, 1, tzinfo=UTC)
CALENDAR_END = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
OUTSIDE_CALENDAR = "its UTC form must lie within years 1-9999"


def in_calendar(moment: datetime) -> datetime:
    """``moment`` (aware) when its UTC form lies in the calendar; ValueError otherwise."""
    try:
        moment.astimezone(UTC)
    except OverflowError:
        raise ValueError(OUTSIDE_CALENDAR) from None
    return moment


CalendarMoment = Annotated[AwareDatetime, AfterValidator(in_calendar)]
"""An ISO-8601 moment with a zone, inside the calendar (its zone kept: ``now`` reads cues in it)."""
