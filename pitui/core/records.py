"""What the tree index keeps of each session line, and the decode that reads it.

:class:`EntryMeta` is the index's record of one entry line. :func:`scan` reads the lines of a
file into them, linking the normal file as it reads (``Session`` does the rest); :func:`make_meta`
is the same rule for one parsed object, written plainly: the reference the fast path is tested
against, and the path of every line the typed decode leaves to it.

The typed decode: a :class:`Line` declares only ``type``, ``id``, ``parentId``, ``timestamp``
and, of a user, assistant or tool result message (tagged by role), the small fields the index
keeps (provider, model, stop reason, usage, tool call ids, whether it has visible text); msgspec
skips every other value without building it (a tool result's output, a user's content): on the
lines of a big pi session that is about 0.5x of orjson's full parse, and no dict per line.

Every field is declared with the type pi writes, and the ones the index needs are required. A
line where one is missing or of another type (a hostile or damaged file), a content block of
another type, an entry type or a role pi does not write, or a line that is not JSON, fails to
decode with :data:`DecodeError` and is read by the reference path instead (parsed whole, then
:func:`make_meta`). The other entry types and roles pi writes (a few lines in a hundred) decode
to :class:`Other` (or a message of another role), nothing read, and take the reference path
too: so the lines of a block decode at once, in one C loop (:func:`scan`), and only a block
holding a line that does not decode is decoded line by line. The pydantic
models of :mod:`pitui.core.models` stay the library's boundary: they validate whole entries,
lazily, for what is drawn or returned.
"""

from __future__ import annotations

from itertools import accumulate, count, filterfalse
from typing import Any

import msgspec
from msgspec import UNSET, Raw, Struct

from pitui.core.facts import usage_numbers
from pitui.core.js import JS_WHITESPACE, js_trim, label_text
from pitui.core.jsonl import Lines
from pitui.core.problems import Problem, ProblemKind

__all__ = [
    "DUPLICATE_HEADER", "NO_PARENT_KEY", "UNSET", "AnyLine", "AssistantMessage", "DecodeError",
    "EntryMeta", "Line", "Other", "Scan", "ToolResultMessage", "Usage", "UserMessage", "attach",
    "decode_line", "make_meta", "scan", "visible_text",
]  # fmt: skip

# What decode_line raises: not JSON, a value of another shape (msgspec's ValidationError is a
# DecodeError), bytes that are not UTF-8.
DecodeError = (msgspec.DecodeError, UnicodeDecodeError)


class Cost(Struct, gc=False):
    total: float = 0.0


class Usage(Struct, gc=False):
    """A usage as the index counts it (:func:`pitui.core.facts.usage_numbers`): the parts are
    ``float``, which msgspec reads a JSON integer into as ``float(int)`` does and refuses for a
    number out of a double's range, ``null``, a string or a boolean (the line is then read by
    the reference path, where such a part counts 0): every value here is finite, an absent one
    0, as there."""

    input: float = 0.0
    output: float = 0.0
    cacheRead: float = 0.0
    cacheWrite: float = 0.0
    cost: Cost | None = None

    def values(self) -> tuple[float, float, float, float, float]:
        """``(input, output, cacheRead, cacheWrite, cost.total)``."""
        cost = self.cost
        return (self.input, self.output, self.cacheRead, self.cacheWrite,
                cost.total if cost is not None else 0.0)  # fmt: skip


class _Block(Struct, tag_field="type", gc=False):
    """A block of an assistant's content, by its type (a tagged union: a block of another
    type, or without one, fails the decode, and the line is read by the reference path)."""


class TextBlock(_Block, tag="text"):
    """Its text is kept raw (only whether it is blank is asked)."""

    text: Raw = Raw(b"")


class ToolCallBlock(_Block, tag="toolCall"):
    id: str | None = None


class ThinkingBlock(_Block, tag="thinking"):
    """Nothing of it is read."""


class _Message(Struct, tag_field="role", gc=False):
    """A message of one of the three roles the fast path reads (a tagged union: another role,
    most lines of a big session being these, fails the decode and is read by the reference)."""


class UserMessage(_Message, tag="user"):
    """Nothing of its content is read (the index keeps none of it)."""


class AssistantMessage(_Message, tag="assistant"):
    content: list[TextBlock | ToolCallBlock | ThinkingBlock] | str | None = None
    provider: str | None = None
    model: str | None = None
    stopReason: str | None = None
    usage: Usage | None = None


class ToolResultMessage(_Message, tag="toolResult"):
    """Its output, most of a session's bytes, is skipped unread."""

    toolCallId: str | None = None
    usage: Usage | None = None


# The other roles pi writes: the line is read by the reference path (nothing decoded here).
class _OtherMessage(_Message):
    pass


class _Bash(_OtherMessage, tag="bashExecution"): ...


class _Custom(_OtherMessage, tag="custom"): ...


class _Hook(_OtherMessage, tag="hookMessage"): ...


class _BranchSummary(_OtherMessage, tag="branchSummary"): ...


class _CompactionSummary(_OtherMessage, tag="compactionSummary"): ...


class _System(_OtherMessage, tag="system"): ...


class _Entry(Struct, tag_field="type", gc=False):
    """A line by its entry type (a tagged union: a type pi does not write fails the decode)."""


class Line(_Entry, tag="message"):
    """One message line as the fast path reads it: only a message line with every field the
    index needs, of the type pi writes, decodes (``parentId`` present, ``null`` for a root); any
    other line fails and is read by the reference path (:func:`make_meta`)."""

    id: str
    parentId: str | None
    timestamp: str
    message: (
        UserMessage | AssistantMessage | ToolResultMessage | _Bash | _Custom | _Hook
        | _BranchSummary | _CompactionSummary | _System
    )  # fmt: skip


# The other entry types pi writes (a few lines in a hundred), and a second session header:
# nothing decoded, the line is read by the reference path. They decode so that a block of lines
# holding them still decodes at once (see scan).
class Other(_Entry):
    pass


class _Session(Other, tag="session"): ...


class _Label(Other, tag="label"): ...


class _SessionInfo(Other, tag="session_info"): ...


class _ModelChange(Other, tag="model_change"): ...


class _ThinkingLevel(Other, tag="thinking_level_change"): ...


class _Compaction(Other, tag="compaction"): ...


class _BranchSummaryEntry(Other, tag="branch_summary"): ...


class _CustomEntry(Other, tag="custom"): ...


class _CustomMessage(Other, tag="custom_message"): ...


class _ContextEdit(Other, tag="context_edit"): ...


class _UsageEntry(Other, tag="usage"): ...


AnyLine = (
    Line | _Session | _Label | _SessionInfo | _ModelChange | _ThinkingLevel | _Compaction
    | _BranchSummaryEntry | _CustomEntry | _CustomMessage | _ContextEdit | _UsageEntry
)  # fmt: skip

# The decode alone, for a caller that checks the bytes itself (as decode_line does).
decode_fields = msgspec.json.Decoder(AnyLine).decode


def decode_line(line: bytes) -> Line | Other:
    """The :class:`Line` (an :class:`Other` for another entry type) of a JSON line; raises
    :data:`DecodeError` (or ``UnicodeDecodeError``).

    msgspec skips the values it does not want without reading their bytes, so it would not see
    bytes that are not UTF-8 there (JSON.parse would replace them, and the reader reports it):
    a line that is not all ASCII is checked first.
    """
    if not line.isascii():
        line.decode()
    return decode_fields(line)


def visible_text(raw: Raw) -> bool:
    """Whether a raw JSON value is a string that JavaScript's ``trim()`` leaves non-empty.

    Read from its first bytes while they are spaces and the escapes of white space (``\\n``,
    ``\\t``, ``\\r``, ``\\f``: a reply often starts with ``\\n\\n``) up to the first other
    character; only a string whose start is not that plain (another character that is not ASCII,
    a ``\\u`` escape, a control) is decoded whole."""
    data = memoryview(raw)  # (not copied: a text may be long)
    size = len(data)
    if size < 3 or data[0] != 0x22:  # not a string, or an empty one
        return False
    at = 1
    while at < _PLAIN_START:
        byte = data[at]
        if 0x20 < byte < 0x80 and byte != 0x5C:
            return byte != 0x22  # visible ASCII; the closing quote: only white space before it
        if byte == 0x20:
            at += 1
        elif byte == 0x5C and at + 1 < size:
            escaped = data[at + 1]
            if escaped not in _BLANK_ESCAPES:
                if escaped == 0x75:  # \uXXXX: maybe a space pi's trim removes
                    break
                return True  # \" \\ \/ \b: a visible character
            at += 2
        else:
            break
    text = msgspec.json.decode(data)
    return bool(text) and (text[0] not in JS_WHITESPACE or bool(js_trim(text)))


# The escapes of JSON that stand for white space (n, t, r, f), and how far into a string
# visible_text reads before it decodes the string whole.
_BLANK_ESCAPES = frozenset(b"ntrf")
_PLAIN_START = 64


# ------------------------------------------------------------------ what the index keeps

DUPLICATE_HEADER = "a second session header line (ignored, as pi does)"

# parentId absent (not null): pi treats it like a missing parent, so the entry is a root.
NO_PARENT_KEY: Any = object()


class EntryMeta:
    """What the index keeps of one entry line. ``uid`` is unique in the session (``id`` may not be).

    Type-specific small fields live in one ``info`` tuple (read through the properties below): a
    record per entry must stay small and quick to build, since a big session has 100k+ of them.
    """

    __slots__ = (
        "children",
        "id",
        "info",
        "length",
        "line",
        "offset",
        "parent",
        "parent_id",
        "role",
        "timestamp",
        "type",
        "uid",
        "usage",
    )

    uid: str
    id: str | None
    parent_id: Any
    type: str
    timestamp: str | None
    line: int
    offset: int
    length: int
    parent: EntryMeta | None
    children: list[EntryMeta] | None
    role: str | None
    usage: Any  # (input, output, cacheRead, cacheWrite, cost) as counted, or None
    info: tuple[Any, ...]

    def __init__(self, uid: str, entry_id: str | None, parent_id: Any, etype: str,
                 timestamp: str | None, line: int, offset: int, length: int) -> None:  # fmt: skip
        self.uid = uid
        self.id = entry_id
        self.parent_id = parent_id
        self.type = etype
        self.timestamp = timestamp
        self.line = line
        self.offset = offset
        self.length = length
        self.parent = None
        self.children = None
        self.role = None
        self.usage = None
        self.info = ()

    def _field(self, types: tuple[str, ...], index: int) -> Any:
        kind = self.role if self.type == "message" else self.type
        return self.info[index] if kind in types and len(self.info) > index else None

    @property
    def provider(self) -> str | None:
        """Provider of an assistant message or a model change."""
        return _str_or_none(self._field(("assistant", "model_change"), 0))

    @property
    def model(self) -> str | None:
        return _str_or_none(self._field(("assistant", "model_change"), 1))

    @property
    def stop_reason(self) -> str | None:
        return _str_or_none(self._field(("assistant",), 2))

    @property
    def has_text(self) -> bool:
        """An assistant message with a text block that is not only white space."""
        return bool(self._field(("assistant",), 3))

    @property
    def target_id(self) -> str | None:
        """Target of a label or a context edit."""
        return _str_or_none(self._field(("label", "context_edit"), 0))

    @property
    def label(self) -> str | None:
        """The label a label entry sets (``None``: it clears)."""
        return label_text(self._field(("label",), 1))

    @property
    def name(self) -> str | None:
        return _str_or_none(self._field(("session_info",), 0))

    @property
    def level(self) -> str | None:
        return _str_or_none(self._field(("thinking_level_change",), 0))

    @property
    def custom_type(self) -> str | None:
        return _str_or_none(self._field(("custom", "custom_message", "hookMessage"), 0))

    @property
    def first_kept(self) -> str | None:
        value = self._field(("compaction",), 0)
        return value if isinstance(value, str) and value else None

    @property
    def retained(self) -> bool:
        """A compaction whose ``retainedTail`` is present and a list (even empty: §10.3)."""
        return bool(self._field(("compaction",), 1))

    @property
    def tokens_before(self) -> float | None:
        value = self._field(("compaction",), 2)
        return float(value) if type(value) in (int, float) else None

    @property
    def tool_call_id(self) -> str | None:
        return _str_or_none(self._field(("toolResult",), 0))

    def __repr__(self) -> str:
        what = f"{self.type}/{self.role}" if self.role else self.type
        return f"<EntryMeta {self.uid} {what} line {self.line}>"


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _usage(value: Any) -> Any:
    # counted once, here (a tally over 100k entries then only adds)
    return usage_numbers(value) if type(value) is dict else None


def _tool_call_ids(content: Any) -> tuple[str, ...]:
    if type(content) is not list:
        return ()
    return tuple(
        block["id"]
        for block in content
        if type(block) is dict and block.get("type") == "toolCall" and type(block.get("id")) is str
    )


def _has_visible_text(content: Any) -> bool:
    if isinstance(content, str):
        return bool(js_trim(content))
    if type(content) is list:
        for block in content:
            if type(block) is dict and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str) and js_trim(text):
                    return True
    return False


# Interned type and role names: one str object shared by every entry instead of one per line.
_NAMES = {
    name: name
    for name in (
        "message", "thinking_level_change", "model_change", "compaction", "branch_summary",
        "custom", "custom_message", "label", "session_info", "context_edit", "usage", "user",
        "assistant", "toolResult", "bashExecution", "hookMessage", "system", "branchSummary",
        "compactionSummary",
    )
}  # fmt: skip


def _entry_fields(obj: dict[str, Any], etype: str) -> tuple[tuple[Any, ...], Any]:
    """``(info, usage)`` of an entry that is not a message."""
    get = obj.get
    if etype == "label":
        return (get("targetId"), get("label")), None
    if etype == "session_info":
        return (get("name"),), None
    if etype == "model_change":
        return (get("provider"), get("modelId")), None
    if etype == "thinking_level_change":
        return (get("thinkingLevel"),), None
    if etype == "compaction":
        info = (get("firstKeptEntryId"), type(get("retainedTail")) is list, get("tokensBefore"))
        return info, _usage(get("usage"))
    if etype == "branch_summary" or etype == "usage":
        return (), _usage(get("usage"))
    if etype == "custom" or etype == "custom_message":
        return (get("customType"),), None
    if etype == "context_edit":
        return (get("targetId"),), None
    return (), None


def make_meta(obj: dict[str, Any], line: int, offset: int, length: int) -> EntryMeta:
    get = obj.get
    raw_id = get("id")
    etype = get("type")
    ts = get("timestamp")
    if type(raw_id) is str:
        meta = EntryMeta(raw_id, raw_id, get("parentId", NO_PARENT_KEY),
                         _NAMES.get(etype, etype) if type(etype) is str else "?",
                         ts if type(ts) is str else None, line, offset, length)  # fmt: skip
    else:
        meta = EntryMeta(f"#{line}", None, get("parentId", NO_PARENT_KEY),
                         _NAMES.get(etype, etype) if type(etype) is str else "?",
                         ts if type(ts) is str else None, line, offset, length)  # fmt: skip
    if etype == "message":
        message = get("message")
        if type(message) is dict:
            role = message.get("role")
            if type(role) is not str:
                meta.role = "?"
                return meta
            meta.role = _NAMES.get(role, role)
            if role == "assistant":
                content = message.get("content")
                meta.info = (
                    message.get("provider"),
                    message.get("model"),
                    message.get("stopReason"),
                    _has_visible_text(content),
                    _tool_call_ids(content),
                )
                meta.usage = _usage(message.get("usage"))
            elif role == "toolResult":
                meta.info = (message.get("toolCallId"),)
                usage = message.get("usage")
                if usage is not None:
                    meta.usage = _usage(usage)
            elif role == "custom" or role == "hookMessage":
                meta.info = (message.get("customType"),)
        else:
            meta.role = "?"
    elif type(etype) is str:
        meta.info, meta.usage = _entry_fields(obj, etype)
    return meta


def attach(parent: EntryMeta, child: EntryMeta, branching: list[EntryMeta]) -> None:
    """Add ``child`` to ``parent``'s children (in file order); a parent that gets its second
    child joins ``branching``, the nodes whose children need sorting into pi's order."""
    children = parent.children
    if children is None:
        parent.children = [child]
    else:
        if len(children) == 1:
            branching.append(parent)
        children.append(child)


class Scan:
    """What :func:`scan` read, and its tree when ``linked``."""

    __slots__ = ("branching", "by_id", "dup_problems", "entries", "linked", "roots", "specials",
                 "tool_calls")  # fmt: skip

    def __init__(self) -> None:
        self.entries: list[EntryMeta] = []
        self.specials: list[EntryMeta] = []  # the labels and session names among them
        self.tool_calls: dict[str, str] = {}  # toolCall id -> entry id, the last one winning
        self.dup_problems: list[Problem] = []  # second session headers
        # The normal file (every entry has its own id and a parent read before it) is linked as
        # it is read; ``linked`` turns False, and linking stops, at the first entry that is not.
        self.linked = True
        self.by_id: dict[str, EntryMeta] = {}
        self.roots: list[EntryMeta] = []
        self.branching: list[EntryMeta] = []  # nodes with several children: to be sorted


def scan(lines: Lines) -> Scan:
    """Read the entry lines (after the header) exactly as :class:`LineReader` and
    :func:`make_meta` would, linking them as they come, with as little work per line as
    possible: besides the decode, this loop is most of the time to open a big session.

    The lines come a block at a time (:meth:`Lines.batches`), decoded by :data:`decode_fields`
    in one C loop (only the fields the index keeps). The common line, a user, assistant or tool
    result message with the fields pi always writes, is read from that; any other line (another
    entry type or role, a value of another type, not JSON, not UTF-8) is parsed whole and read
    by :func:`make_meta`, the reference. A block holding a line that does not decode is decoded
    line by line (:func:`_decode_each`).
    """
    part = Scan()
    entries = part.entries
    specials = part.specials
    tool_calls = part.tool_calls
    by_id = part.by_id
    roots = part.roots
    branching = part.branching
    linked = True
    # The last entry linked, most often the parent of the next one (compared by id, no lookup).
    previous: EntryMeta | None = None
    previous_id: Any = object()  # equal to no parentId
    parent: EntryMeta
    last_provider = last_model = last_stop = ""  # only ever strings (see below)
    last_calls: tuple[str, ...] = ()
    raw_id: Any
    pid: Any
    rec: Any
    new = object.__new__
    entry_meta = EntryMeta
    line_type = Line
    assistant = AssistantMessage
    tool_result = ToolResultMessage
    user = UserMessage
    tool_call = ToolCallBlock
    text_block = TextBlock
    for line_no, pos, batch in lines.batches():
        records: list[Any] | None = _decode_batch(batch)
        if records is None:
            records = _decode_each(lines, part, line_no, pos, batch)
        sizes = list(map(len, batch))
        starts = accumulate(sizes, initial=pos)  # (one more than the lines: zip stops first)
        numbers = count(line_no)
        for line_no, start, size, rec, line in zip(numbers, starts, sizes, records, batch):  # noqa: B905
            message = rec.message if type(rec) is line_type else None
            kind = type(message)
            if kind is assistant or kind is tool_result or kind is user:
                raw_id = rec.id
                pid = rec.parentId
                # EntryMeta(...), its fields set here: a call to a class with an __init__ costs
                # a tenth of this loop's own work (test_fast_load checks every field is set)
                meta = new(entry_meta)
                meta.uid = meta.id = raw_id
                meta.parent_id = pid
                meta.type = "message"
                meta.timestamp = rec.timestamp
                meta.line = line_no
                meta.offset = start
                meta.length = size - 1  # (the unterminated last line: see below)
                meta.parent = meta.children = None
                if kind is assistant:
                    content = message.content  # type: ignore[union-attr]
                    has_text = False
                    call_ids: tuple[str, ...] = ()
                    if type(content) is list:
                        for block in content:
                            block_kind = type(block)
                            if block_kind is tool_call:
                                call_id = block.id  # type: ignore[union-attr]
                                if call_id is not None:
                                    call_ids += (call_id,)
                                    tool_calls[call_id] = raw_id  # the last one wins (pi)
                            elif block_kind is text_block and not has_text:
                                has_text = visible_text(block.text)  # type: ignore[union-attr]
                    elif type(content) is str:
                        has_text = bool(js_trim(content))
                    # Equal strings kept as one object (a big session holds 50k+ of each): less
                    # memory to fault in, which costs more than these comparisons.
                    provider = message.provider  # type: ignore[union-attr]
                    if provider == last_provider:
                        provider = last_provider
                    elif provider is not None:
                        last_provider = provider
                    model = message.model  # type: ignore[union-attr]
                    if model == last_model:
                        model = last_model
                    elif model is not None:
                        last_model = model
                    stop_reason = message.stopReason  # type: ignore[union-attr]
                    if stop_reason == last_stop:
                        stop_reason = last_stop
                    elif stop_reason is not None:
                        last_stop = stop_reason
                    meta.info = (provider, model, stop_reason, has_text, call_ids)
                    last_calls = call_ids
                    meta.role = "assistant"
                    usage = message.usage  # type: ignore[union-attr]
                    meta.usage = None if usage is None else usage.values()
                elif kind is tool_result:
                    call_id = message.toolCallId  # type: ignore[union-attr]
                    for known in last_calls:  # most often a call of the last assistant's
                        if known == call_id:
                            call_id = known  # one string kept, not two
                            break
                    meta.info = (call_id,)
                    meta.role = "toolResult"
                    usage = message.usage  # type: ignore[union-attr]
                    meta.usage = None if usage is None else usage.values()
                else:
                    meta.info = ()
                    meta.role = "user"
                    meta.usage = None
            else:
                if type(rec) is not entry_meta:
                    if rec is None:
                        continue  # blank, not usable, or a second header (reported)
                    # another entry type or role: the reference path
                    rec = _reference(lines, part, line_no, start, line)
                    if rec is None:
                        continue
                meta = rec
                raw_id = meta.id
                pid = meta.parent_id
                if raw_id is None:
                    linked = False
                if meta.role is None:
                    if meta.type == "label" or meta.type == "session_info":
                        specials.append(meta)
                elif meta.role == "assistant":
                    for call_id in meta.info[4]:
                        tool_calls[call_id] = meta.uid
            entries.append(meta)  # not an alias: list.append called as a method is inlined
            if linked:
                # a duplicate id is not looked for here: it shows in len(by_id) at the end
                if pid == previous_id:
                    meta.parent = previous
                    meta.parent_id = previous_id  # one string kept, not two
                    if previous.children is None:  # type: ignore[union-attr]  # set by then
                        previous.children = [meta]  # type: ignore[union-attr]
                    else:
                        attach(previous, meta, branching)  # type: ignore[arg-type]
                    by_id[raw_id] = meta
                    previous = meta
                    previous_id = raw_id
                    continue
                if pid is None:
                    roots.append(meta)
                    by_id[raw_id] = meta
                    previous = meta
                    previous_id = raw_id
                    continue
                else:
                    try:
                        parent = by_id[pid]
                    except (KeyError, TypeError):  # not read yet, or not even a string
                        linked = False
                        continue
                meta.parent = parent
                meta.parent_id = parent.id  # one string kept, not two
                if parent.children is None:
                    parent.children = [meta]
                else:
                    attach(parent, meta, branching)
                by_id[raw_id] = meta
                previous = meta
                previous_id = raw_id
        if line[-1:] != b"\n" and entries and entries[-1].offset == start:
            entries[-1].length = size  # the unterminated last line (final) has no \n
    part.linked = linked and len(by_id) == len(entries)
    return part


def _decode_batch(batch: list[bytes]) -> list[Line | Other] | None:
    """Every line of ``batch`` decoded (in C), or ``None`` if one does not decode."""
    try:
        for line in filterfalse(bytes.isascii, batch):
            line.decode()  # (see decode_line: msgspec skips values unread)
        return list(map(decode_fields, batch))
    except DecodeError:
        return None


def _decode_each(
    lines: Lines, part: Scan, line_no: int, offset: int, batch: list[bytes]
) -> list[Line | Other | EntryMeta | None]:
    """A block some line of which does not decode, line by line: the decoded lines, the
    reference's record of the others, ``None`` for a blank line or one not usable (reported)."""
    records: list[Line | Other | EntryMeta | None] = []
    for line in batch:
        if line.isspace():
            records.append(None)  # a blank line: skipped, as pi does
        else:
            try:
                records.append(decode_line(line))
            except DecodeError:
                records.append(_reference(lines, part, line_no, offset, line))
        line_no += 1
        offset += len(line)
    return records


def _reference(
    lines: Lines, part: Scan, line_no: int, offset: int, line: bytes
) -> EntryMeta | None:
    """The reference's record of one line (parsed whole, :func:`make_meta`); ``None`` (and a
    problem) for a line that is not a JSON object or is a second session header."""
    obj = lines.parse(line_no, offset, line)
    if obj is None:
        return None
    if obj.get("type") == "session":
        part.dup_problems.append(
            Problem(ProblemKind.DUPLICATE_HEADER, line_no, offset, DUPLICATE_HEADER)
        )
        return None
    length = len(line) - 1 if line[-1:] == b"\n" else len(line)
    return make_meta(obj, line_no, offset, length)
