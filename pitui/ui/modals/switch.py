"""The branch switch dialog (ui-behaviour §3.13): switch, switch with a typed summary, or cancel."""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from pitui.render.safe_text import one_line, safe_text

SwitchChoice = Literal["switch", "summary"]


class SwitchModal(ModalScreen[SwitchChoice | None]):
    """Where pi will continue, and how to get there.

    ``selected`` and ``new_leaf`` describe the chosen entry and the entry pi continues from (its
    tree row text; ``new_leaf`` None: a fresh root), ``same`` says they are one entry, and
    ``editor_text`` is the message offered for sending again (a user or custom message was
    chosen). Returns the choice, or None on cancel.
    """

    BINDINGS = [
        Binding("s", "choose('summary')", "With summary", priority=True, id="switch.summary"),
        Binding("c", "copy_text", "Copy text", priority=True, id="switch.copy"),
        Binding("escape,ctrl+c", "cancel", "Cancel", priority=True, id="switch.cancel"),
    ]

    def __init__(
        self, selected: str, new_leaf: str | None, editor_text: str | None, *, same: bool
    ) -> None:
        super().__init__()
        self._selected = selected
        self._new_leaf = new_leaf
        self._same = same
        self._editor_text = editor_text

    def compose(self) -> ComposeResult:
        body = Text()
        if self._new_leaf is None:
            body.append("pi will start a fresh conversation: the next message begins a new root, ")
            body.append("with nothing in the model's context.\n")
        else:
            body.append("pi will continue right after\n")
            body.append(f"  {one_line(self._new_leaf, 200)}\n", "bold")
            if not self._same:
                body.append("just before the chosen message, so you can send it again.\n")
        body.append(
            "\npitui appends a small marker entry so pi resumes there; nothing is removed.", "dim"
        )
        with Vertical(id="dialog"):
            yield Static(Text("Continue from here?", style="bold"), id="dialog-title")
            yield Static(body, id="dialog-body")
            if self._editor_text:
                yield Static(Text("The message to send again:", style="bold"))
                yield Static(safe_text(self._editor_text, max_chars=600), id="switch-editor-text")
            with Horizontal(id="dialog-buttons"):
                yield Button(Text("Switch ⏎"), id="switch", variant="primary")
                yield Button(Text("With summary… s"), id="summary")
                if self._editor_text:
                    yield Button(Text("Copy text c"), id="copy")
                yield Button(Text("Cancel esc"), id="cancel")

    def on_mount(self) -> None:
        # Enter presses the focused button: Switch unless the user tabbed to another one
        self.query_one("#switch", Button).focus()

    def on_key(self, event: Key) -> None:
        # the dialog's own keys only: nothing reaches the tree underneath
        if event.key not in ("enter", "escape", "ctrl+c", "s", "c", "tab", "shift+tab"):
            event.stop()
            event.prevent_default()

    @on(Button.Pressed, "#switch")
    def _switch(self) -> None:
        self.dismiss("switch")

    @on(Button.Pressed, "#summary")
    def _summary(self) -> None:
        self.dismiss("summary")

    @on(Button.Pressed, "#copy")
    def action_copy_text(self) -> None:
        if self._editor_text:
            self.app.copy_to_clipboard(self._editor_text)
            self.app.notify("Message text copied to the clipboard")

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_choose(self, choice: SwitchChoice) -> None:
        self.dismiss(choice)
