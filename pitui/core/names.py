"""The names of pi's session format: entry types, message roles, content block types.

Plain strings (format §5, §6, §15), importable without pydantic: the writers
(:mod:`pitui.core.stringify`) and the readers use them as :mod:`pitui.core.models` does.
"""

from __future__ import annotations

from typing import Final

__all__ = ["BlockType", "EntryType", "Role"]


class Role:
    """``message.role`` values (format §6.2, §15)."""

    USER: Final = "user"
    ASSISTANT: Final = "assistant"
    TOOL_RESULT: Final = "toolResult"
    BASH_EXECUTION: Final = "bashExecution"
    CUSTOM: Final = "custom"
    HOOK_MESSAGE: Final = "hookMessage"  # v2 name of "custom" (format §4.2)
    BRANCH_SUMMARY: Final = "branchSummary"
    COMPACTION_SUMMARY: Final = "compactionSummary"
    SYSTEM: Final = "system"  # pi 1.x
    ALL: Final = frozenset(
        {
            USER,
            ASSISTANT,
            TOOL_RESULT,
            BASH_EXECUTION,
            CUSTOM,
            HOOK_MESSAGE,
            BRANCH_SUMMARY,
            COMPACTION_SUMMARY,
            SYSTEM,
        }
    )


class EntryType:
    """Entry ``type`` values (format §5, §15); ``SESSION`` is the header's type, not an entry."""

    SESSION: Final = "session"
    MESSAGE: Final = "message"
    THINKING_LEVEL_CHANGE: Final = "thinking_level_change"
    MODEL_CHANGE: Final = "model_change"
    COMPACTION: Final = "compaction"
    BRANCH_SUMMARY: Final = "branch_summary"
    CUSTOM: Final = "custom"
    CUSTOM_MESSAGE: Final = "custom_message"
    LABEL: Final = "label"
    SESSION_INFO: Final = "session_info"
    CONTEXT_EDIT: Final = "context_edit"  # pi 1.x
    USAGE: Final = "usage"  # pi 1.x
    ALL: Final = frozenset(
        {
            MESSAGE,
            THINKING_LEVEL_CHANGE,
            MODEL_CHANGE,
            COMPACTION,
            BRANCH_SUMMARY,
            CUSTOM,
            CUSTOM_MESSAGE,
            LABEL,
            SESSION_INFO,
            CONTEXT_EDIT,
            USAGE,
        }
    )


class BlockType:
    """Content block ``type`` values (format §6.1)."""

    TEXT: Final = "text"
    IMAGE: Final = "image"
    THINKING: Final = "thinking"
    TOOL_CALL: Final = "toolCall"
    ALL: Final = frozenset({TEXT, IMAGE, THINKING, TOOL_CALL})
