"""RFC3339 timestamps: a strictly increasing server clock and a tolerant parser for cursors.

Entry order and the list_entries cursors (before/after) compare timestamps, so every stamp the
service hands out is unique and fixed-width (microseconds, UTC, `Z`): string order = time order.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
_FRACTION = re.compile(r"(\.\d+)")


def format_ts(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(_FORMAT)


def parse_rfc3339(text: str) -> datetime:
    """Parse an RFC3339 timestamp (Z or offset, any fraction); ValueError when it is not one."""
    value = text.strip()
    if not value or "T" not in value.upper():
        raise ValueError("expected an RFC3339 timestamp such as 2024-05-01T12:00:00Z")
    value = value[:10] + "T" + value[11:]
    if value.endswith(("z", "Z")):
        value = value[:-1] + "+00:00"
    # Go and JavaScript emit up to 9 fraction digits; Python parses at most 6.
    value = _FRACTION.sub(lambda m: m.group(1)[:7], value, count=1)
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("expected an RFC3339 timestamp such as 2024-05-01T12:00:00Z") from None
    if moment.tzinfo is None:
        raise ValueError("the timestamp has no timezone; add Z or an offset, e.g. 2024-05-01T12:00:00Z")
    return moment.astimezone(UTC)


def normalize_cursor(text: str) -> str:
    """A client timestamp in the service's fixed-width form, comparable with stored stamps."""
    return format_ts(parse_rfc3339(text))


class MonotonicClock:
    """Wall-clock stamps that never repeat and never go backwards (bumped by 1 µs when needed)."""

    def __init__(self, last: str | None = None):
        self._last = parse_rfc3339(last) if last else datetime.min.replace(tzinfo=UTC)

    def observe(self, stamp: str | None) -> None:
        """Never hand out a stamp at or before one already stored (e.g. after a restart)."""
        if stamp:
            self._last = max(self._last, parse_rfc3339(stamp))

    def now(self) -> str:
        moment = datetime.now(UTC)
        if moment <= self._last:
            moment = self._last + timedelta(microseconds=1)
        self._last = moment
        return format_ts(moment)
