"""The doctor screen: what ``pitui doctor PATH`` reports about one session file, in the app.

Opened from the picker (selected session) and the session view (the open file). The file is
checked in a thread worker (a big file takes a while), so the screen paints at once; nothing is
written. The report is session text (problem reasons quote lines), so every line goes through
:func:`safe_line`; severities and the verdict are coloured. Esc closes, Ctrl+Y copies the report.
"""

from __future__ import annotations

import os

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from pitui.core.paths import shorten_home
from pitui.render.safe_text import one_line, safe_line
from pitui.ui.clipboard import clipboard_text, copy_text

HINT = "Read-only: nothing is changed.  Esc closes · Ctrl+Y copies the report."

# the severity column of report_lines ("    error    line 3 (byte 120): ...")
_LEVEL_STYLES = {"error": "bold red", "warning": "yellow", "note": "dim"}


def styled_report(lines: list[str], healthy: bool) -> Text:
    """The report's lines as one ``Text``: session text made safe, severities coloured."""
    text = Text(no_wrap=False, end="")
    for number, line in enumerate(lines):
        if number:
            text.append("\n")
        shown = safe_line(line, max_chars=2_000)
        words = line.split()
        if number == 0:
            shown.stylize(Style(bold=True))
            verdict = line.rsplit(": ", 1)[-1] if ": " in line else ""
            if verdict:
                start = len(shown.plain) - len(verdict)
                shown.stylize("green" if healthy else "bold red", max(start, 0))
        elif words and words[0] in _LEVEL_STYLES and line.startswith("    "):
            start = line.index(words[0])
            shown.stylize(_LEVEL_STYLES[words[0]], start, start + len(words[0]))
        elif line.startswith("  ") and not line.startswith("   "):
            shown.stylize("bold", 2, 2 + len(words[0]) if words else 2)  # section names
        text.append_text(shown)
    return text


class DoctorScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="doctor.close"),
        Binding("ctrl+y", "copy_report", "Copy report", id="doctor.copy"),
    ]

    class Checked(Message):
        def __init__(self, lines: list[str], healthy: bool) -> None:
            super().__init__()
            self.lines = lines
            self.healthy = healthy

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.lines: list[str] | None = None  # the report, once checked (tests wait for it)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            title = Text("Doctor · ", style="bold")
            title.append_text(safe_line(os.path.basename(self.path), style="bold"))
            yield Static(title, id="dialog-title")
            with VerticalScroll(id="doctor-body"):
                yield Static(Text("Checking the file…", style="italic"), id="doctor-report")
            yield Static(Text(HINT), id="dialog-hint")

    def on_mount(self) -> None:
        self.check()

    @work(thread=True, exclusive=True, group="doctor", exit_on_error=False, description="doctor")
    def check(self) -> None:
        from pitui.core.doctor import diagnose_file, report_lines

        try:
            report = diagnose_file(self.path)
        except Exception as exc:  # the doctor never raises on a file; this is a last guard
            reason = one_line(str(exc) or type(exc).__name__)
            self.post_message(self.Checked([f"{self.path}: could not be checked: {reason}"], False))
            return
        lines = report_lines(report)
        # the title names the file; the report's first line may shorten its folder
        lines[0] = lines[0].replace(report.path, shorten_home(report.path), 1)
        self.post_message(self.Checked(lines, report.healthy))

    @on(Checked)
    def _checked(self, message: Checked) -> None:
        self.lines = message.lines
        self.query_one("#doctor-report", Static).update(
            styled_report(message.lines, message.healthy)
        )

    def action_copy_report(self) -> None:
        if self.lines is None:
            self.notify("The file is still being checked", severity="warning")
            return
        copy_text(self.app, clipboard_text("\n".join(self.lines)), "the doctor's report")

    def action_close(self) -> None:
        self.dismiss(None)
