"""Following the sessions folder while the picker is open: the watch worker, the live marks on
the rows, and re-reading the listing at the pace :mod:`.live` allows.

Like :mod:`.writes`, a helper of the screen; the rules are plain state in :mod:`.live`. Changed
sessions are re-read through the catalog (which keeps the store's index current); the selected
session stays selected and the query stays.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.timer import Timer

from pitui.render.safe_text import one_line
from pitui.ui.screens.picker.live import LiveMarks, RefreshPacer

if TYPE_CHECKING:
    from pitui.core.watch import WatchEvent
    from pitui.ui.screens.picker.screen import PickerScreen


class PickerFollow:
    """The watch of one picker screen."""

    def __init__(self, screen: PickerScreen, debounce_ms: int | None) -> None:
        """``debounce_ms``: the watch's debounce, ``None`` not to follow the folder."""
        self.screen = screen
        self.marks = LiveMarks()
        self.pacer = RefreshPacer()
        self.watching = False
        # the debounce of a watch not started yet (it starts after the first rows are drawn)
        self._pending: int | None = debounce_ms
        self._stop: asyncio.Event | None = None
        self._refresh_timer: Timer | None = None
        self._live_timer: Timer | None = None

    def start(self) -> None:
        # setting up the watch (importing watchfiles, a watch on every folder) holds the event
        # loop and the GIL: it starts once the first rows are drawn, or the load ends
        if self._pending is not None:
            debounce, self._pending = self._pending, None
            self.screen.run_worker(
                self._watch(debounce),
                name="_watch",
                group="picker-watch",
                exclusive=True,
                exit_on_error=False,
            )

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def _watch(self, debounce_ms: int) -> None:
        root = self.screen.catalog.watch_root()
        if root is None:
            return
        from pitui.core.watch import SessionWatcher

        self._stop = asyncio.Event()
        self.watching = True
        try:
            watcher = SessionWatcher(root, debounce_ms=debounce_ms)
            async for batch in watcher.events(self._stop):
                self.take(batch)
        finally:
            self.watching = False

    def take(self, batch: Sequence[WatchEvent]) -> None:
        """React to one batch of file events: mark live sessions, re-read the listing."""
        touched, notices = self.marks.take(batch, time.monotonic())
        for notice in notices:
            self.screen.notify(one_line(notice, 300), severity="warning")
        if touched:
            self._apply_live()
            self._schedule_refresh()

    def _apply_live(self) -> None:
        screen = self.screen
        next_end = self.marks.expire(time.monotonic())
        screen.session_list.set_live(self.marks.live.keys())
        if self._live_timer is not None:
            self._live_timer.stop()
            self._live_timer = None
        if next_end is not None:
            self._live_timer = screen.set_timer(next_end, self._apply_live)

    def _schedule_refresh(self) -> None:
        if self._refresh_timer is not None:
            return  # one is already due
        wait = self.pacer.wait(time.monotonic())
        if wait <= 0:
            self._refresh_now()
        else:
            self._refresh_timer = self.screen.set_timer(wait, self._refresh_now)

    def _refresh_now(self) -> None:
        """Re-read the visible scope through the catalog (the store re-summarises only the
        files whose size or time changed, and its index follows); the other scope is re-read
        when it is shown again."""
        self._refresh_timer = None
        self.pacer.last = time.monotonic()
        screen = self.screen
        if screen.state.plan_refresh():
            screen.load(screen.state.scope, force=True, quiet=True)
