"""Key hints that a status message or a question takes over for a while (ui-behaviour §2.11).

:class:`HintLines` holds lines of key hints (``.hint`` in ``base.tcss``). A status replaces them
for its duration, its first line coloured by kind; a question (the delete confirmation) holds the
first line in error colour until it is answered. The owner sets the hints whenever they change;
what shows is the newest of question and status, else the hints.

Hints are cut between their items (``a · b …``) to the width; a status or a question that is
too wide ends in ``…`` (``text-overflow`` in ``base.tcss``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Static

from pitui.render.safe_text import one_line
from pitui.ui.widgets.fit import fit_hint

Tone = Literal["hint", "info", "error"]


class HintLines(Vertical):
    def __init__(self, count: int = 2, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._count = count
        self._hints: tuple[str, ...] = ("",) * count
        self._question: str | None = None
        self._status: tuple[str, Tone] | None = None
        self._status_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        prefix = self.id or "hint"
        for number in range(1, self._count + 1):
            yield Static(id=f"{prefix}-{number}", classes="hint")

    @property
    def status_text(self) -> str | None:
        """The status shown now (``None`` while none is)."""
        return self._status[0] if self._status is not None else None

    def set_hints(self, lines: Sequence[str]) -> None:
        self._hints = tuple(lines)
        if self._question is None and self._status is None:
            self._draw_hints()

    def ask(self, question: str | None) -> None:
        """Hold the first line with ``question`` (``None``: it was answered)."""
        self._question = question
        if question is not None:
            self._draw_first(Text(question), "error")
        elif self._status is not None:
            self._draw_first(self._status_line(), self._status[1])
        else:
            self._draw_hints()

    def show_status(self, message: str, tone: Tone, seconds: float) -> None:
        """One status at a time, in place of the hints, for ``seconds``."""
        self._status = (one_line(message), tone)
        self._draw_first(self._status_line(), tone)
        if self._status_timer is not None:
            self._status_timer.stop()
        self._status_timer = self.set_timer(seconds, self._status_over)

    def _status_over(self) -> None:
        self._status_timer = None
        self._status = None
        self.ask(self._question)

    def _status_line(self) -> Text:
        text = self._status[0] if self._status is not None else ""
        return Text(text)

    def _lines(self) -> list[Static]:
        return list(self.query(Static))

    def _draw_first(self, text: Text, tone: Tone) -> None:
        first, *rest = self._lines()
        first.update(text)
        first.set_class(tone == "error", "-error")
        first.set_class(tone == "info", "-info")
        for line in rest:
            line.update("")

    def _draw_hints(self) -> None:
        for line, hint in zip(self._lines(), self._hints, strict=False):
            width = line.content_size.width
            line.update(Text(fit_hint(hint, width) if width else hint))
            line.set_class(False, "-error", "-info")

    def on_resize(self, event: events.Resize) -> None:
        if self._question is None and self._status is None:
            self._draw_hints()
