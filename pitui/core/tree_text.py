"""How an entry reads in pi's tree selector: its row text (spec/ui-behaviour.md §3.6), the
formatted tool calls, and the searchable text of §3.10 (pi's getSearchableText).

Pure functions of an entry's JSON, and :class:`RowTexts`: the row texts of one session read
from the file as rows are drawn, cached, with the tool call each tool result answers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal

from pitui.core.content_text import concat_text
from pitui.core.js import (
    JS_WHITESPACE,
    UNDEFINED,
    js_join,
    js_number_string,
    js_string,
    js_to_number,
    js_trim,
    js_truthy,
    utf16_len,
    utf16_slice,
)
from pitui.core.paths import shorten_home
from pitui.core.session import EntryMeta, Session
from pitui.core.stringify import dump_json_line
from pitui.core.units import kilo_tokens

__all__ = [
    "UNREADABLE",
    "RowTexts",
    "TextPart",
    "TextRole",
    "ToolCallLookup",
    "entry_parts",
    "entry_text",
    "format_tool_call",
    "query_words",
    "searchable_text",
    "spaces_for_controls",
    "tool_call_in",
    "tool_calls_of",
]

#: Colour roles of row text: pi's theme names ("" = the default text colour).
TextRole = Literal[
    "", "accent", "success", "muted", "dim", "warning", "error", "borderAccent",
    "customMessageLabel",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class TextPart:
    """A piece of a row's text with its colour role; ``text`` holds no control character."""

    text: str
    role: TextRole = ""
    italic: bool = False


#: Parts of a row whose content could not be read (the file changed under us).
UNREADABLE: Final = (TextPart("[unreadable entry]", "error"),)

ToolCallLookup = Callable[[EntryMeta, Any], "tuple[Any, Any] | None"]
"""(name, arguments) of the assistant toolCall that a toolResult entry answers, by call id."""


def entry_text(
    meta: EntryMeta, obj: dict[str, Any], tool_call: ToolCallLookup, home: str | None
) -> tuple[TextPart, ...]:
    """The text of an entry in the tree (§3.6), control characters already spaces; ``home``
    is the directory shown as ``~`` in tool-call paths."""
    return tuple(
        TextPart(spaces_for_controls(part.text), part.role, part.italic)
        for part in entry_parts(meta, obj, tool_call, home)
        if part.text
    )


def entry_parts(
    meta: EntryMeta, obj: dict[str, Any], tool_call: ToolCallLookup, home: str | None
) -> list[TextPart]:
    """The parts of :func:`entry_text` with control characters as found (for a view that shows
    them with :mod:`pitui.render.safe_text` instead of turning them into spaces)."""
    return _entry_parts(meta, obj, tool_call, home)


def query_words(query: str) -> list[str]:
    """A search query's lower-cased words, split on JavaScript white space (§3.10)."""
    return [t for t in query.lower().translate(_WS_TO_SPACE).split(" ") if t]


# ------------------------------------------------------------------------------------------------
# JavaScript string behaviour the row texts depend on

_CONTROL_TO_SPACE: Final = {c: " " for c in (*range(0x20), *range(0x7F, 0xA0))}
_NEWLINE_TAB: Final = str.maketrans("\n\t", "  ")
_WS_TO_SPACE: Final = str.maketrans({ch: " " for ch in JS_WHITESPACE})  # query split (JS \s)


def spaces_for_controls(text: str) -> str:
    """§3.5 pitui: every C0, DEL and C1 control becomes a space."""
    return text.translate(_CONTROL_TO_SPACE) if not text.isprintable() else text


def _normalize(text: str) -> str:
    """§3.6 normalize: newlines and tabs become spaces, then JavaScript trim."""
    return js_trim(text.translate(_NEWLINE_TAB))


def _content_200(content: Any) -> str:
    return utf16_slice(concat_text(content), 200)


def format_tool_call(name: Any, arguments: Any, home: str | None = None) -> str:
    """A tool call as pi's tree shows it (§3.6 "Formatted tool calls")."""
    args = arguments if isinstance(arguments, dict) else {}

    def arg(key: str) -> Any:
        return args.get(key, UNDEFINED)

    def first(*keys: str, default: str = "") -> str:
        for key in keys:
            value = arg(key)
            if js_truthy(value):
                return js_string(value)
        return default

    def short(path: str) -> str:
        return shorten_home(path, home)

    tool = js_string(name) if name is not None else "undefined"
    if name == "read":
        display = short(first("path", "file_path"))
        offset, limit = arg("offset"), arg("limit")
        if offset is not UNDEFINED or limit is not UNDEFINED:
            start: Any = 1 if offset is UNDEFINED or offset is None else offset
            display += f":{js_string(start)}"
            if limit is not UNDEFINED and isinstance(start, int | float):
                end = js_to_number(start) + js_to_number(limit) - 1
                if end and not math.isnan(end):
                    display += f"-{js_number_string(end)}"
        return f"[read: {display}]"
    if name in ("write", "edit"):
        return f"[{name}: {short(first('path', 'file_path'))}]"
    if name == "bash":
        raw = first("command")
        command = utf16_slice(js_trim(raw.translate(_NEWLINE_TAB)), 50)
        return f"[bash: {command}{'...' if utf16_len(raw) > 50 else ''}]"
    if name == "grep":
        return f"[grep: /{first('pattern')}/ in {short(first('path', default='.'))}]"
    if name == "find":
        return f"[find: {first('pattern')} in {short(first('path', default='.'))}]"
    if name == "ls":
        return f"[ls: {short(first('path', default='.'))}]"
    try:
        compact = dump_json_line(arguments).decode("utf-8", "replace")[:-1]
    except TypeError:
        compact = "{}"
    cut = utf16_slice(compact, 40)
    return f"[{tool}: {cut}{'...' if utf16_len(compact) > 40 else ''}]"


def tool_calls_of(obj: dict[str, Any]) -> Iterable[tuple[str, Any, Any]]:
    """(id, name, arguments) of each toolCall block of an assistant message entry."""
    message = obj.get("message")
    if not isinstance(message, dict):
        return ()
    content = message.get("content")
    if not isinstance(content, list):
        return ()
    return [
        (block["id"], block.get("name"), block.get("arguments"))
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "toolCall"
        and isinstance(block.get("id"), str)
    ]


def tool_call_in(obj: dict[str, Any], call_id: str) -> tuple[Any, Any] | None:
    """(name, arguments) of the toolCall ``call_id`` of an assistant message entry, if it holds
    it (the first one, should the id repeat in the message)."""
    for block_id, name, arguments in tool_calls_of(obj):
        if block_id == call_id:
            return name, arguments
    return None


def searchable_text(obj: dict[str, Any]) -> str:
    """§3.10 searchable text of an entry without its label (pi's getSearchableText), as is."""
    etype = obj.get("type")
    parts: list[Any] = []
    if etype == "message":
        message = obj.get("message")
        if isinstance(message, dict):
            role = message.get("role", UNDEFINED)
            parts.append(role)
            content = message.get("content")
            if js_truthy(content):
                parts.append(_content_200(content))
            if role == "bashExecution" and js_truthy(message.get("command")):
                parts.append(message.get("command"))
    elif etype == "custom_message":
        parts.append(obj.get("customType", UNDEFINED))
        content = obj.get("content")
        parts.append(content if isinstance(content, str) else _content_200(content))
    elif etype == "compaction":
        parts.append("compaction")
    elif etype == "branch_summary":
        parts.extend(("branch summary", obj.get("summary", UNDEFINED)))
    elif etype == "session_info":
        parts.append("title")
        if js_truthy(obj.get("name")):
            parts.append(obj.get("name"))
    elif etype == "model_change":
        parts.extend(("model", obj.get("modelId", UNDEFINED)))
    elif etype == "thinking_level_change":
        parts.extend(("thinking", obj.get("thinkingLevel", UNDEFINED)))
    elif etype == "custom":
        parts.extend(("custom", obj.get("customType", UNDEFINED)))
    elif etype == "label":
        label = obj.get("label")
        parts.extend(("label", "" if label is None else label))
    return js_join(parts, " ")


def _entry_parts(
    meta: EntryMeta, obj: dict[str, Any], tool_call: ToolCallLookup, home: str | None
) -> list[TextPart]:
    etype = obj.get("type")
    if obj.get("_unreadable"):
        return list(UNREADABLE)
    if etype == "message":
        message = obj.get("message")
        return _message_parts(meta, message if isinstance(message, dict) else {}, tool_call, home)
    if etype == "custom_message":
        text = concat_text(obj.get("content"))
        return [
            TextPart(f"[{js_string(obj.get('customType', UNDEFINED))}]: ", "customMessageLabel"),
            TextPart(_normalize(text)),
        ]
    if etype == "compaction":
        tokens = kilo_tokens(obj.get("tokensBefore", UNDEFINED))
        return [TextPart(f"[compaction: {tokens}k tokens]", "borderAccent")]
    if etype == "branch_summary":
        summary = obj.get("summary")
        return [
            TextPart("[branch summary]: ", "warning"),
            TextPart(_normalize(summary) if isinstance(summary, str) else ""),
        ]
    if etype == "model_change":
        return [TextPart(f"[model: {js_string(obj.get('modelId', UNDEFINED))}]", "dim")]
    if etype == "thinking_level_change":
        level = js_string(obj.get("thinkingLevel", UNDEFINED))
        return [TextPart(f"[thinking: {level}]", "dim")]
    if etype == "custom":
        return [TextPart(f"[custom: {js_string(obj.get('customType', UNDEFINED))}]", "dim")]
    if etype == "label":
        label = obj.get("label")
        shown = "(cleared)" if label is None else js_string(label)
        return [TextPart(f"[label: {shown}]", "dim")]
    if etype == "session_info":
        name = obj.get("name")
        if js_truthy(name):
            return [TextPart(f"[title: {js_string(name)}]", "dim")]
        return [
            TextPart("[title: ", "dim"),
            TextPart("empty", "dim", True),
            TextPart("]", "dim"),
        ]
    return [TextPart(f"[{meta.type}]", "dim")]


def _message_parts(
    meta: EntryMeta, message: dict[str, Any], tool_call: ToolCallLookup, home: str | None
) -> list[TextPart]:
    role = message.get("role", UNDEFINED)
    if role == "user":
        return [
            TextPart("user: ", "accent"),
            TextPart(_normalize(_content_200(message.get("content")))),
        ]
    if role == "assistant":
        head = TextPart("assistant: ", "success")
        text = _normalize(_content_200(message.get("content")))
        if text:
            return [head, TextPart(text)]
        if message.get("stopReason") == "aborted":
            return [head, TextPart("(aborted)", "muted")]
        error = message.get("errorMessage")
        if isinstance(error, str) and error:
            return [head, TextPart(utf16_slice(_normalize(error), 80), "error")]
        return [head, TextPart("(no content)", "muted")]
    if role == "toolResult":
        call = tool_call(meta, message.get("toolCallId"))
        if call is not None:
            return [TextPart(format_tool_call(call[0], call[1], home), "muted")]
        name = message.get("toolName")
        return [TextPart(f"[{'tool' if name is None else js_string(name)}]", "muted")]
    if role == "bashExecution":
        command = message.get("command")
        text = _normalize(command) if isinstance(command, str) else ""
        return [TextPart(f"[bash]: {text}", "dim")]
    return [TextPart(f"[{js_string(role)}]", "dim")]


class RowTexts:
    """The row texts (§3.6) of the entries of one session: read from the file for the rows that
    are drawn and cached, each tool result with the tool call it answers.

    ``home``: the directory shown as ``~`` in tool-call paths (default: the real one)."""

    CACHE_MAX: Final = 8192
    NEARBY_TOOL_CALL_STEPS: Final = 64

    def __init__(self, session: Session, home: str | None) -> None:
        self.session = session
        self.home = home
        self._texts: dict[str, tuple[TextPart, ...]] = {}
        self._tool_map: dict[str, tuple[Any, Any]] | None = None
        self._tool_map_upto = 0  # entries of the session the tool map covers

    def text(self, meta: EntryMeta) -> tuple[TextPart, ...]:
        """The text of an entry in the tree (§3.6), control characters already spaces."""
        cached = self._texts.get(meta.uid)
        if cached is not None:
            return cached
        try:
            obj = self.session.raw(meta)
        except OSError:
            return UNREADABLE
        parts = entry_text(meta, obj, self.tool_call_for, self.home)
        if len(self._texts) >= self.CACHE_MAX:
            self._texts.clear()
        self._texts[meta.uid] = parts
        return parts

    def add_tool_calls(self, tool_calls: dict[str, tuple[Any, Any]], covers: int) -> None:
        """Take the tool calls a search index read (of the first ``covers`` entries) when they
        cover more than the map does; the texts are read again (tool results may read
        differently now)."""
        if covers <= self._tool_map_upto:
            return
        merged = dict(self._tool_map or {})
        merged.update(tool_calls)
        self._tool_map = merged
        self._tool_map_upto = covers
        self._texts.clear()

    def forget(self) -> None:
        """Drop every cached text and tool call (the file was replaced)."""
        self._texts.clear()
        self._tool_map = None
        self._tool_map_upto = 0

    def tool_call_for(self, meta: EntryMeta, call_id: Any) -> tuple[Any, Any] | None:
        """(name, arguments) of the assistant toolCall a toolResult answers, anywhere in the file.

        Looked up, in order: the map of every toolCall (once built, or installed with the search
        texts); the core index (``session.tool_calls``) when it holds the id; the nearest assistant
        ancestors (where the call nearly always is); finally every assistant entry is scanned
        once. pi keeps the last call with a given id in row order; ids are unique in practice."""
        if not isinstance(call_id, str):
            return None
        if self._tool_map is not None:
            found = self._tool_map.get(call_id)
            if found is not None:
                return found
        session = self.session
        owner = session.get(session.tool_calls.get(call_id, "")) if session.tool_calls else None
        candidates: list[EntryMeta] = [owner] if owner is not None else []
        node = meta.parent
        for _ in range(self.NEARBY_TOOL_CALL_STEPS):
            if node is None:
                break
            if node.type == "message" and node.role == "assistant":
                candidates.append(node)
            node = node.parent
        for candidate in candidates:
            call = tool_call_in(session.raw(candidate), call_id)
            if call is not None:
                return call
        self._update_tool_map()
        assert self._tool_map is not None
        return self._tool_map.get(call_id)

    def _update_tool_map(self) -> None:
        """Scan the assistant entries the tool map does not cover yet (all, the first time)."""
        entries = self.session.entries
        if self._tool_map is not None and self._tool_map_upto >= len(entries):
            return
        found = self._tool_map if self._tool_map is not None else {}
        raw = self.session.raw
        for meta in entries[self._tool_map_upto :]:
            if meta.type == "message" and meta.role == "assistant":
                for block_id, name, arguments in tool_calls_of(raw(meta)):
                    found[block_id] = (name, arguments)
        self._tool_map = found
        self._tool_map_upto = len(entries)
