"""Built-in renderers of the message roles: user, assistant, toolResult, bashExecution, custom
(and its v2 name hookMessage), branchSummary, compactionSummary and pi 1.x system messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text

from pitui.core.models import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    UnknownContent,
    UserMessage,
    content_blocks,
)
from pitui.core.units import format_count
from pitui.render.blocks import (
    ARGS_MAX_LINES,
    ASSISTANT_STYLE,
    BASH_STYLE,
    ERROR_STYLE,
    ERROR_TEXT,
    OK_STYLE,
    OUTPUT_MAX_CHARS,
    OUTPUT_MAX_LINES,
    SUMMARY_STYLE,
    SYSTEM_STYLE,
    TOOL_STYLE,
    USER_STYLE,
    WARN_STYLE,
    call_summary,
    content_views,
    custom_view,
    details_view,
    extras_view,
    from_text,
    heading_line,
    invalid_view,
    note_line,
    str_arg,
    summary_view,
    system_parts,
    time_of,
    tokens_before,
    typed,
    unknown_block_view,
    usage_line,
    view,
)
from pitui.render.context import RenderContext, RenderEntry
from pitui.render.images import image_placeholder
from pitui.render.parts import (
    DIM,
    diff_block,
    lexer_for_path,
    output_block,
    squash,
    syntax_block,
)
from pitui.render.safe_text import safe_line, safe_text

__all__ = [
    "draw_assistant",
    "draw_bash_execution",
    "draw_branch_summary_message",
    "draw_compaction_summary_message",
    "draw_custom_message",
    "draw_system",
    "draw_tool_result",
    "draw_user",
]


def draw_user(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    message = typed(entry, UserMessage)
    if message is None:
        return invalid_view(entry, ctx, "user message")
    heading = heading_line("user", USER_STYLE, ctx, time_of(message, entry))
    return view(heading, [*content_views(message.content, ctx), extras_view(message, ctx)])


def _model_name(message: AssistantMessage) -> str | None:
    name = message.model
    if name and message.provider:
        name = f"{message.provider}/{name}"
    name = name or message.provider
    answered = message.responseModel
    if answered and answered != message.model:
        name = f"{name or '?'} (answered by {answered})"
    return name


# how an error or an abort heads the message: (words, their style, the error text's style)
_STOPPED: dict[str, tuple[str, Style, Style]] = {
    "error": ("⚠ error", ERROR_STYLE, ERROR_TEXT),
    "aborted": ("⏹ aborted", WARN_STYLE, WARN_STYLE),
}


def _stop_reason(message: AssistantMessage) -> Text | None:
    reason = message.stopReason
    error = message.errorMessage
    stopped = _STOPPED.get(reason) if isinstance(reason, str) else None
    if stopped is not None:
        words, style, text_style = stopped
        line = Text(words, style=style, end="")
        if error:
            line.append(": ", style)
            line.append_text(safe_text(error, max_chars=2_000, style=text_style))
        return line
    if reason == "length":
        return Text("✂ cut off: the reply hit the output token limit", style=WARN_STYLE, end="")
    if reason in (None, "stop", "toolUse"):
        if error:
            return Text.assemble(("⚠ ", ERROR_STYLE), safe_text(error, max_chars=2_000))
        return None
    line = safe_line(f"stop reason: {reason}", max_chars=200, style=WARN_STYLE)
    if error:
        line.append(": ")
        line.append_text(safe_line(error, max_chars=2_000))
    return line


def draw_assistant(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    message = typed(entry, AssistantMessage)
    if message is None:
        return invalid_view(entry, ctx, "assistant message")
    thinking = f"thinking {message.thinkingLevel}" if message.thinkingLevel else None
    heading = heading_line(
        "assistant", ASSISTANT_STYLE, ctx, _model_name(message), thinking, time_of(message, entry)
    )
    stop = _stop_reason(message)
    parts: list[RenderableType | None] = list(
        content_views(message.content, ctx, empty=None if stop is not None else "(no content)")
    )
    parts.append(stop)
    parts.append(usage_line(message.usage))
    parts.append(extras_view(message, ctx, ("responseId", "responseModel")))
    return view(heading, parts)


def _tool_output(text: str, name: str | None, ctx: RenderContext) -> RenderableType:
    path = str_arg(ctx.tool_call.get("arguments") or {}, "path") if ctx.tool_call else None
    lexer = lexer_for_path(path) if name == "read" else None
    if lexer is not None:
        return syntax_block(
            text, lexer, dark=ctx.dark, expanded=ctx.expanded, max_lines=OUTPUT_MAX_LINES,
            max_chars=OUTPUT_MAX_CHARS,
        )  # fmt: skip
    return output_block(
        text,
        expanded=ctx.expanded,
        max_lines=OUTPUT_MAX_LINES,
        max_chars=OUTPUT_MAX_CHARS,
        tail=name == "bash",  # the end of a command's output says how it went
    )


def _truncation_note(info: Mapping[str, Any], full_path: object) -> Text:
    """pi's ``details.truncation``: how much of the output the model saw."""
    words = ["pi truncated the output"]
    shown, total = info.get("outputLines"), info.get("totalLines")
    if isinstance(shown, int | float) and isinstance(total, int | float):
        words.append(f"{format_count(shown)} of {format_count(total)} lines")
    shown_b, total_b = info.get("outputBytes"), info.get("totalBytes")
    if isinstance(shown_b, int | float) and isinstance(total_b, int | float):
        words.append(f"{format_count(shown_b)} of {format_count(total_b)} bytes")
    by = info.get("truncatedBy")
    if isinstance(by, str):
        words.append(f"by {by}")
    if isinstance(full_path, str):
        words.append(f"full output: {full_path}")
    return note_line(" · ".join(words), WARN_STYLE)


def _tool_details(details: object, ctx: RenderContext) -> list[RenderableType]:
    """A tool result's ``details``: diffs drawn as diffs, truncation explained, the rest as data."""
    if not isinstance(details, Mapping):
        part = details_view(details, ctx)
        return [part] if part is not None else []
    parts: list[RenderableType] = []
    rest = dict(details)
    diff = rest.pop("diff", None)
    patch = rest.get("patch")
    if isinstance(diff, str) and diff:
        parts.append(diff_block(diff, expanded=ctx.expanded))
        if isinstance(patch, str):
            rest.pop("patch")  # the same change again, as a unified diff
    elif diff is not None:
        rest["diff"] = diff
    if isinstance(rest.get("patch"), str) and not isinstance(diff, str):
        parts.append(diff_block(rest.pop("patch"), expanded=ctx.expanded))
    truncation = rest.get("truncation")
    if isinstance(truncation, Mapping) and truncation.get("truncated") is not False:
        parts.append(_truncation_note(truncation, rest.get("fullOutputPath")))
        rest.pop("truncation")
        rest.pop("fullOutputPath", None)
        # its "content" is the output above once more
    elif isinstance(rest.get("fullOutputPath"), str):
        parts.append(note_line(f"full output: {rest.pop('fullOutputPath')}", WARN_STYLE))
    line = rest.get("firstChangedLine")
    if isinstance(line, int) and not isinstance(line, bool):
        rest.pop("firstChangedLine")
        parts.append(note_line(f"first changed line: {line}", DIM))
    part = details_view(rest, ctx)
    if part is not None:
        parts.append(part)
    return parts


def draw_tool_result(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    message = typed(entry, ToolResultMessage)
    if message is None:
        return invalid_view(entry, ctx, "tool result")
    call = ctx.tool_call
    name = message.toolName
    if name is None and call is not None and isinstance(call.get("name"), str):
        name = call["name"]
    failed = bool(message.isError)
    label = Text("✗ " if failed else "✓ ", style=ERROR_STYLE if failed else OK_STYLE)
    label.append_text(safe_line(name or "tool", max_chars=200, style=TOOL_STYLE))
    summary = call_summary(name, call.get("arguments")) if call is not None else ""
    if summary:
        label.append(" $ " if name == "bash" else " ", DIM if name == "bash" else "")
        label.append_text(safe_line(summary, max_chars=300))
    heading = heading_line(
        label,
        Style(),
        ctx,
        "failed" if failed else None,
        None if call is not None else message.toolCallId,
        time_of(message, entry),
    )
    if failed:
        heading.stylize(ERROR_TEXT, 0, 1)
    parts: list[RenderableType | None] = []
    for block in content_blocks(message.content):
        if isinstance(block, TextContent):
            if block.text:
                parts.append(_tool_output(block.text, name, ctx))
        elif isinstance(block, ImageContent):
            parts.append(image_placeholder(block))
        elif isinstance(block, UnknownContent):
            parts.append(unknown_block_view(block, ctx))
        else:  # thinking or a tool call inside a tool result: not pi's, but show it
            parts.extend(content_views([block], ctx, empty=None))
    if not parts:
        parts.append(note_line("(no output)"))
    parts.extend(_tool_details(message.details, ctx))
    parts.append(usage_line(message.usage, "model use inside the tool"))
    parts.append(extras_view(message, ctx))
    return view(heading, parts)


def _exit_status(message: BashExecutionMessage) -> Text:
    line = Text(end="")
    code = message.exitCode
    if message.cancelled:
        line.append("cancelled", WARN_STYLE)
    elif isinstance(code, int | float) and not isinstance(code, bool):
        line.append(f"exit {format_count(code)}", OK_STYLE if code == 0 else ERROR_STYLE)
    else:
        line.append("no exit code", WARN_STYLE)
    if message.truncated:
        line.append(" · output truncated", WARN_STYLE)
        if message.fullOutputPath:
            line.append(" · full output: ", DIM)
            line.append_text(safe_line(message.fullOutputPath, max_chars=1_000, style=DIM))
    if message.excludeFromContext:
        line.append(" · !! not sent to the model", DIM)
    return line


def draw_bash_execution(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    message = typed(entry, BashExecutionMessage)
    if message is None:
        return invalid_view(entry, ctx, "bash execution")
    command = message.command or ""
    label = Text("$ ", style=BASH_STYLE)
    label.append_text(safe_line(squash(command), max_chars=300, style=BASH_STYLE))
    heading = heading_line(label, Style(), ctx, time_of(message, entry))
    parts: list[RenderableType | None] = []
    if "\n" in command.strip():
        parts.append(output_block(command, expanded=ctx.expanded, max_lines=ARGS_MAX_LINES))
    output = message.output or ""
    if output:
        parts.append(
            output_block(
                output,
                expanded=ctx.expanded,
                max_lines=OUTPUT_MAX_LINES,
                max_chars=OUTPUT_MAX_CHARS,
                tail=True,
            )
        )
    else:
        parts.append(note_line("(no output)"))
    parts.append(_exit_status(message))
    parts.append(extras_view(message, ctx))
    return view(heading, parts)


def draw_custom_message(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    message = typed(entry, CustomMessage)
    if message is None:
        return invalid_view(entry, ctx, "custom message")
    return custom_view(
        entry, ctx, message.customType, message.content, message.display, message.details,
        time_of(message, entry),
    )  # fmt: skip


def draw_branch_summary_message(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    message = typed(entry, BranchSummaryMessage)
    if message is None:
        return invalid_view(entry, ctx, "branch summary message")
    origin = from_text(message.fromId)
    heading = heading_line("branch summary", SUMMARY_STYLE, ctx, origin, time_of(message, entry))
    return view(heading, [summary_view(message.summary, ctx)])


def draw_compaction_summary_message(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    message = typed(entry, CompactionSummaryMessage)
    if message is None:
        return invalid_view(entry, ctx, "compaction summary message")
    heading = heading_line(
        "compaction summary",
        SUMMARY_STYLE,
        ctx,
        tokens_before(message.tokensBefore),
        time_of(message, entry),
    )
    return view(heading, [summary_view(message.summary, ctx)])


def draw_system(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    message = typed(entry, SystemMessage)
    if message is None:
        return invalid_view(entry, ctx, "system message")
    heading = heading_line("system prompt", SYSTEM_STYLE, ctx, time_of(message, entry))
    parts = system_parts(message, ctx)
    if not parts:
        parts.append(note_line("(empty)"))
    return view(heading, parts)
