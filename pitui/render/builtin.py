"""The built-in renderers: every entry type and message role of the format, drawn well.

:func:`register` puts them into a :class:`~pitui.render.registry.RendererRegistry` (by entry type,
and for ``message`` entries by role); :func:`pitui.render.default_registry` does that for you.
Each has a compact one-line form for lists. Unknown entry types and roles are left to the
registry's fallback, and so is an entry whose fields do not match its type (with a note saying
why). The renderers live in :mod:`pitui.render.messages` (message roles),
:mod:`pitui.render.entries` (other entry types) and :mod:`pitui.render.compact` (one-line
forms), built from :mod:`pitui.render.blocks` and :mod:`pitui.render.parts`.

Context messages (what :func:`pitui.core.context.build_session_context` returns) are message
dicts, not entries: :func:`message_entry` wraps one as ``{"type": "message", "message": …}``, and
:func:`render_messages` draws a list of them, giving each tool result the tool call it answers.

Everything from the session goes through :mod:`pitui.render.safe_text` or the helpers of
:mod:`pitui.render.parts`, which sanitize and cut text before Markdown or Syntax parse it. Long
content is folded with a ``… N more lines (show all)`` marker; ``ctx.expanded`` shows it all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from rich.console import RenderableType

from pitui.render.compact import (
    compact_assistant,
    compact_bash,
    compact_branch_summary,
    compact_branch_summary_message,
    compact_compaction,
    compact_compaction_summary_message,
    compact_context_edit,
    compact_custom_entry,
    compact_custom_message,
    compact_custom_message_entry,
    compact_label,
    compact_model_change,
    compact_session_info,
    compact_system,
    compact_thinking_level,
    compact_tool_result,
    compact_usage_entry,
    compact_user,
)
from pitui.render.entries import (
    draw_branch_summary,
    draw_compaction,
    draw_context_edit,
    draw_custom_entry,
    draw_custom_message_entry,
    draw_label,
    draw_model_change,
    draw_session_info,
    draw_thinking_level,
    draw_usage_entry,
)
from pitui.render.messages import (
    draw_assistant,
    draw_bash_execution,
    draw_branch_summary_message,
    draw_compaction_summary_message,
    draw_custom_message,
    draw_system,
    draw_tool_result,
    draw_user,
)
from pitui.render.registry import (
    CompactRenderer,
    RenderContext,
    Renderer,
    RendererRegistry,
)

__all__ = [
    "BUILTIN_TIME_BUDGET",
    "message_entry",
    "register",
    "render_messages",
    "tool_calls_by_id",
]

#: Seconds a built-in may take before the registry disables it for the run. Folded views take
#: milliseconds; the budget leaves room for "show all" of a multi-megabyte output.
BUILTIN_TIME_BUDGET: Final = 5.0

# (key, renderer, compact form); the registry picks by entry type, then by role.
_MESSAGE_ROLES: Final[tuple[tuple[str, Renderer, CompactRenderer], ...]] = (
    ("user", draw_user, compact_user),
    ("assistant", draw_assistant, compact_assistant),
    ("toolResult", draw_tool_result, compact_tool_result),
    ("bashExecution", draw_bash_execution, compact_bash),
    ("custom", draw_custom_message, compact_custom_message),
    ("hookMessage", draw_custom_message, compact_custom_message),  # v2 name of custom
    ("branchSummary", draw_branch_summary_message, compact_branch_summary_message),
    ("compactionSummary", draw_compaction_summary_message, compact_compaction_summary_message),
    ("system", draw_system, compact_system),
)

_ENTRY_TYPES: Final[tuple[tuple[str, Renderer, CompactRenderer], ...]] = (
    ("compaction", draw_compaction, compact_compaction),
    ("branch_summary", draw_branch_summary, compact_branch_summary),
    ("custom", draw_custom_entry, compact_custom_entry),
    ("custom_message", draw_custom_message_entry, compact_custom_message_entry),
    ("label", draw_label, compact_label),
    ("session_info", draw_session_info, compact_session_info),
    ("model_change", draw_model_change, compact_model_change),
    ("thinking_level_change", draw_thinking_level, compact_thinking_level),
    ("context_edit", draw_context_edit, compact_context_edit),
    ("usage", draw_usage_entry, compact_usage_entry),
)


def register(registry: RendererRegistry) -> None:
    """Register every built-in renderer (also the ``pitui.renderers`` entry point of pitui)."""
    for role, draw, compact in _MESSAGE_ROLES:
        registry.register(
            draw,
            type="message",
            role=role,
            compact=compact,
            name=f"builtin {role} message",
            time_budget=BUILTIN_TIME_BUDGET,
        )
    for entry_type, draw, compact in _ENTRY_TYPES:
        registry.register(
            draw,
            type=entry_type,
            compact=compact,
            name=f"builtin {entry_type}",
            time_budget=BUILTIN_TIME_BUDGET,
        )


def message_entry(message: Mapping[str, Any], *, entry_id: str | None = None) -> dict[str, Any]:
    """A context message (not an entry) as the synthetic entry the registry draws."""
    entry: dict[str, Any] = {"type": "message", "message": message}
    if entry_id is not None:
        entry["id"] = entry_id
    return entry


def _message_of(item: Mapping[str, Any]) -> Mapping[str, Any] | None:
    if item.get("type") == "message":
        message = item.get("message")
        return message if isinstance(message, Mapping) else None
    return item if "role" in item else None


def tool_calls_by_id(items: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The ``toolCall`` blocks of assistant messages (or message entries), by call id."""
    calls: dict[str, Mapping[str, Any]] = {}
    for item in items:
        message = _message_of(item)
        if message is None or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if (
                isinstance(block, Mapping)
                and block.get("type") == "toolCall"
                and isinstance(block.get("id"), str)
            ):
                calls[block["id"]] = block
    return calls


def render_messages(
    registry: RendererRegistry,
    messages: Sequence[Mapping[str, Any]],
    ctx: RenderContext,
    *,
    ids: Sequence[str | None] | None = None,
    tool_calls: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[RenderableType]:
    """Draw context messages (or entries), each tool result with the call it answers.

    ``messages`` may hold bare message dicts (``build_session_context().messages``), wrapped as
    :func:`message_entry`, or entries as they are. ``ids`` names each message (e.g. the source
    entry uid) for error lines; ``tool_calls`` adds calls from outside ``messages``.
    """
    calls = dict(tool_calls or {})
    calls.update(tool_calls_by_id(messages))
    out: list[RenderableType] = []
    for index, item in enumerate(messages):
        raw: Mapping[str, Any] = item
        if "type" not in item:
            raw = message_entry(item, entry_id=ids[index] if ids is not None else None)
        item_ctx = ctx
        message = _message_of(raw)
        if message is not None and message.get("role") == "toolResult":
            call_id = message.get("toolCallId")
            call = calls.get(call_id) if isinstance(call_id, str) else None
            if call is not None:
                item_ctx = replace(ctx, tool_call=call)
        out.append(registry.render(registry.entry(raw), item_ctx))
    return out
