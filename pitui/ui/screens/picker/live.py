"""Following the sessions folder while the picker is open, as plain state.

:class:`LiveMarks` turns batches of :mod:`pitui.core.watch` events into the sessions to mark live
(pi is writing them) and the paths whose rows may have changed; :class:`RefreshPacer` says when
the listing may be re-read. The screen owns the watch worker and the timers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # (imported when watching starts, after the first frame)
    from pitui.core.watch import WatchEvent

LIVE_SECONDS = 8.0  # a session whose file grew this recently is marked live
REFRESH_INTERVAL = 0.5  # at most one live re-read of the listing per this many seconds,
REFRESH_COST_FACTOR = 4.0  # nor more often than 4 times as long as the last re-read took
OWN_WRITE_SECONDS = 3.0  # our own appends (rename) do not make a session "live"


@dataclass(slots=True)
class LiveMarks:
    """Which sessions are live (path → monotonic time the mark ends), which changed on disk
    since the last re-read, and which changes are our own writes."""

    live: dict[str, float] = field(default_factory=dict)
    own_writes: dict[str, float] = field(default_factory=dict)  # path → until when it is ours
    touched: set[str] = field(default_factory=set)  # changed since the last re-read

    def own_write(self, path: str, now: float) -> None:
        """We are about to write ``path``: its next events are not pi working in it."""
        self.own_writes[path] = now + OWN_WRITE_SECONDS

    def take(self, batch: Sequence[WatchEvent], now: float) -> tuple[set[str], list[str]]:
        """Note one batch of events: the paths it touched, and the notices to show."""
        from pitui.core.watch import (
            SessionCreated,
            SessionDeleted,
            SessionGrew,
            SessionRenamed,
            SessionReplaced,
            WatchNotice,
        )

        touched: set[str] = set()
        notices: list[str] = []
        for event in batch:
            if isinstance(event, WatchNotice):
                notices.append(event.message)
            elif isinstance(event, SessionRenamed):
                touched.update((event.old, event.new))
                self.live.pop(event.old, None)
            elif isinstance(event, (SessionCreated, SessionGrew)):
                touched.add(event.path)
                if self.own_writes.get(event.path, 0.0) < now:
                    self.live[event.path] = now + LIVE_SECONDS
            elif isinstance(event, SessionReplaced):
                touched.add(event.path)
            elif isinstance(event, SessionDeleted):
                touched.add(event.path)
                self.live.pop(event.path, None)
        self.touched |= touched
        return touched, notices

    def expire(self, now: float) -> float | None:
        """Drop the marks that ended; seconds until the next one ends (``None``: none left)."""
        self.live = {path: until for path, until in self.live.items() if until > now}
        self.own_writes = {path: until for path, until in self.own_writes.items() if until > now}
        if not self.live:
            return None
        return max(min(self.live.values()) - now + 0.05, 0.05)


@dataclass(slots=True)
class RefreshPacer:
    """A big store takes a while to re-read: then it is re-read less often (pi may write every
    second while it works), so following it costs at most about a quarter of a core."""

    last: float = 0.0  # when the last re-read started (monotonic)
    cost: float = 0.0  # seconds the last re-read took

    def wait(self, now: float) -> float:
        """Seconds until the next re-read may start (zero or less: now)."""
        interval = max(REFRESH_INTERVAL, REFRESH_COST_FACTOR * self.cost)
        return self.last + interval - now
