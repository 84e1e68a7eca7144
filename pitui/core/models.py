"""Pydantic v2 models of everything in a pi session file (spec/session-format.md §3, §5, §6, §15).

Design rules:

- Field names are pi's own (camelCase), so a model reads like the JSON it came from.
- ``extra="allow"`` everywhere: unknown fields survive, and :func:`to_raw` gives back exactly the
  object a model was built from (absent optional keys stay absent: dumps use ``exclude_unset``).
- ``strict=True``: a value of the wrong JSON type is an error, never silently coerced (coercing
  ``"5"`` to ``5`` would break the round trip and hide damage).
- Nothing here raises on hostile input. Each level (entry, message, content block) is a
  *left-to-right* union: first the discriminated union of the known models (validated entirely in
  pydantic-core, no Python on the happy path), then an ``Unknown*`` model that keeps the raw value.
  So a bad block only turns that block into :class:`UnknownContent`, a bad message only its
  :class:`UnknownMessage`; the validation error text is recomputed on demand (``.error``).

Writing them back as pi writes them is :mod:`pitui.core.stringify`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Annotated, Any, Literal, cast

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    TypeAdapter,
    ValidationError,
    model_serializer,
)
from pydantic_core.core_schema import SerializerFunctionWrapHandler

from pitui.core.content_text import concat_text, joined_text
from pitui.core.js import js_string, js_trim, js_truthy
from pitui.core.names import BlockType, EntryType, Role

__all__ = [
    "AssistantMessage",
    "BashExecutionMessage",
    "BlockType",
    "BranchSummaryEntry",
    "BranchSummaryMessage",
    "CompactionEntry",
    "CompactionSummaryMessage",
    "Content",
    "ContentBlock",
    "ContextEditEntry",
    "ContextReplacement",
    "CustomEntry",
    "CustomMessage",
    "CustomMessageEntry",
    "Entry",
    "EntryType",
    "ImageContent",
    "KnownEntry",
    "KnownMessage",
    "LabelEntry",
    "Message",
    "MessageEntry",
    "ModelChangeEntry",
    "Role",
    "SessionHeader",
    "SessionInfoEntry",
    "SystemCheckpoint",
    "SystemMessage",
    "TextContent",
    "ThinkingContent",
    "ThinkingLevelChangeEntry",
    "ToolCall",
    "ToolResultMessage",
    "UnknownContent",
    "UnknownEntry",
    "UnknownMessage",
    "Usage",
    "UsageCost",
    "UsageEntry",
    "UserMessage",
    "content_blocks",
    "content_text_concat",
    "is_user_or_assistant_with_content",
    "message_text",
    "parse_content",
    "parse_entry",
    "parse_header",
    "parse_message",
    "to_raw",
]

# JSON numbers: pi writes integers without a fraction; keep int vs float exactly as parsed.
Number = int | float


# ------------------------------------------------------------------------------------------------
# Base classes


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="allow",
        strict=True,
        protected_namespaces=(),
        # Inputs can be megabytes of base64 or tool output: keep them out of error texts.
        hide_input_in_errors=True,
    )


class _UnknownBase(_Model):
    """Carries a value that no known model accepted; dumps back to that value unchanged."""

    raw: Any

    @model_serializer(mode="plain")
    def _serialize_raw(self) -> Any:
        return self.raw

    def _raw_str(self, key: str) -> str | None:
        value = self.raw.get(key) if isinstance(self.raw, dict) else None
        return value if isinstance(value, str) else None


def _validation_error_text(
    raw: Any, tag_key: str, known: Mapping[str, type[BaseModel]], what: str
) -> str | None:
    """Why ``raw`` fell back to an Unknown model; ``None`` when its tag is simply not known."""
    if not isinstance(raw, dict):
        return f"{what} is not a JSON object"
    model = known.get(raw[tag_key]) if isinstance(raw.get(tag_key), str) else None
    if model is None:
        return None if isinstance(raw.get(tag_key), str) else f"{what} has no string {tag_key!r}"
    try:
        model.model_validate(raw)
    except ValidationError as exc:
        return str(exc)
    return None  # only reached for a hand-built Unknown model wrapping a valid value


# ------------------------------------------------------------------------------------------------
# Content blocks (format §6.1)


class TextContent(_Model):
    type: Literal["text"]
    text: str
    textSignature: Any = None  # opaque provider data


class ImageContent(_Model):
    type: Literal["image"]
    data: str  # base64
    mimeType: str


class ThinkingContent(_Model):
    type: Literal["thinking"]
    thinking: str
    thinkingSignature: Any = None  # opaque; holds the payload when redacted
    redacted: bool | None = None


class ToolCall(_Model):
    type: Literal["toolCall"]
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    thoughtSignature: Any = None


_BLOCK_MODELS: dict[str, type[BaseModel]] = {
    BlockType.TEXT: TextContent,
    BlockType.IMAGE: ImageContent,
    BlockType.THINKING: ThinkingContent,
    BlockType.TOOL_CALL: ToolCall,
}


class UnknownContent(_UnknownBase):
    """A block of an unknown type, a known type with bad fields, or a non-object list item."""

    @property
    def type(self) -> str | None:
        return self._raw_str("type")

    @cached_property
    def error(self) -> str | None:
        return _validation_error_text(self.raw, "type", _BLOCK_MODELS, "content block")


def _wrap_unknown_content(value: Any) -> Any:
    return value if isinstance(value, UnknownContent) else UnknownContent(raw=value)


KnownBlock = Annotated[
    TextContent | ImageContent | ThinkingContent | ToolCall, Field(discriminator="type")
]
ContentBlock = Annotated[
    KnownBlock | Annotated[UnknownContent, BeforeValidator(_wrap_unknown_content)],
    Field(union_mode="left_to_right"),
]
# `content` of a message: missing or null (treat as empty), a string, or a list of blocks.
Content = str | list[ContentBlock] | None


# ------------------------------------------------------------------------------------------------
# Usage (format §6.2): old files have partial objects, newer builds add fields.


class UsageCost(_Model):
    input: Number = 0
    output: Number = 0
    cacheRead: Number = 0
    cacheWrite: Number = 0
    total: Number = 0


class Usage(_Model):
    input: Number = 0
    output: Number = 0
    cacheRead: Number = 0
    cacheWrite: Number = 0
    totalTokens: Number = 0
    cost: UsageCost = Field(default_factory=UsageCost)


# ------------------------------------------------------------------------------------------------
# Messages (format §6.2, §15). Only `role` is required: a message missing a field pi normally
# writes is still shown as what it is; a field of the wrong type makes it an UnknownMessage.


class _MessageBase(_Model):
    # Each subclass declares `timestamp` (epoch ms) itself, where pi writes it, so that a dumped
    # model comes out in pi's usual key order (only the raw dict guarantees the exact bytes).
    role: str


class UserMessage(_MessageBase):
    role: Literal["user"]
    content: Content = None
    timestamp: Number | None = None


class AssistantMessage(_MessageBase):
    role: Literal["assistant"]
    content: Content = None
    api: str | None = None
    provider: str | None = None
    model: str | None = None
    thinkingLevel: str | None = None  # pi 1.x: the level requested for this reply
    usage: Usage | None = None
    stopReason: str | None = None  # stop, length, toolUse, error, aborted, ... (opaque)
    errorMessage: str | None = None
    timestamp: Number | None = None

    @property
    def responseId(self) -> str | None:
        value = (self.model_extra or {}).get("responseId")
        return value if isinstance(value, str) else None

    @property
    def responseModel(self) -> str | None:
        value = (self.model_extra or {}).get("responseModel")
        return value if isinstance(value, str) else None


class ToolResultMessage(_MessageBase):
    role: Literal["toolResult"]
    toolCallId: str | None = None
    toolName: str | None = None
    content: Content = None
    details: Any = None
    usage: Usage | None = None
    isError: bool | None = None
    timestamp: Number | None = None


class BashExecutionMessage(_MessageBase):
    role: Literal["bashExecution"]
    command: str | None = None
    output: str | None = None
    exitCode: Number | None = None
    cancelled: bool | None = None
    truncated: bool | None = None
    fullOutputPath: str | None = None
    timestamp: Number | None = None
    excludeFromContext: bool | None = None  # true for `!!` commands


class CustomMessage(_MessageBase):
    role: Literal["custom", "hookMessage"]  # hookMessage: v2 name, kept as read (migration renames)
    customType: str | None = None
    content: Content = None
    display: bool | None = None
    details: Any = None
    timestamp: Number | None = None


class BranchSummaryMessage(_MessageBase):
    role: Literal["branchSummary"]
    summary: str | None = None
    fromId: str | None = None
    timestamp: Number | None = None


class CompactionSummaryMessage(_MessageBase):
    role: Literal["compactionSummary"]
    summary: str | None = None
    tokensBefore: Number | None = None
    timestamp: Number | None = None


class SystemMessage(_MessageBase):
    """pi 1.x system prompt declaration (first one) or patch (later ones)."""

    role: Literal["system"]
    content: Content = None
    sections: dict[str, str | None] | None = None  # name -> text, or None to remove the section
    toolsAdded: list[dict[str, Any]] | None = None  # tool declarations {name, description, ...}
    toolsRemoved: list[Any] | None = None  # pi 1.6.0 writes [{"name": ...}]
    timestamp: Number | None = None


_MESSAGE_MODELS: dict[str, type[BaseModel]] = {
    Role.USER: UserMessage,
    Role.ASSISTANT: AssistantMessage,
    Role.TOOL_RESULT: ToolResultMessage,
    Role.BASH_EXECUTION: BashExecutionMessage,
    Role.CUSTOM: CustomMessage,
    Role.HOOK_MESSAGE: CustomMessage,
    Role.BRANCH_SUMMARY: BranchSummaryMessage,
    Role.COMPACTION_SUMMARY: CompactionSummaryMessage,
    Role.SYSTEM: SystemMessage,
}


class UnknownMessage(_UnknownBase):
    """A message of an unknown role, a known role with bad fields, or a non-object value."""

    @property
    def role(self) -> str | None:
        return self._raw_str("role")

    @cached_property
    def error(self) -> str | None:
        return _validation_error_text(self.raw, "role", _MESSAGE_MODELS, "message")


def _wrap_unknown_message(value: Any) -> Any:
    return value if isinstance(value, UnknownMessage) else UnknownMessage(raw=value)


_UnknownMessageField = Annotated[UnknownMessage, BeforeValidator(_wrap_unknown_message)]

KnownMessage = Annotated[
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage
    | SystemMessage,
    Field(discriminator="role"),
]
Message = Annotated[KnownMessage | _UnknownMessageField, Field(union_mode="left_to_right")]
# compaction.systemMessage: a system checkpoint; anything else is kept as an UnknownMessage.
SystemCheckpoint = Annotated[
    SystemMessage | _UnknownMessageField, Field(union_mode="left_to_right")
]


# ------------------------------------------------------------------------------------------------
# Header (format §3)


class SessionHeader(_Model):
    type: Literal["session"]
    version: Number = 1  # absent means 1
    id: str
    timestamp: str | None = None  # ISO
    cwd: str | None = None  # may be missing in very old files
    parentSession: str | None = None
    # Known fields whose value had the wrong type; kept so that the round trip stays exact.
    _invalid: dict[str, Any] = PrivateAttr(default_factory=dict)

    @property
    def invalid_fields(self) -> dict[str, Any]:
        """Known header fields that were dropped because of their type (see parse_header)."""
        return dict(self._invalid)

    @model_serializer(mode="wrap")
    def _serialize_with_invalid(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if self._invalid and isinstance(data, dict):
            data.update(self._invalid)
        return data


# ------------------------------------------------------------------------------------------------
# Entries (format §5, §15)


class _EntryBase(_Model):
    type: str
    # Absent in v1 files until migration; absent vs null parentId survives the round trip.
    id: str | None = None
    parentId: str | None = None
    timestamp: str | None = None  # ISO, kept as written: see parse_iso_ms


class MessageEntry(_EntryBase):
    type: Literal["message"]
    message: Message


class ThinkingLevelChangeEntry(_EntryBase):
    type: Literal["thinking_level_change"]
    thinkingLevel: str  # off, minimal, low, medium, high, xhigh, ... (opaque)


class ModelChangeEntry(_EntryBase):
    type: Literal["model_change"]
    provider: str
    modelId: str


class CompactionEntry(_EntryBase):
    type: Literal["compaction"]
    summary: str
    tokensBefore: Number
    firstKeptEntryId: str | None = None
    firstKeptEntryIndex: int | None = None  # v1 only; migration turns it into firstKeptEntryId
    # Absent/null and [] differ: [] is a self-contained checkpoint keeping nothing (format §10.3).
    retainedTail: list[Message] | None = None
    usage: Usage | None = None
    details: Any = None
    fromHook: bool | None = None
    systemMessage: SystemCheckpoint | None = None  # pi 1.x

    @property
    def has_retained_tail(self) -> bool:
        """pi's rule: present as an array, even empty, means 'self-contained checkpoint'."""
        return isinstance(self.retainedTail, list)


class BranchSummaryEntry(_EntryBase):
    type: Literal["branch_summary"]
    fromId: str
    summary: str
    usage: Usage | None = None
    details: Any = None
    fromHook: bool | None = None


class CustomEntry(_EntryBase):
    type: Literal["custom"]
    customType: str
    data: Any = None


class CustomMessageEntry(_EntryBase):
    type: Literal["custom_message"]
    customType: str
    content: Content = None
    display: bool | None = None
    details: Any = None


class LabelEntry(_EntryBase):
    type: Literal["label"]
    targetId: str
    # Any: a non-string label is coerced for display (format §8.1 Robust). Absent or null = clear;
    # `"label" in entry.model_fields_set` tells absent from null.
    label: Any = None

    @property
    def clears(self) -> bool:
        """True when this entry removes the target's label (absent, null, "" or falsy)."""
        return not js_truthy(self.label)

    @property
    def label_text(self) -> str | None:
        """The label value as text for display (``""`` stays ``""``); None when absent or null."""
        if self.label is None:
            return None
        return self.label if isinstance(self.label, str) else js_string(self.label)


class SessionInfoEntry(_EntryBase):
    type: Literal["session_info"]
    name: str | None = None

    @property
    def display_name(self) -> str | None:
        """The name as pi 1.x uses it: JavaScript-trimmed; empty or absent means no name."""
        if self.name is None:
            return None
        return js_trim(self.name) or None


class ContextReplacement(_Model):
    """``context_edit.replacement``: pi 1.6.0 writes ``{"content": <string or blocks>}``."""

    content: Content = None


class ContextEditEntry(_EntryBase):
    type: Literal["context_edit"]
    targetId: str
    replacement: ContextReplacement | None = None

    @property
    def removes(self) -> bool:
        """True when the edit drops the target from the context (``replacement: null``)."""
        return self.replacement is None


class UsageEntry(_EntryBase):
    type: Literal["usage"]
    kind: str | None = None  # unknown kinds are normal usage
    provider: str | None = None
    model: str | None = None
    usage: Usage | None = None


_ENTRY_MODELS: dict[str, type[BaseModel]] = {
    EntryType.MESSAGE: MessageEntry,
    EntryType.THINKING_LEVEL_CHANGE: ThinkingLevelChangeEntry,
    EntryType.MODEL_CHANGE: ModelChangeEntry,
    EntryType.COMPACTION: CompactionEntry,
    EntryType.BRANCH_SUMMARY: BranchSummaryEntry,
    EntryType.CUSTOM: CustomEntry,
    EntryType.CUSTOM_MESSAGE: CustomMessageEntry,
    EntryType.LABEL: LabelEntry,
    EntryType.SESSION_INFO: SessionInfoEntry,
    EntryType.CONTEXT_EDIT: ContextEditEntry,
    EntryType.USAGE: UsageEntry,
}


class UnknownEntry(_UnknownBase):
    """An entry of an unknown type, a known type with bad fields, or a non-object line.

    The common fields are read from the raw value when they have the right type.
    """

    @property
    def type(self) -> str | None:
        return self._raw_str("type")

    @property
    def id(self) -> str | None:
        return self._raw_str("id")

    @property
    def parentId(self) -> str | None:
        return self._raw_str("parentId")

    @property
    def timestamp(self) -> str | None:
        return self._raw_str("timestamp")

    @cached_property
    def error(self) -> str | None:
        return _validation_error_text(self.raw, "type", _ENTRY_MODELS, "entry")


def _wrap_unknown_entry(value: Any) -> Any:
    return value if isinstance(value, UnknownEntry) else UnknownEntry(raw=value)


KnownEntry = Annotated[
    MessageEntry
    | ThinkingLevelChangeEntry
    | ModelChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | LabelEntry
    | SessionInfoEntry
    | ContextEditEntry
    | UsageEntry,
    Field(discriminator="type"),
]
Entry = Annotated[
    KnownEntry | Annotated[UnknownEntry, BeforeValidator(_wrap_unknown_entry)],
    Field(union_mode="left_to_right"),
]

# Built once: the whole validation tree is compiled into pydantic-core here.
_ENTRY_ADAPTER: TypeAdapter[Any] = TypeAdapter(Entry)
_MESSAGE_ADAPTER: TypeAdapter[Any] = TypeAdapter(Message)
_CONTENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Content)


# ------------------------------------------------------------------------------------------------
# Parsing and the round trip


def parse_entry(raw: Any) -> Entry:
    """Validate one parsed line (not the header). Never raises: falls back to UnknownEntry."""
    return cast(Entry, _ENTRY_ADAPTER.validate_python(raw))


def parse_message(raw: Any) -> Message:
    """Validate one AgentMessage. Never raises: falls back to UnknownMessage."""
    return cast(Message, _MESSAGE_ADAPTER.validate_python(raw))


def parse_content(raw: Any) -> Content:
    """Validate a ``content`` value; a value that is not null/string/list comes back as None."""
    try:
        return cast(Content, _CONTENT_ADAPTER.validate_python(raw))
    except ValidationError:
        return None


def parse_header(raw: Any) -> SessionHeader | None:
    """The header if ``raw`` is one pi accepts (``type == "session"`` and a string ``id``).

    Never raises. A header field of the wrong type (say ``"cwd": 5``) does not reject the header
    (pi only checks type and id): the field reads as absent and is kept in ``invalid_fields`` so
    that :func:`to_raw` still returns the original object.
    """
    if (
        not isinstance(raw, dict)
        or raw.get("type") != "session"
        or not isinstance(raw.get("id"), str)
    ):
        return None
    try:
        return SessionHeader.model_validate(raw)
    except ValidationError as exc:
        bad = {str(err["loc"][0]) for err in exc.errors() if err["loc"]}
    kept = {key: value for key, value in raw.items() if key not in bad}
    try:
        header = SessionHeader.model_validate(kept)
    except ValidationError:
        return None
    header._invalid = {key: raw[key] for key in raw if key in bad}
    return header


def to_raw(model: BaseModel) -> Any:
    """The JSON value a model stands for: the object it was built from, keys absent stay absent."""
    return model.model_dump(mode="python", exclude_unset=True)


# ------------------------------------------------------------------------------------------------
# Text helpers


def _raw_content(content: Any) -> Any:
    """A content as JSON: the blocks of a parsed message are models."""
    if isinstance(content, list):
        return [to_raw(block) if isinstance(block, BaseModel) else block for block in content]
    return content


def _content_of(message: Any) -> Any:
    if isinstance(message, UnknownMessage):
        return message.raw.get("content") if isinstance(message.raw, dict) else None
    if isinstance(message, dict):
        return message.get("content")
    return getattr(message, "content", None)


def message_text(message: Any) -> str:
    """Text of a message as the picker sees it (format §12.2).

    A string content as is; text blocks joined with one space; no trimming; no text -> "".
    Accepts a message model (UnknownMessage included: its raw content is used) or a raw dict.
    """
    return joined_text(_raw_content(_content_of(message)))


def content_text_concat(content: Any) -> str:
    """Text of a content for the tree (ui-behaviour §3.6): text blocks concatenated, no separator.

    Cutting to 200 characters is left to the caller (not every use cuts).
    """
    return concat_text(_raw_content(content))


def content_blocks(content: Any) -> list[Any]:
    """A content as a list of blocks: None -> [], a string -> one TextContent, a list as is."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextContent(type="text", text=content)]
    if isinstance(content, list):
        return list(content)
    return []


def is_user_or_assistant_with_content(message: Any) -> bool:
    """pi's picker filter for text and activity time (format §12.2).

    Role ``user`` or ``assistant`` and a ``content`` key present (pi tests ``"content" in message``,
    so ``content: null`` counts). Accepts a message model or a raw dict.
    """
    if isinstance(message, UnknownMessage):
        raw = message.raw
        return (
            isinstance(raw, dict)
            and raw.get("role") in (Role.USER, Role.ASSISTANT)
            and ("content" in raw)
        )
    if isinstance(message, dict):
        return message.get("role") in (Role.USER, Role.ASSISTANT) and "content" in message
    if isinstance(message, UserMessage | AssistantMessage):
        return "content" in message.model_fields_set
    return False
