"""The stats screen: a modal holding the stats panel, computed in a worker; Esc closes it.

The app passes what to count as a ``source``: a blocking function ``(progress, cancel) ->
StatsReport`` (see :func:`store_source`), run in a thread worker so the screen paints at once and
shows how far reading got. Closing the screen cancels the worker.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from pitui.core.stats import GroupBy, StatsReport, store_stats
from pitui.core.units import format_count
from pitui.render.safe_text import one_line
from pitui.ui.widgets.stats_panel import StatsPanel

if TYPE_CHECKING:
    from pitui.core.store import Scope, Store

Progress = Callable[[int, int], None]
StatsSource = Callable[[Progress, threading.Event], StatsReport]


def store_source(store: Store, scope: Scope, by: GroupBy | None = "model") -> StatsSource:
    """What ``pitui stats`` counts for ``scope``, as a source for :class:`StatsScreen`."""

    def compute(progress: Progress, cancel: threading.Event) -> StatsReport:
        return store_stats(store, scope, by=by, progress=progress, cancel=cancel)

    return compute


class StatsScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "close", "Close", id="stats.close")]

    class Progressed(Message):
        def __init__(self, done: int, total: int) -> None:
            super().__init__()
            self.done = done
            self.total = total

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, StatsScreen.Progressed)

    class Computed(Message):
        def __init__(self, report: StatsReport | None, error: str | None) -> None:
            super().__init__()
            self.report = report
            self.error = error

    def __init__(self, source: StatsSource, *, title: str = "Usage") -> None:
        super().__init__()
        self._source = source
        self._title = title
        self._cancel = threading.Event()

    def compose(self) -> ComposeResult:
        # the modal dialog look of styles/modals.tcss (#dialog, #dialog-title, #dialog-hint)
        with Vertical(id="dialog"):
            yield Static(Text(self._title, style="bold"), id="dialog-title")
            yield StatsPanel(id="stats-panel")
            yield Static(
                Text("Forks count their copied history once.  Esc closes."), id="dialog-hint"
            )

    def on_mount(self) -> None:
        self.compute()

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False)
    def compute(self) -> None:
        def progress(done: int, total: int) -> None:
            self.post_message(self.Progressed(done, total))

        try:
            report = self._source(progress, self._cancel)
        except Exception as exc:  # a failure is shown in the panel, never a crash
            reason = one_line(str(exc) or type(exc).__name__)
            self.post_message(self.Computed(None, f"Could not compute the statistics: {reason}"))
            return
        if not self._cancel.is_set():
            self.post_message(self.Computed(report, None))

    @on(Progressed)
    def _progressed(self, message: Progressed) -> None:
        panel = self.query_one(StatsPanel)
        if panel.report is None:
            done, total = format_count(message.done), format_count(message.total)
            panel.show_status(f"Reading sessions… {done}/{total}")

    @on(Computed)
    def _computed(self, message: Computed) -> None:
        panel = self.query_one(StatsPanel)
        if message.report is not None:
            panel.show_report(message.report)
        else:
            panel.show_status(message.error or "Could not compute the statistics")

    def on_unmount(self) -> None:
        self._cancel.set()

    def action_close(self) -> None:
        self._cancel.set()
        self.dismiss(None)
