"""The one-line forms of the built-in renderers, for lists (close to pi's tree rows, ui §3.6)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from rich.style import Style
from rich.text import Text

from pitui.core.models import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryEntry,
    BranchSummaryMessage,
    CompactionEntry,
    CompactionSummaryMessage,
    ContextEditEntry,
    CustomEntry,
    CustomMessage,
    CustomMessageEntry,
    ImageContent,
    LabelEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    SystemMessage,
    ThinkingLevelChangeEntry,
    ToolCall,
    ToolResultMessage,
    UsageEntry,
    UserMessage,
    content_blocks,
    content_text_concat,
    message_text,
    to_raw,
)
from pitui.core.units import format_count, kilo_tokens
from pitui.render.blocks import (
    ASSISTANT_STYLE,
    BASH_STYLE,
    CUSTOM_STYLE,
    ERROR_STYLE,
    ERROR_TEXT,
    OK_STYLE,
    SUMMARY_STYLE,
    SYSTEM_STYLE,
    USER_STYLE,
    WARN_STYLE,
    call_summary,
    typed,
)
from pitui.render.context import RenderContext, RenderEntry
from pitui.render.parts import (
    DIM,
    squash,
    usage_text,
)
from pitui.render.safe_text import safe_line

__all__ = [
    "compact_assistant",
    "compact_bash",
    "compact_branch_summary",
    "compact_branch_summary_message",
    "compact_compaction",
    "compact_compaction_summary_message",
    "compact_context_edit",
    "compact_custom_entry",
    "compact_custom_message",
    "compact_custom_message_entry",
    "compact_label",
    "compact_model_change",
    "compact_session_info",
    "compact_system",
    "compact_thinking_level",
    "compact_tool_result",
    "compact_usage_entry",
    "compact_user",
]


def _row(*parts: tuple[str, Style | str] | Text) -> Text:
    row = Text(no_wrap=True, overflow="ellipsis", end="")
    for part in parts:
        if isinstance(part, Text):
            row.append_text(part)
        else:
            row.append_text(safe_line(part[0], max_chars=1_000, style=part[1]))
    return row


def _preview(text: str, ctx: RenderContext) -> Text:
    return safe_line(squash(text), max_chars=max(ctx.width, 20) * 2)


def _compact_invalid(entry: RenderEntry) -> Text:
    return _row((f"[{entry.type or 'entry'}: invalid]", WARN_STYLE))


def compact_user(entry: RenderEntry, ctx: RenderContext) -> Text:
    message = typed(entry, UserMessage)
    if message is None:
        return _compact_invalid(entry)
    text = message_text(message)
    if not text.strip():
        images = sum(isinstance(b, ImageContent) for b in content_blocks(message.content))
        return _row(("user: ", USER_STYLE), (f"[{images} image(s)]" if images else "", DIM))
    return _row(("user: ", USER_STYLE), _preview(text, ctx))


def compact_assistant(entry: RenderEntry, ctx: RenderContext) -> Text:
    message = typed(entry, AssistantMessage)
    if message is None:
        return _compact_invalid(entry)
    text = message_text(message)
    if text.strip():
        return _row(("assistant: ", ASSISTANT_STYLE), _preview(text, ctx))
    if message.stopReason == "aborted":
        return _row(("assistant: ", ASSISTANT_STYLE), ("(aborted)", DIM))
    if message.errorMessage:
        return _row(("assistant: ", ASSISTANT_STYLE), (squash(message.errorMessage), ERROR_TEXT))
    calls = [b for b in content_blocks(message.content) if isinstance(b, ToolCall)]
    if calls:
        summary = ", ".join(f"{c.name} {call_summary(c.name, c.arguments)}".strip() for c in calls)
        return _row(("assistant: ", ASSISTANT_STYLE), (f"→ {summary}", DIM))
    return _row(("assistant: ", ASSISTANT_STYLE), ("(no content)", DIM))


def compact_tool_result(entry: RenderEntry, ctx: RenderContext) -> Text:
    message = typed(entry, ToolResultMessage)
    if message is None:
        return _compact_invalid(entry)
    call = ctx.tool_call
    name = message.toolName or (call.get("name") if call is not None else None)
    mark = ("✗ ", ERROR_STYLE) if message.isError else ("✓ ", OK_STYLE)
    if call is not None:
        summary = call_summary(name, call.get("arguments"))
        return _row(mark, (f"[{name}: {summary}]" if summary else f"[{name}]", DIM))
    return _row(mark, (f"[{name or 'tool'}]", DIM))


def compact_bash(entry: RenderEntry, ctx: RenderContext) -> Text:
    message = typed(entry, BashExecutionMessage)
    if message is None:
        return _compact_invalid(entry)
    row = _row(("[bash]: ", BASH_STYLE), _preview(message.command or "", ctx))
    code = message.exitCode
    if message.cancelled:
        row.append(" (cancelled)", WARN_STYLE)
    elif isinstance(code, int | float) and code != 0:
        row.append(f" (exit {format_count(code)})", ERROR_TEXT)
    return row


def compact_custom_message(entry: RenderEntry, ctx: RenderContext) -> Text:
    message = typed(entry, CustomMessage)
    if message is None:
        return _compact_invalid(entry)
    return _row((f"[{message.customType or 'custom'}]: ", CUSTOM_STYLE),
                _preview(message_text(message), ctx))  # fmt: skip


def compact_branch_summary_message(entry: RenderEntry, ctx: RenderContext) -> Text:
    message = typed(entry, BranchSummaryMessage)
    if message is None:
        return _compact_invalid(entry)
    return _row(("[branch summary]: ", SUMMARY_STYLE), _preview(message.summary or "", ctx))


def _k_tokens(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return f"{kilo_tokens(value)}k tokens"
    return "? tokens"


def compact_compaction_summary_message(entry: RenderEntry, ctx: RenderContext) -> Text:
    message = typed(entry, CompactionSummaryMessage)
    if message is None:
        return _compact_invalid(entry)
    return _row((f"[compaction: {_k_tokens(message.tokensBefore)}]: ", SUMMARY_STYLE),
                _preview(message.summary or "", ctx))  # fmt: skip


def compact_system(entry: RenderEntry, ctx: RenderContext) -> Text:
    message = typed(entry, SystemMessage)
    if message is None:
        return _compact_invalid(entry)
    words: list[str] = []
    if message.sections:
        words.append(f"{len(message.sections)} section(s)")
    if message.toolsAdded:
        words.append("+" + ", +".join(str(t.get("name")) for t in message.toolsAdded))
    if message.toolsRemoved:
        names = (t.get("name") if isinstance(t, Mapping) else t for t in message.toolsRemoved)
        words.append("−" + ", −".join(str(name) for name in names))
    row = _row(("[system]", SYSTEM_STYLE))
    if words:
        row.append(" " + "; ".join(words), DIM)
    text = message_text(message)
    if text.strip():
        row.append(" ")
        row.append_text(_preview(text, ctx))
    return row


def compact_compaction(entry: RenderEntry, ctx: RenderContext) -> Text:
    model = typed(entry, CompactionEntry)
    if model is None:
        return _compact_invalid(entry)
    return _row((f"[compaction: {_k_tokens(model.tokensBefore)}]", SUMMARY_STYLE))


def compact_branch_summary(entry: RenderEntry, ctx: RenderContext) -> Text:
    model = typed(entry, BranchSummaryEntry)
    if model is None:
        return _compact_invalid(entry)
    return _row(("[branch summary]: ", WARN_STYLE), _preview(model.summary, ctx))


def compact_custom_entry(entry: RenderEntry, ctx: RenderContext) -> Text:
    model = typed(entry, CustomEntry)
    if model is None:
        return _compact_invalid(entry)
    return _row((f"[custom: {model.customType}]", DIM))


def compact_custom_message_entry(entry: RenderEntry, ctx: RenderContext) -> Text:
    model = typed(entry, CustomMessageEntry)
    if model is None:
        return _compact_invalid(entry)
    row = _row((f"[{model.customType}]: ", CUSTOM_STYLE), _preview(message_text(model), ctx))
    if model.display is False:
        row.append(" (hidden)", DIM)
    return row


def compact_label(entry: RenderEntry, ctx: RenderContext) -> Text:
    model = typed(entry, LabelEntry)
    if model is None:
        return _compact_invalid(entry)
    text = model.label_text
    return _row((f"[label: {'(cleared)' if text is None else text}]", DIM))


def compact_session_info(entry: RenderEntry, ctx: RenderContext) -> Text:
    model = typed(entry, SessionInfoEntry)
    if model is None:
        return _compact_invalid(entry)
    name = model.display_name
    if name is None:
        return _row(("[title: ", DIM), ("empty", Style(dim=True, italic=True)), ("]", DIM))
    return _row((f"[title: {name}]", DIM))


def compact_model_change(entry: RenderEntry, ctx: RenderContext) -> Text:
    model = typed(entry, ModelChangeEntry)
    if model is None:
        return _compact_invalid(entry)
    return _row((f"[model: {model.modelId}]", DIM))


def compact_thinking_level(entry: RenderEntry, ctx: RenderContext) -> Text:
    model = typed(entry, ThinkingLevelChangeEntry)
    if model is None:
        return _compact_invalid(entry)
    return _row((f"[thinking: {model.thinkingLevel}]", DIM))


def compact_context_edit(entry: RenderEntry, ctx: RenderContext) -> Text:
    model = typed(entry, ContextEditEntry)
    if model is None:
        return _compact_invalid(entry)
    if model.replacement is None:
        return _row((f"[context edit: {model.targetId} removed]", DIM))
    text = content_text_concat(model.replacement.content)
    return _row((f"[context edit: {model.targetId}]: ", DIM), _preview(text, ctx))


def compact_usage_entry(entry: RenderEntry, ctx: RenderContext) -> Text:
    model = typed(entry, UsageEntry)
    if model is None:
        return _compact_invalid(entry)
    spent = usage_text(to_raw(model.usage)) if model.usage is not None else None
    words = " ".join(word for word in ("usage:", model.kind, spent) if word)
    return _row((f"[{words}]", DIM))
