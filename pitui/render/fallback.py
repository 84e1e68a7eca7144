"""The fallback views: how an entry is shown when no renderer draws it, or its renderer failed.

A heading (``[type] customType``) and the entry's raw JSON, folded unless the user asked to see
everything; on one line, the heading and some text of the entry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import orjson
from rich.console import Group
from rich.style import Style
from rich.text import Text

from pitui.render.context import RenderContext, RenderEntry
from pitui.render.safe_text import MARKER_STYLE, safe_line, safe_text

__all__ = [
    "ERROR_STYLE",
    "FALLBACK_MAX_CHARS",
    "FALLBACK_MAX_LINES",
    "compact_error",
    "dump_json",
    "exception_text",
    "fallback_compact",
    "fallback_view",
]

#: The fallback folds the raw JSON to this many lines / characters unless ``ctx.expanded``.
FALLBACK_MAX_LINES = 40
FALLBACK_MAX_CHARS = 8_000

ERROR_STYLE = Style(color="red", bold=True)
HEADING_STYLE = Style(bold=True)


def exception_text(exc: BaseException) -> str:
    try:
        message = str(exc)
    except Exception:
        message = "<unprintable message>"
    text = type(exc).__name__
    return f"{text}: {message}" if message else text


def _json_default(obj: object) -> str:
    return repr(obj)


def dump_json(value: object, *, indent: bool = True) -> str:
    """JSON of an untrusted value; never raises (lone surrogates and odd objects included)."""
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        return orjson.dumps(value, option=option, default=_json_default).decode("utf-8")
    except (TypeError, ValueError):
        pass  # lone surrogates (json keeps them) or nesting deeper than orjson allows
    try:
        return json.dumps(
            value,
            indent=2 if indent else None,
            ensure_ascii=False,
            default=_json_default,
            separators=None if indent else (",", ":"),
        )
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        return repr(value)[:100_000]
    except Exception as exc:  # an object whose repr fails (only a plug-in can hand one over)
        return f"<cannot be shown: {type(exc).__name__}>"


def _heading_label(entry: RenderEntry) -> str:
    if entry.type == "message":
        return entry.role or "message"
    return entry.type or "no type"


def _heading(entry: RenderEntry) -> Text:
    heading = Text.assemble(("[", HEADING_STYLE), safe_line(_heading_label(entry), max_chars=80))
    heading.append("]", HEADING_STYLE)
    heading.stylize(HEADING_STYLE)
    custom_type = entry.custom_type
    if custom_type is not None:
        heading.append(" ")
        heading.append_text(safe_line(custom_type, max_chars=80))
    return heading


def fallback_view(entry: RenderEntry, ctx: RenderContext, *, note: Text | None = None) -> Group:
    """The view of an entry nobody else draws (or whose renderer failed): heading plus raw JSON.

    The JSON is folded to :data:`FALLBACK_MAX_LINES` lines unless ``ctx.expanded``.
    """
    heading = _heading(entry)
    heading.append(" raw entry", MARKER_STYLE)
    if ctx.expanded:
        body = safe_text(dump_json(entry.raw), max_chars=None)
    else:
        body = safe_text(
            dump_json(entry.raw), max_lines=FALLBACK_MAX_LINES, max_chars=FALLBACK_MAX_CHARS
        )
    if note is None:
        return Group(heading, body)
    note.end = "\n"  # one-line Texts end without a newline; in a Group it needs one
    return Group(note, heading, body)


def _preview(raw: Mapping[str, Any]) -> str:
    """Some text of an entry for its one-line form."""
    source: Mapping[str, Any] = raw
    message = raw.get("message")
    if raw.get("type") == "message" and isinstance(message, Mapping):
        source = message
    for key in ("content", "summary", "name", "label", "command", "output"):
        value = source.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, list):
            for block in value:
                if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                    text: str = block["text"]
                    return text
    return ""


def fallback_compact(entry: RenderEntry, ctx: RenderContext) -> Text:
    """One line for an entry nobody else draws: ``[type] customType preview``."""
    line = _heading(entry)
    preview = _preview(entry.raw)
    if preview:
        line.append(" ")
        line.append_text(safe_line(preview, max_chars=max(ctx.width, 1) * 2))
    line.no_wrap = True
    line.overflow = "ellipsis"
    line.end = ""
    return line


def compact_error(entry: RenderEntry, ctx: RenderContext) -> Text:
    line = Text("⚠ ", style=ERROR_STYLE, no_wrap=True, overflow="ellipsis", end="")
    return line.append_text(fallback_compact(entry, ctx))
