"""A one-line input in a dialog (rename, label, branch summary); the cursor starts at the end."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from pitui.core.js import js_trim
from pitui.ui.widgets.safe_input import SafeInput, input_safe


class TextInputModal(ModalScreen[str | None]):
    """Returns the trimmed text, or ``None`` when cancelled.

    With ``allow_empty=False`` (rename) Enter on an empty field keeps the dialog open, as pi does;
    with ``allow_empty=True`` (label) an empty value is returned (it clears the label).
    A ``value`` with characters that could act on the terminal is shown without them; submitted
    unchanged, the original ``value`` is returned (nothing is rewritten behind the user's back).
    """

    BINDINGS = [Binding("escape,ctrl+c", "cancel", "Cancel", priority=True, id="input.cancel")]

    def __init__(self, title: str, *, value: str = "", hint: str = "", allow_empty: bool = False,
                 placeholder: str = "") -> None:  # fmt: skip
        super().__init__()
        self._title = title
        self._value = value
        self._shown = input_safe(value)
        self._hint = hint
        self._allow_empty = allow_empty
        self._placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self._title, style="bold"), id="dialog-title")
            yield SafeInput(value=self._shown, placeholder=self._placeholder, id="dialog-input")
            yield Static(Text(self._hint), id="dialog-hint")

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.focus()
        field.cursor_position = len(field.value)

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        value = js_trim(self._value if event.value == self._shown else event.value)
        if not value and not self._allow_empty:
            self.query_one("#dialog-hint", Static).update(
                Text("A name cannot be empty. " + self._hint, style="bold")
            )
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)
