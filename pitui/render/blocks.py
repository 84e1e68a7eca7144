"""Shared pieces of the built-in renderers: models, layout, content blocks, details, usage.

Used by :mod:`pitui.render.messages`, :mod:`pitui.render.entries` and
:mod:`pitui.render.compact`. Every piece takes untrusted session data and returns a safe Rich
renderable (sanitized, and folded with a "show all" marker unless ``ctx.expanded``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, TypeVar

from pydantic import BaseModel
from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text

from pitui.core.js import parse_iso_ms
from pitui.core.models import (
    ImageContent,
    MessageEntry,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    UnknownContent,
    UnknownEntry,
    UnknownMessage,
    content_blocks,
    content_text_concat,
    message_text,
    parse_entry,
    to_raw,
)
from pitui.core.paths import shorten_home
from pitui.core.session import Session
from pitui.core.units import format_count, format_local_time, plural
from pitui.render.context import RenderContext, RenderEntry
from pitui.render.fallback import fallback_view
from pitui.render.images import image_placeholder
from pitui.render.parts import (
    DIM,
    Indent,
    diff_block,
    dump_json,
    json_block,
    lexer_for_path,
    markdown_block,
    output_block,
    squash,
    syntax_block,
    usage_text,
)
from pitui.render.safe_text import MARKER_STYLE, safe_line

__all__ = [
    "ARGS_MAX_LINES",
    "ASSISTANT_STYLE",
    "BASH_STYLE",
    "CUSTOM_STYLE",
    "DATA_MAX_LINES",
    "DETAILS_MAX_LINES",
    "ERROR_STYLE",
    "ERROR_TEXT",
    "LABEL_STYLE",
    "OK_STYLE",
    "OUTPUT_MAX_CHARS",
    "OUTPUT_MAX_LINES",
    "SECTION_PREVIEW_CHARS",
    "SELECTED",
    "SETTING_STYLE",
    "SUMMARY_MAX_LINES",
    "SUMMARY_STYLE",
    "SYSTEM_STYLE",
    "TEXT_MAX_CHARS",
    "TEXT_MAX_LINES",
    "THINKING_STYLE",
    "TOOL_STYLE",
    "USER_STYLE",
    "WARN_STYLE",
    "call_summary",
    "code_view",
    "content_views",
    "custom_view",
    "describe_target",
    "details_view",
    "edit_views",
    "entry_model",
    "extras_view",
    "first_error",
    "from_text",
    "heading_line",
    "invalid_view",
    "labelled",
    "note_line",
    "stack",
    "str_arg",
    "summary_view",
    "system_parts",
    "thinking_view",
    "time_of",
    "tokens_before",
    "tool_call_view",
    "tool_declaration",
    "typed",
    "unknown_block_view",
    "usage_line",
    "view",
]


# Folding limits (``ctx.expanded`` lifts them all).
TEXT_MAX_CHARS: Final = 6_000
TEXT_MAX_LINES: Final = 150
SUMMARY_MAX_LINES: Final = 40
OUTPUT_MAX_LINES: Final = 20
OUTPUT_MAX_CHARS: Final = 4_000
ARGS_MAX_LINES: Final = 12
DETAILS_MAX_LINES: Final = 15
DATA_MAX_LINES: Final = 30
SECTION_PREVIEW_CHARS: Final = 120

# Named ANSI colours: they follow the terminal's (and Textual's) theme.
USER_STYLE: Final = Style(color="cyan", bold=True)
ASSISTANT_STYLE: Final = Style(color="green", bold=True)
TOOL_STYLE: Final = Style(color="yellow", bold=True)
BASH_STYLE: Final = Style(color="magenta", bold=True)
CUSTOM_STYLE: Final = Style(color="magenta", bold=True)
SUMMARY_STYLE: Final = Style(color="blue", bold=True)
SYSTEM_STYLE: Final = Style(bold=True)
SETTING_STYLE: Final = Style(dim=True)
ERROR_STYLE: Final = Style(color="red", bold=True)
ERROR_TEXT: Final = Style(color="red")
WARN_STYLE: Final = Style(color="yellow")
OK_STYLE: Final = Style(color="green")
LABEL_STYLE: Final = Style(color="yellow", bold=True)
THINKING_STYLE: Final = Style(dim=True, italic=True)
SELECTED: Final = Style(reverse=True)
M = TypeVar("M", bound=BaseModel)


# --- models -----------------------------------------------------------------------------------


def entry_model(entry: RenderEntry) -> object:
    """The entry's model; validated here when the registry has no model factory."""
    model = entry.model
    if model is None:
        model = parse_entry(dict(entry.raw))
    return model


def typed(entry: RenderEntry, cls: type[M]) -> M | None:
    model = entry_model(entry)
    if isinstance(model, MessageEntry) and not issubclass(cls, MessageEntry):
        model = model.message
    return model if isinstance(model, cls) else None


def first_error(error: str) -> str:
    """``field: problem`` from pydantic's error text (its first line only counts errors)."""
    lines = error.split("\n")
    if len(lines) < 3:
        return squash(error)
    field, problem = lines[1].strip(), lines[2].strip()
    return squash(f"{field[:80]}: {problem.partition(' [type=')[0]}")


def invalid_view(entry: RenderEntry, ctx: RenderContext, what: str) -> RenderableType:
    """The fallback for an entry whose fields do not match its type, with the reason."""
    model = entry_model(entry)
    if isinstance(model, MessageEntry):
        model = model.message
    error = model.error if isinstance(model, UnknownEntry | UnknownMessage) else None
    reason = first_error(error) if error else ""
    message = f"⚠ not a valid {what}" + (f": {reason}" if reason else "")
    return fallback_view(entry, ctx, note=safe_line(message, max_chars=300, style=WARN_STYLE))


# --- layout -----------------------------------------------------------------------------------


def heading_line(
    label: str | Text, style: Style, ctx: RenderContext, *details: str | Text | None
) -> Text:
    """``label · detail · detail`` on one line; the label reversed when the entry is selected."""
    line = Text(no_wrap=False, end="")
    head = safe_line(label, max_chars=300) if isinstance(label, str) else label.copy()
    head.stylize(style + SELECTED if ctx.selected else style)
    line.append_text(head)
    for detail in details:
        if detail is None or (isinstance(detail, str) and not detail):
            continue
        line.append(" · ", DIM)
        line.append_text(safe_line(detail, max_chars=300, style=DIM) if isinstance(detail, str)
                         else detail)  # fmt: skip
    line.end = "\n"
    return line


def stack(*parts: RenderableType | None) -> Group:
    """The parts one below the other (a one-line ``Text`` ends without a newline: add it)."""
    body: list[RenderableType] = []
    for part in parts:
        if part is None:
            continue
        if isinstance(part, Text) and part.end != "\n":
            part.end = "\n"
        body.append(part)
    return Group(*body)


def view(heading: Text, parts: Iterable[RenderableType | None]) -> Group:
    """A heading and the parts below it, indented."""
    body = stack(*parts)
    if not body.renderables:
        return stack(heading)
    return stack(heading, Indent(body))


def note_line(text: str, style: Style = MARKER_STYLE) -> Text:
    """A remark of ours about the entry: one logical line that wraps when long."""
    line = safe_line(text, max_chars=2_000, style=style)
    line.no_wrap = False
    line.overflow = "fold"
    return line


def time_of(message: object, entry: RenderEntry) -> str | None:
    stamp = getattr(message, "timestamp", None)
    iso = entry.raw.get("timestamp")
    return format_local_time(
        stamp if type(stamp) in (int, float) else parse_iso_ms(iso), seconds=True
    )


def labelled(label: str, body: RenderableType) -> Group:
    return stack(Text(label, style=DIM), body)


# --- content blocks ---------------------------------------------------------------------------


def thinking_view(block: ThinkingContent, ctx: RenderContext) -> RenderableType:
    """Collapsed: one line with the length and the start. Expanded: all of it."""
    text = block.thinking
    if block.redacted:
        return note_line("∴ thinking redacted by the provider", THINKING_STYLE)
    size = plural(len(text), "character")
    if not text.strip():
        return note_line("∴ thinking (empty)", THINKING_STYLE)
    if not ctx.expanded:
        line = Text(f"∴ thinking · {size} · ", style=THINKING_STYLE, no_wrap=True, end="")
        line.overflow = "ellipsis"
        line.append_text(safe_line(squash(text), max_chars=max(ctx.width, 20) * 2))
        return line
    head = Text(f"∴ thinking · {size}", style=THINKING_STYLE, end="\n")
    return stack(head, markdown_block(text, dark=ctx.dark, expanded=True, style=THINKING_STYLE))


def str_arg(args: Mapping[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def call_summary(name: object, arguments: object) -> str:
    """What a tool call does, in a few words: ``src/server.ts:10-29``, ``ls -la``, …"""
    args = arguments if isinstance(arguments, Mapping) else {}
    path = str_arg(args, "path", "file_path")
    short = shorten_home(path) if path else None
    if name == "read":
        shown = short or ""
        offset, limit = args.get("offset"), args.get("limit")
        if isinstance(offset, int) or isinstance(limit, int):
            start = offset if isinstance(offset, int) and not isinstance(offset, bool) else 1
            shown += f":{start}"
            if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
                shown += f"-{start + limit - 1}"
        return shown
    if name in ("write", "edit"):
        return short or ""
    if name == "bash":
        return squash(str_arg(args, "command") or "")
    if name == "grep":
        return f"/{str_arg(args, 'pattern') or ''}/ in {short or '.'}"
    if name == "find":
        return f"{str_arg(args, 'pattern') or ''} in {short or '.'}"
    if name == "ls":
        return short or "."
    if not args:
        return ""
    return dump_json(arguments, indent=False)


def tool_call_view(block: ToolCall, ctx: RenderContext) -> RenderableType:
    """A tool call in an assistant message: name, what it does, the arguments that matter."""
    args = block.arguments
    head = Text("→ ", style=TOOL_STYLE, end="\n")
    head.append_text(safe_line(block.name, max_chars=200, style=TOOL_STYLE))
    summary = call_summary(block.name, args)
    parts: list[RenderableType] = [head]
    expanded = ctx.expanded
    if block.name == "bash":
        command = str_arg(args, "command") or ""
        if "\n" in command.strip():
            parts.append(Indent(output_block(command, expanded=expanded)))
        elif summary:
            head.append(" $ ", DIM)
            head.append_text(safe_line(command, max_chars=2_000))
        extra = {key: value for key, value in args.items() if key != "command"}
    elif block.name in ("read", "write", "edit", "ls", "grep", "find"):
        if summary:
            head.append(" ")
            head.append_text(safe_line(summary, max_chars=2_000))
        extra = {}
        if block.name == "write":
            content = args.get("content")
            if isinstance(content, str):
                lines = content.count("\n") + (0 if content.endswith("\n") else 1)
                head.append(f" ({plural(lines, 'line')})", DIM)
                lexer = lexer_for_path(args.get("path"))
                parts.append(Indent(code_view(content, lexer, ctx, ARGS_MAX_LINES)))
        elif block.name == "edit":
            parts.extend(Indent(part) for part in edit_views(args, ctx))
    else:
        extra = dict(args)
    if extra:
        parts.append(
            Indent(json_block(extra, dark=ctx.dark, expanded=expanded, max_lines=ARGS_MAX_LINES))
        )
    return stack(*parts) if len(parts) > 1 else head


def code_view(code: str, lexer: str | None, ctx: RenderContext, max_lines: int) -> RenderableType:
    if lexer is None:
        return output_block(code, expanded=ctx.expanded, max_lines=max_lines)
    return syntax_block(code, lexer, dark=ctx.dark, expanded=ctx.expanded, max_lines=max_lines)


def edit_views(args: Mapping[str, Any], ctx: RenderContext) -> list[RenderableType]:
    """pi's edit arguments (``edits: [{oldText, newText}]``, or one ``oldText``/``newText``)."""
    edits = args.get("edits")
    pairs: list[Mapping[str, Any]] = []
    if isinstance(edits, list):
        pairs = [item for item in edits if isinstance(item, Mapping)]
    elif "oldText" in args or "newText" in args:
        pairs = [args]
    out: list[RenderableType] = []
    for pair in pairs:
        old, new = pair.get("oldText"), pair.get("newText")
        lines: list[str] = []
        if isinstance(old, str):
            lines.extend("- " + line for line in old.split("\n"))
        if isinstance(new, str):
            lines.extend("+ " + line for line in new.split("\n"))
        if lines:
            out.append(
                diff_block("\n".join(lines), expanded=ctx.expanded, max_lines=ARGS_MAX_LINES)
            )
    shown = ("path", "file_path", "edits", "oldText", "newText")
    rest = {key: value for key, value in args.items() if key not in shown}
    if rest:
        out.append(json_block(rest, dark=ctx.dark, expanded=ctx.expanded, max_lines=ARGS_MAX_LINES))
    if not pairs and isinstance(edits, object) and "edits" in args:
        out.append(
            json_block(edits, dark=ctx.dark, expanded=ctx.expanded, max_lines=ARGS_MAX_LINES)
        )
    return out


def unknown_block_view(block: UnknownContent, ctx: RenderContext) -> RenderableType:
    kind = block.type
    head = note_line(f"[{kind} block]" if kind else "[content block]", WARN_STYLE)
    head.end = "\n"
    return stack(
        head,
        json_block(block.raw, dark=ctx.dark, expanded=ctx.expanded, max_lines=DETAILS_MAX_LINES),
    )


def content_views(
    content: object,
    ctx: RenderContext,
    *,
    style: Style | str = "none",
    empty: str | None = "(no content)",
) -> list[RenderableType]:
    """Every block of a message content, in order."""
    parts: list[RenderableType] = []
    for block in content_blocks(content):
        if isinstance(block, TextContent):
            if block.text.strip():
                parts.append(
                    markdown_block(
                        block.text,
                        dark=ctx.dark,
                        expanded=ctx.expanded,
                        max_chars=TEXT_MAX_CHARS,
                        max_lines=TEXT_MAX_LINES,
                        style=style,
                    )
                )
        elif isinstance(block, ImageContent):
            parts.append(image_placeholder(block))
        elif isinstance(block, ThinkingContent):
            parts.append(thinking_view(block, ctx))
        elif isinstance(block, ToolCall):
            parts.append(tool_call_view(block, ctx))
        elif isinstance(block, UnknownContent):
            parts.append(unknown_block_view(block, ctx))
    if not parts and empty is not None:
        parts.append(note_line(empty))
    return parts


# --- details, usage, summaries ----------------------------------------------------------------


def details_view(
    details: object, ctx: RenderContext, label: str = "details"
) -> RenderableType | None:
    if details is None or (isinstance(details, Mapping | list) and not details):
        return None
    return labelled(
        label,
        json_block(details, dark=ctx.dark, expanded=ctx.expanded, max_lines=DETAILS_MAX_LINES),
    )


def extras_view(
    model: BaseModel, ctx: RenderContext, skip: Iterable[str] = ()
) -> RenderableType | None:
    """Fields pi's format does not name (newer builds, extensions), shown as data."""
    extra = model.model_extra
    if not extra:
        return None
    skipped = set(skip)
    rest = {key: value for key, value in extra.items() if key not in skipped}
    return details_view(rest, ctx, "other fields") if rest else None


def usage_line(usage: object, prefix: str | None = None) -> Text | None:
    """The usage line (tokens, cost); None without usage."""
    spent = usage_text(to_raw(usage) if isinstance(usage, BaseModel) else usage)
    if not spent:
        return None
    return safe_line(f"{prefix}: {spent}" if prefix else spent, max_chars=1_000, style=DIM)


def summary_view(summary: str | None, ctx: RenderContext) -> RenderableType:
    if not summary or not summary.strip():
        return note_line("(empty summary)")
    return markdown_block(
        summary,
        dark=ctx.dark,
        expanded=ctx.expanded,
        max_chars=TEXT_MAX_CHARS,
        max_lines=SUMMARY_MAX_LINES,
    )


def tokens_before(value: object) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{format_count(value)} tokens before"
    return None


def from_text(from_id: str | None) -> str | None:
    if from_id is None:
        return None
    return "from the root" if from_id == "root" else f"from {from_id}"


def describe_target(ctx: RenderContext, target: str | None) -> str | None:
    """What a label / context edit points at, when the session is known."""
    session = ctx.session
    if not isinstance(session, Session) or target is None:
        return None
    meta = session.by_id.get(target)
    if meta is None:
        return "not in this session"
    kind = meta.role if meta.type == "message" and meta.role else meta.type
    text = ""
    if meta.type in ("message", "custom_message"):
        try:
            raw = session.raw(meta)
        except (OSError, ValueError):
            raw = {}
        source = raw.get("message") if meta.type == "message" else raw
        text = squash(message_text(source)) if isinstance(source, dict) else ""
    return f"{kind}: {text}" if text else kind


def system_parts(message: SystemMessage, ctx: RenderContext) -> list[RenderableType]:
    parts: list[RenderableType] = []
    if content_text_concat(message.content).strip() or not isinstance(message.content, str):
        parts.extend(content_views(message.content, ctx, empty=None))
    for name, text in (message.sections or {}).items():
        label = safe_line(f"§ {name}", max_chars=200, style=SYSTEM_STYLE)
        if text is None:
            label.append(" removed", WARN_STYLE)
            parts.append(label)
            continue
        lines = text.count("\n") + 1
        label.append(f" · {plural(len(text), 'character')}, {plural(lines, 'line')}", DIM)
        if ctx.expanded:
            label.end = "\n"
            parts.append(stack(label, markdown_block(text, dark=ctx.dark, expanded=True)))
        else:
            label.no_wrap = True
            label.overflow = "ellipsis"
            label.append(" · ", DIM)
            label.append_text(safe_line(squash(text), max_chars=SECTION_PREVIEW_CHARS, style=DIM))
            parts.append(label)
    for tool in message.toolsAdded or []:
        parts.append(tool_declaration(tool, ctx))
    for tool in message.toolsRemoved or []:
        removed = tool.get("name") if isinstance(tool, Mapping) else tool
        line = Text("− tool ", style=ERROR_TEXT, end="")
        line.append_text(safe_line(str(removed), max_chars=200))
        parts.append(line)
    return parts


def tool_declaration(tool: Mapping[str, Any], ctx: RenderContext) -> RenderableType:
    line = Text("+ tool ", style=OK_STYLE, no_wrap=not ctx.expanded, end="")
    line.overflow = "ellipsis"
    name = tool.get("name")
    line.append_text(
        safe_line(name if isinstance(name, str) else "?", max_chars=200, style=OK_STYLE)
    )
    description = tool.get("description")
    if isinstance(description, str) and description:
        line.append(" — ", DIM)
        line.append_text(safe_line(squash(description), max_chars=400))
    if not ctx.expanded:
        return line
    line.end = "\n"
    rest = {key: value for key, value in tool.items() if key not in ("name", "description")}
    return stack(line, Indent(json_block(rest, dark=ctx.dark, expanded=True))) if rest else line


def custom_view(
    entry: RenderEntry,
    ctx: RenderContext,
    custom_type: str | None,
    content: object,
    display: bool | None,
    details: object,
    when: str | None,
) -> RenderableType:
    """A ``custom_message`` entry or a ``custom`` message: extension text sent to the model."""
    label = safe_line(f"[{custom_type or 'custom'}]", max_chars=200, style=CUSTOM_STYLE)
    hidden = display is False
    heading = heading_line(label, Style(), ctx, "hidden in pi's chat" if hidden else None, when)
    parts: list[RenderableType | None] = list(
        content_views(content, ctx, style=DIM if hidden else "none")
    )
    parts.append(details_view(details, ctx))
    return view(heading, parts)
