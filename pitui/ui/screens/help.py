"""The help screen (F1): every command with its current keys, from the one declaration, and
what the session tree's marks and colours mean (drawn in the theme's colours, as the tree has
them)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from pitui import __version__
from pitui.ui.commands import COMMANDS, WHERE_TITLES, Where, effective_keys

WIDE_COLUMNS = 120  # a terminal this wide has room for each command's help in a column of its own


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close", id="help.close")]

    def __init__(self, keymap: dict[str, str], *, first: Sequence[Where] = ()) -> None:
        """``first``: the places whose keys are listed first (the screen's it was opened on)."""
        super().__init__()
        self._keymap = keymap
        self._places = [*first, *(where for where in WHERE_TITLES if where not in first)]
        self._wide = True  # the table's layout (the terminal's width decides when shown)

    def compose(self) -> ComposeResult:
        self._wide = self.app.size.width >= WIDE_COLUMNS
        with VerticalScroll(id="help-body"):
            yield Static(
                Text(f"pitui {__version__} — keys and commands", style="bold"), id="help-title"
            )
            yield Static(self._table(wide=self._wide), id="help-table")
            yield Static(Text("The session tree's marks and colours", style="bold"),
                         id="legend-title")  # fmt: skip
            yield Static(legend(self.app.get_css_variables()), id="help-legend")
            yield Static(
                Text(
                    "Keys can be changed in the config file's [keymap] table, by command id "
                    "(pitui --help-keys lists them with your changes). Esc closes this screen.",
                    style="italic",
                ),
                id="help-footer",
            )

    def _table(self, *, wide: bool = True) -> Table:
        """Keys, command, what it does and id in four columns; not ``wide`` (a terminal under
        :data:`WIDE_COLUMNS`), the command, its id and what it does share one wrapping column,
        so what it does keeps room to be read."""
        table = Table(box=None, expand=True, show_header=True, header_style="bold", pad_edge=False)
        table.add_column("keys", no_wrap=True)
        if wide:
            table.add_column("command", no_wrap=True)
            table.add_column("what it does", ratio=1)
            table.add_column("id", no_wrap=True, style="dim")
        else:
            table.add_column("command · id: what it does", ratio=1)
        for where in self._places:
            rows = [c for c in COMMANDS if c.where == where]
            if not rows:
                continue
            table.add_row(
                Text(WHERE_TITLES[where], style="bold underline"), *[""] * (len(table.columns) - 1)
            )
            for command in rows:
                keys = Text(effective_keys(command, self._keymap).replace(",", " / "))
                if wide:
                    table.add_row(keys, Text(command.description), Text(command.help), command.id)
                    continue
                what = Text.assemble(
                    command.description, (f" · {command.id}", "dim"), "\n", command.help
                )
                table.add_row(keys, what)
            table.add_row(*[""] * len(table.columns))
        return table

    def on_resize(self) -> None:
        wide = self.size.width >= WIDE_COLUMNS
        if wide != self._wide:
            self._wide = wide
            self.query_one("#help-table", Static).update(self._table(wide=wide))

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)


def legend(colours: dict[str, str]) -> Table:
    """What the tree's marks, colours and the session header's live state mean. ``colours``:
    the theme's CSS variables (the tree's component classes use ``accent``, ``success``, …)."""

    def colour(name: str) -> str:
        return colours.get(name, "")

    accent, dim = colour("accent"), colour("text-disabled")
    rows: list[tuple[Text, str]] = [
        (Text("› ", accent), "the selected row: the right pane shows the context at it"),
        (
            Text("• ", accent),
            "on the active path, root to leaf: what pi resumes and the model sees",
        ),
        (Text.assemble(("├⊟ ", dim)), "a branch start that can be folded (ctrl+← on it)"),
        (
            Text.assemble(("├⊞ ", dim), ("⊞ ", accent)),
            "folded: its rows are hidden (ctrl+→ unfolds; a root shows ⊞)",
        ),
        (Text("│  ├─ └─", dim), "a branch point's children; the active branch is listed first"),
        (Text("┊12 ", dim), "a deep row: 12 levels of outer gutters folded into one mark"),
        (
            Text("◆ ", accent),  # (tree_row.DIFF_MARK: importing it costs the picker 0.1 s)
            "the entry marked to compare (alt+m; alt+d compares it with the selected one)",
        ),
        (Text("[label] ", colour("warning")), "a label (L edits it; T shows when it was set)"),
        (Text("user: ", accent), "a user message"),
        (Text("assistant: ", colour("success")), "an assistant message"),
        (Text("[read: a.py]", colour("text-muted")), "a tool result, with the call it answers"),
        (Text("(aborted) / error", colour("error")), "an assistant turn that failed"),
        (
            Text("[compaction: 12k tokens]", colour("secondary")),
            "a compaction (the context shows its summary and the messages it keeps)",
        ),
        (Text("[branch summary]: ", colour("warning")), "a summary of an abandoned branch"),
        (Text("[my-ext]: ", colour("primary")), "an extension's message (custom_message)"),
        (Text("[model: …] [label: …]", dim), "bookkeeping entries (only with ctrl+a, all)"),
        (Text("● pi is writing"), "header: pi wrote to the file a moment ago"),
        (Text("follow on"), "header: the selection follows new entries at the leaf (ctrl+g)"),
    ]
    table = Table(box=None, show_header=False, pad_edge=False, expand=True)
    table.add_column("mark", no_wrap=True)
    table.add_column("meaning", ratio=1)
    for sample, meaning in rows:
        table.add_row(sample, Text(meaning))
    return table
