"""The raw-lines view: the lines of a file that is not a session, each with what pi makes of it.

Shown by the session view in place of the tree and the context when a file fails pi's header
check (format §14: "refuse like [new]; offer a raw view of the lines"). The lines are read by
:func:`pitui.core.rawlines.read_raw_lines` off the event loop; this widget only draws them. The
tree's keys have nothing to act on here: each says so (:data:`NOT_A_SESSION`) instead of doing
nothing.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from pitui.core.rawlines import RawLine, RawLines
from pitui.render.safe_text import safe_line
from pitui.ui.clipboard import copy_text
from pitui.ui.commands import commands_for

__all__ = ["NOT_A_SESSION", "RawLinesView", "why_not"]

NOT_A_SESSION = "This file is not a pi session"

# What each command of the session view and the tree cannot do here, and why.
_WHY_NOT: dict[str, str] = {
    "resume": "pi cannot resume it: pi 1.x refuses it, pi 0.73.1 would overwrite it",
    "undo": "nothing to undo: pitui never writes to a file it cannot read",
    "extract": "there is no branch to extract",
    "prune": "there is no branch to prune",
    "toggle_follow": "there are no entries to follow",
    "edit_label": "there are no entries to label",
    "select": "there are no entries to continue from",
    "copy_resume_command": "pi cannot resume it: pi 1.x refuses it, pi 0.73.1 would overwrite it",
}


def why_not(action: str) -> str:
    """The one-line answer to a key that has nothing to act on in the raw view."""
    reason = _WHY_NOT.get(action, "there are no entries here")
    return f"{NOT_A_SESSION}: {reason}. F3 (doctor) says why it is not one."


def _tree_bindings() -> list[BindingType]:
    # The tree's keys, minus the movement keys this list answers itself: Escape leaves, as in
    # the tree; each other names an action that explains why it does nothing here.
    own = {"cursor_up", "cursor_down", "page_up", "page_down", "first", "last", "backspace"}
    out: list[BindingType] = []
    for command in commands_for("tree"):
        action = command.action.split("(", 1)[0]
        if action == "escape":
            out.append(Binding(command.keys, "close", command.description, show=False))
        if action in own or action == "escape":
            continue
        out.append(Binding(command.keys, f"not_here('{action}')", command.description, show=False))
    return out


def _prompt(line: RawLine, number_width: int) -> Group:
    style = "bold yellow" if line.problem else "dim"
    head = Text(f"{line.number:>{number_width}}  byte {line.offset:,}  ", style="dim")
    head.append(f"{line.size:,} B  ", style="dim")
    head.append_text(safe_line(line.verdict, max_chars=300, style=style))
    body = Text(" " * (number_width + 2))
    body.append_text(safe_line(line.text, max_chars=300))
    return Group(head, body)


class RawLinesView(OptionList):
    """One option per line of the file: its number, byte offset, size, pi's verdict, its text."""

    BINDINGS = _tree_bindings()

    class CloseRequested(Message):
        """Escape: leave the view (the screen decides what leaving means)."""

    DEFAULT_CSS = """
    RawLinesView { height: 1fr; border: none; }
    """

    def __init__(self, raw: RawLines, *, id: str | None = None) -> None:
        width = len(str(raw.lines[-1].number)) if raw.lines else 1
        options = [Option(_prompt(line, width), id=str(line.number)) for line in raw.lines]
        super().__init__(*options, id=id)
        self.raw = raw

    @property
    def selected_line(self) -> RawLine | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self.raw.lines):
            return None
        return self.raw.lines[index]

    def summary(self) -> Text:
        """The line above the list: why the file is refused and how much is shown."""
        shown = len(self.raw.lines)
        text = Text(self.raw.reason + " ", style="bold")
        more = ", more not shown" if self.raw.truncated else ""
        text.append(
            f"{shown:,} line{'s' if shown != 1 else ''} ({self.raw.size:,} bytes){more}; "
            "pitui leaves the file as it is; F3: the doctor on it.",
            style="dim",
        )
        return text

    def copy_selected(self) -> None:
        """The selected line's text to the clipboard (its start only, for a long line)."""
        line = self.selected_line
        if line is None:
            self.notify("No line selected", severity="warning")
            return
        what = f"line {line.number}"
        if line.cut:
            what += f" (its first {len(line.text):,} characters)"
        copy_text(self.app, line.text, what)

    def action_close(self) -> None:
        self.post_message(self.CloseRequested())

    def action_not_here(self, action: str) -> None:
        self.notify(why_not(action), severity="warning")
