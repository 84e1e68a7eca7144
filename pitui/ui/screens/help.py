"""The help screen (F1): every command with its current keys, from the one declaration."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from pitui import __version__
from pitui.ui.commands import COMMANDS, WHERE_TITLES, effective_keys


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close", id="help.close")]

    def __init__(self, keymap: dict[str, str]) -> None:
        super().__init__()
        self._keymap = keymap

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Static(
                Text(f"pitui {__version__} — keys and commands", style="bold"), id="help-title"
            )
            yield Static(self._table(), id="help-table")
            yield Static(
                Text(
                    "Keys can be changed in the config file's [keymap] table, by command id. "
                    "Esc closes this screen.",
                    style="italic",
                ),
                id="help-footer",
            )

    def _table(self) -> Table:
        table = Table(box=None, expand=True, show_header=True, header_style="bold", pad_edge=False)
        table.add_column("keys", no_wrap=True)
        table.add_column("command", no_wrap=True)
        table.add_column("what it does", ratio=1)
        table.add_column("id", no_wrap=True, style="dim")
        for where, title in WHERE_TITLES.items():
            rows = [c for c in COMMANDS if c.where == where]
            if not rows:
                continue
            table.add_row(Text(title, style="bold underline"), "", "", "")
            for command in rows:
                keys = effective_keys(command, self._keymap).replace(",", " / ")
                table.add_row(Text(keys), Text(command.description), Text(command.help), command.id)
            table.add_row("", "", "", "")
        return table

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)
