"""A yes/no question: Enter confirms, Esc or Ctrl+C cancels, every other key does nothing."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from pitui.render.safe_text import sanitize_text


class ConfirmModal(ModalScreen[bool]):
    """Returns ``True`` on confirm. ``body`` is a ``Text`` so session text is never markup."""

    BINDINGS = [
        Binding("enter", "confirm", "Confirm", priority=True, id="confirm.yes"),
        Binding("escape,ctrl+c", "cancel", "Cancel", priority=True, id="confirm.no"),
    ]

    def __init__(
        self, title: str, body: Text, *, confirm_label: str = "Confirm", danger: bool = True
    ) -> None:
        super().__init__(classes="-danger" if danger else "")
        self._title = title
        self._body = sanitize_text(body)  # (it quotes labels, paths, names: controls shown)
        self._confirm_label = confirm_label

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self._title, style="bold"), id="dialog-title")
            yield Static(self._body, id="dialog-body")
            with Horizontal(id="dialog-buttons"):
                yield Button(
                    Text(f"{self._confirm_label} [Enter]"),
                    id="yes",
                    variant="error" if self.has_class("-danger") else "primary",
                )
                yield Button(Text("Cancel [Esc]"), id="no")

    def on_key(self, event: Key) -> None:
        # While confirming, no other key may act (ui-behaviour §2.10), not even focus moves.
        if event.key not in ("enter", "escape", "ctrl+c"):
            event.stop()
            event.prevent_default()

    @on(Button.Pressed, "#yes")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def action_cancel(self) -> None:
        self.dismiss(False)
