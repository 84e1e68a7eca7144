"""Built-in renderers of the entry types other than ``message``: compaction, branch_summary,
custom, custom_message, label, session_info, model_change, thinking_level_change, context_edit
and usage."""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text

from pitui.core.js import parse_iso_ms
from pitui.core.models import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    SystemMessage,
    ThinkingLevelChangeEntry,
    UsageEntry,
    to_raw,
)
from pitui.core.units import format_local_time, plural
from pitui.render.blocks import (
    CUSTOM_STYLE,
    DATA_MAX_LINES,
    LABEL_STYLE,
    SETTING_STYLE,
    SUMMARY_STYLE,
    SYSTEM_STYLE,
    WARN_STYLE,
    content_views,
    custom_view,
    describe_target,
    details_view,
    from_text,
    heading_line,
    invalid_view,
    note_line,
    stack,
    summary_view,
    system_parts,
    tokens_before,
    typed,
    usage_line,
    view,
)
from pitui.render.context import RenderContext, RenderEntry
from pitui.render.parts import (
    DIM,
    Indent,
    dump_json,
    json_block,
)
from pitui.render.safe_text import safe_line

__all__ = [
    "draw_branch_summary",
    "draw_compaction",
    "draw_context_edit",
    "draw_custom_entry",
    "draw_custom_message_entry",
    "draw_label",
    "draw_model_change",
    "draw_session_info",
    "draw_thinking_level",
    "draw_usage_entry",
]


def _entry_time(iso: str | None) -> str | None:
    """An entry's own ISO time, local, to the second."""
    return format_local_time(parse_iso_ms(iso), seconds=True)


def draw_compaction(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    model = typed(entry, CompactionEntry)
    if model is None:
        return invalid_view(entry, ctx, "compaction")
    heading = heading_line(
        "compaction",
        SUMMARY_STYLE,
        ctx,
        tokens_before(model.tokensBefore),
        "by an extension" if model.fromHook else None,
        _entry_time(model.timestamp),
    )
    parts: list[RenderableType | None] = [_keeps(model, ctx)]
    system = model.systemMessage
    if isinstance(system, SystemMessage):
        sections = len(system.sections or {})
        tools = len(system.toolsAdded or [])
        note = note_line(
            f"system checkpoint: {plural(sections, 'section')}, {plural(tools, 'tool')}", DIM
        )
        if ctx.expanded:
            note.end = "\n"
            parts.append(stack(note, Indent(stack(*system_parts(system, ctx)))))
        else:
            parts.append(note)
    elif system is not None:
        parts.append(details_view(to_raw(system), ctx, "system checkpoint (not a system message)"))
    parts.append(summary_view(model.summary, ctx))
    parts.append(_files(model.details, ctx))
    parts.append(usage_line(model.usage, "summary cost"))
    return view(heading, parts)


def _keeps(model: CompactionEntry, ctx: RenderContext) -> Text:
    """What the compaction keeps after its summary (format §10.3)."""
    tail = model.retainedTail
    if isinstance(tail, list):
        if not tail:
            return note_line("keeps nothing: self-contained checkpoint (retainedTail: [])", DIM)
        roles = [getattr(message, "role", None) or "?" for message in tail]
        line = note_line(
            f"keeps {plural(len(tail), 'message')} (retainedTail): "
            + ", ".join(str(role) for role in roles[:20])
            + (" …" if len(roles) > 20 else ""),
            DIM,
        )
        return line
    first = model.firstKeptEntryId
    if first and first == model.id:
        return note_line("keeps nothing from before (firstKeptEntryId is its own id)", DIM)
    if first:
        target = describe_target(ctx, first)
        return note_line(f"keeps entries from {first}" + (f" ({target})" if target else ""), DIM)
    if model.firstKeptEntryIndex is not None:
        return note_line(f"keeps entries from index {model.firstKeptEntryIndex} (v1)", DIM)
    return note_line("keeps nothing from before", DIM)


def _files(details: object, ctx: RenderContext) -> RenderableType | None:
    """pi's default summary details ``{readFiles, modifiedFiles}`` as two lines; else data."""
    if isinstance(details, Mapping) and set(details) <= {"readFiles", "modifiedFiles"}:
        lines: list[Text] = []
        for key, word in (("readFiles", "read"), ("modifiedFiles", "modified")):
            files = details.get(key)
            if isinstance(files, list) and files:
                names = ", ".join(str(name) for name in files[:50])
                more = f" and {len(files) - 50} more" if len(files) > 50 else ""
                lines.append(note_line(f"{word}: {names}{more}", DIM))
        return Text("\n").join(lines) if lines else None
    return details_view(details, ctx)


def draw_branch_summary(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    model = typed(entry, BranchSummaryEntry)
    if model is None:
        return invalid_view(entry, ctx, "branch summary")
    heading = heading_line(
        "branch summary",
        SUMMARY_STYLE,
        ctx,
        from_text(model.fromId),
        "by an extension" if model.fromHook else None,
        _entry_time(model.timestamp),
    )
    parts: list[RenderableType | None] = [summary_view(model.summary, ctx)]
    if not model.summary:
        parts.append(note_line("an empty summary is not sent to the model", DIM))
    parts.append(_files(model.details, ctx))
    parts.append(usage_line(model.usage, "summary cost"))
    return view(heading, parts)


def draw_custom_entry(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    model = typed(entry, CustomEntry)
    if model is None:
        return invalid_view(entry, ctx, "custom entry")
    label = safe_line(f"[{model.customType}]", max_chars=200, style=CUSTOM_STYLE)
    heading = heading_line(label, Style(), ctx, "extension data", _entry_time(model.timestamp))
    if "data" not in model.model_fields_set:
        return view(heading, [note_line("(no data)")])
    return view(
        heading,
        [json_block(model.data, dark=ctx.dark, expanded=ctx.expanded, max_lines=DATA_MAX_LINES)],
    )


def draw_custom_message_entry(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    model = typed(entry, CustomMessageEntry)
    if model is None:
        return invalid_view(entry, ctx, "custom_message entry")
    return custom_view(
        entry, ctx, model.customType, model.content, model.display, model.details,
        _entry_time(model.timestamp),
    )  # fmt: skip


def draw_label(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    model = typed(entry, LabelEntry)
    if model is None:
        return invalid_view(entry, ctx, "label")
    text = model.label_text
    line = Text("label ", style=LABEL_STYLE, end="")
    if model.clears:
        shown = "cleared" if text is None else f"cleared (label {dump_json(model.label)})"
        line.append(shown, DIM)
    else:
        line.append_text(safe_line(f"[{text}]", max_chars=500, style=LABEL_STYLE))
    line.append(" on ", DIM)
    line.append_text(safe_line(model.targetId, max_chars=100, style=DIM))
    target = describe_target(ctx, model.targetId)
    return heading_line(line, Style(), ctx, target, _entry_time(model.timestamp))


def draw_session_info(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    model = typed(entry, SessionInfoEntry)
    if model is None:
        return invalid_view(entry, ctx, "session_info")
    line = Text("session name ", style=SYSTEM_STYLE, end="")
    name = model.display_name
    if name is None:
        line.append("cleared", DIM)
    else:
        line.append_text(safe_line(f"“{name}”", max_chars=500))
    return heading_line(line, Style(), ctx, _entry_time(model.timestamp))


def draw_model_change(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    model = typed(entry, ModelChangeEntry)
    if model is None:
        return invalid_view(entry, ctx, "model_change")
    line = Text("model → ", style=SETTING_STYLE, end="")
    line.append_text(
        safe_line(f"{model.provider}/{model.modelId}", max_chars=300, style=SYSTEM_STYLE)
    )
    return heading_line(line, Style(), ctx, _entry_time(model.timestamp))


def draw_thinking_level(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    model = typed(entry, ThinkingLevelChangeEntry)
    if model is None:
        return invalid_view(entry, ctx, "thinking_level_change")
    line = Text("thinking level → ", style=SETTING_STYLE, end="")
    line.append_text(safe_line(model.thinkingLevel, max_chars=100, style=SYSTEM_STYLE))
    return heading_line(line, Style(), ctx, _entry_time(model.timestamp))


def draw_context_edit(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    model = typed(entry, ContextEditEntry)
    if model is None:
        return invalid_view(entry, ctx, "context_edit")
    line = Text("context edit of ", style=SYSTEM_STYLE, end="")
    line.append_text(safe_line(model.targetId, max_chars=100, style=SYSTEM_STYLE))
    heading = heading_line(
        line,
        Style(),
        ctx,
        describe_target(ctx, model.targetId),
        _entry_time(model.timestamp),
    )
    if model.replacement is None:
        return view(heading, [note_line("removes it from what the model sees", WARN_STYLE)])
    parts: list[RenderableType | None] = [note_line("the model sees instead:", DIM)]
    parts.extend(content_views(model.replacement.content, ctx, empty="(empty content)"))
    return view(heading, parts)


def draw_usage_entry(entry: RenderEntry, ctx: RenderContext) -> RenderableType:
    model = typed(entry, UsageEntry)
    if model is None:
        return invalid_view(entry, ctx, "usage entry")
    where = f"{model.provider}/{model.model}" if model.provider and model.model else None
    heading = heading_line(
        "usage", SETTING_STYLE, ctx, model.kind, where or model.model or model.provider,
        _entry_time(model.timestamp),
    )  # fmt: skip
    spent = usage_line(model.usage)
    return view(heading, [spent or note_line("(no usage)")])
