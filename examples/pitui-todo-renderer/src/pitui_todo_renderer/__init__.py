"""A pitui renderer plug-in: the ``todo-tracker`` extension's ``custom`` entries as a checklist.

pitui calls :func:`register` once (through the ``pitui.renderers`` entry point in
``pyproject.toml``); it registers a renderer for ``custom`` entries whose ``customType`` is
``todo-tracker``. That key is more specific than pitui's built-in ``custom`` view, so it wins.

Everything in ``entry.raw`` comes from a session file and is untrusted: text goes through
:func:`pitui.render.safe_line`, never into Rich markup. An entry this renderer does not understand
is handed to pitui's fallback view with a note, instead of raising.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text

from pitui.render import (
    RenderContext,
    RenderEntry,
    RendererRegistry,
    fallback_view,
    safe_line,
)

__all__ = ["CUSTOM_TYPE", "compact_todos", "draw_todos", "register"]

CUSTOM_TYPE = "todo-tracker"

HEADING = Style(color="magenta", bold=True)
DONE = Style(color="green")
OPEN = Style(color="yellow")
MUTED = Style(dim=True)


def _todos(entry: RenderEntry) -> list[Mapping[str, Any]] | None:
    """The todo items of an entry's ``data`` (None if the data is not a todo list)."""
    data = entry.raw.get("data")
    todos = data.get("todos") if isinstance(data, Mapping) else None
    if not isinstance(todos, list):
        return None
    return [todo for todo in todos if isinstance(todo, Mapping)]


def _title(todo: Mapping[str, Any]) -> str:
    text = todo.get("text")
    if isinstance(text, str) and text:
        return text
    # Later entries of this extension only update the status: {"id": 2, "done": true}
    return f"#{todo.get('id', '?')}"


def _extras(todo: Mapping[str, Any]) -> str:
    words: list[str] = []
    tags = todo.get("tags")
    if isinstance(tags, list):
        words.extend(f"#{tag}" for tag in tags if isinstance(tag, str))
    due = todo.get("due")
    if isinstance(due, str):
        words.append(f"due {due}")
    meta = todo.get("meta")
    if isinstance(meta, Mapping):
        for key, value in meta.items():
            if isinstance(value, list):
                value = ", ".join(str(item) for item in value)
            words.append(f"{key}: {value}")
    return "  ".join(words)


def draw_todos(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    """The checklist: a heading with the count, then one line per item."""
    todos = _todos(entry)
    if todos is None:
        note = safe_line("todo-tracker entry without a todo list", style=OPEN)
        return fallback_view(entry, ctx, note=note)
    done = sum(1 for todo in todos if todo.get("done") is True)
    heading = Text("☑ todo list", style=HEADING)
    heading.append(f" · {done}/{len(todos)} done", MUTED)
    rows: list[RenderableType] = [heading]
    if not todos:
        rows.append(Text("  (no items)", style=MUTED))
    for todo in todos:
        finished = todo.get("done") is True
        row = Text("  ")
        row.append("☑ " if finished else "☐ ", DONE if finished else OPEN)
        row.append_text(safe_line(_title(todo), max_chars=500, style=MUTED if finished else ""))
        extras = _extras(todo)
        if extras:
            row.append("  ")
            row.append_text(safe_line(extras, max_chars=500, style=MUTED))
        rows.append(row)
    return Group(*rows)


def compact_todos(entry: RenderEntry, ctx: RenderContext) -> Text:
    """One line for lists: ``[todo-tracker] 1/3 done · next: Idempotent loads``."""
    todos = _todos(entry)
    line = Text("[todo-tracker] ", style=HEADING)
    if todos is None:
        line.append("(no todo list)", MUTED)
        return line
    done = sum(1 for todo in todos if todo.get("done") is True)
    line.append(f"{done}/{len(todos)} done", MUTED)
    pending = [todo for todo in todos if todo.get("done") is not True]
    if pending:
        line.append(" · next: ", MUTED)
        line.append_text(safe_line(_title(pending[0]), max_chars=200))
    return line


def register(registry: RendererRegistry) -> None:
    """Entry point: called once by pitui with its renderer registry."""
    registry.register(
        draw_todos,
        type="custom",
        custom_type=CUSTOM_TYPE,
        compact=compact_todos,
        name="todo checklist",
    )
