"""What the session picker shows of one file (format §12.2), computed incrementally.

:class:`SummaryState` is fed the complete lines of a file, from the start or from the byte offset
where the previous feed stopped (sessions are append-only), and can be serialised into the index,
so a file that grew is parsed only from there (:mod:`pitui.core.file_summary` reads a file so).
It never builds a :class:`~pitui.core.session.Session`: a listing of 10,000 files keeps only
counters, the searchable text and a few small sets.

Reading follows pi's listing exactly: lines split on ``\\n`` only, blank lines and lines that are
not JSON skipped, the first JSON object must be a session header (**Robust:** with a string id;
pitui also skips JSON values that are not objects, like its reader does). Where pi would throw on
hostile content and drop the whole file (``content: 5``, ``message: "x"``, a non-string name),
pitui keeps the file and ignores the bad value.

Speed: every line is parsed with orjson (a line that does not parse is skipped, as pi does, so
each must be validated anyway; counting pi-shaped tool-result lines from their first bytes was
tried and gained nothing measurable over orjson once the checks that keep it exact were paid).
The per-line work is written out in :meth:`SummaryState.feed` with local variables: it runs a
million times for a 10,000-session store.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any, ClassVar

import orjson

from pitui.core.content_text import joined_text
from pitui.core.facts import usage_numbers
from pitui.core.js import (
    MAX_DATE_MS,
    iso_from_ms,
    js_date_ms,
    js_join,
    js_trim,
    label_text,
    utf16_len,
)
from pitui.core.jsonl import BOM, Lines, parse_json_line
from pitui.core.labels import apply_label
from pitui.core.listing_lines import (
    ListingAssistant,
    ListingLine,
    ListingToolResult,
    ListingUsage,
    ListingUser,
    decode_listing_line,
    decode_listing_lines,
)
from pitui.core.migrate import header_version
from pitui.core.records import UNSET, DecodeError
from pitui.core.session_info import SessionInfo

__all__ = [
    "NO_MESSAGES",
    "SEARCH_TEXT_CAP",
    "SummaryState",
    "dump_json",
    "load_json",
]

# allMessagesText kept per session for search (characters). pi searches all of it; past this
# (a pathological session with hundreds of MB of text) pitui searches the first 4 Mi characters.
# Counts, firstMessage and allMessagesTextLength still cover the whole file.
SEARCH_TEXT_CAP = 4 * 1024 * 1024
NO_MESSAGES = "(no messages)"


def _parse_whole(line: bytes) -> Any:
    """A line's JSON value as JSON.parse reads it (orjson, else the careful parse)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return parse_json_line(line.removesuffix(b"\n"))[0]


def dump_json(value: Any) -> bytes:
    """JSON bytes of ``value``; strings holding lone surrogates (a JSON ``"\\ud83d"`` read from
    a session) are written as escapes, which orjson refuses to do."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        import json

        return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode()


def load_json(data: bytes) -> Any:
    """The inverse of :func:`dump_json`."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        import json

        return json.loads(data)


# ------------------------------------------------------------------------------------------------
# The incremental summary

_UNDECIDED, _SESSION, _NOT_A_SESSION = 0, 1, -1


class SummaryState:
    """The listing summary of the complete lines read so far, resumable and serialisable."""

    __slots__ = (
        "activity", "anon", "branched", "childless", "cost", "created", "cwd", "entries",
        "first_message", "header_modified", "header_problem", "id", "label_times", "labels",
        "message_count", "model", "name", "parent", "parts", "provider", "status", "text_chars",
        "text_length", "texts", "tokens", "v1",
    )  # fmt: skip

    # False: every line parsed whole (the reference the typed decode is tested against)
    TYPED: ClassVar[bool] = True

    def __init__(self, *, texts: bool = True) -> None:
        self.status = _UNDECIDED
        # Whether the message texts are kept (what the picker searches). A listing that will not
        # search reads without them: only their length is counted (see Store.load_texts).
        self.texts = texts
        self.id = ""
        self.cwd = ""
        self.parent: str | None = None
        self.created: float | None = None  # new Date(header.timestamp), any type
        self.header_modified: float | None = None  # only a string header timestamp counts here
        self.v1 = False
        # a key of search.HEADER_PROBLEMS; "line-before-header" also while undecided: the first
        # object was not a header, the next decides
        self.header_problem: str | None = None
        self.name: str | None = None
        self.message_count = 0
        self.first_message: str | None = None
        self.parts: list[str] = []
        self.text_chars = 0  # characters held in parts, separators included
        self.text_length = 0  # UTF-16 length of the whole allMessagesText
        self.activity: float | None = None  # latest user/assistant time (ms), pi's max from 0
        self.labels: dict[str, str] = {}
        self.label_times: dict[str, str] = {}  # target -> timestamp of the label entry that set it
        self.model: str | None = None  # of the last assistant message in file order
        self.provider: str | None = None
        self.tokens: float = 0.0
        self.cost: float = 0.0
        self.entries = 0
        # Leaves of the tree without building it: ids that have no child yet, parents that have
        # (or were referenced before they appeared), entries without an id (always leaves).
        # Exact for ordinary files; a file that repeats ids or has parent cycles may count
        # differently from Session (which relinks such files), it is only a displayed number.
        self.childless: set[str] = set()
        self.branched: set[str] = set()
        self.anon = 0

    # -------------------------------------------------------------------- reading

    @property
    def is_session(self) -> bool:
        return self.status == _SESSION

    @property
    def decided(self) -> bool:
        return self.status != _UNDECIDED

    def feed(self, source: bytes | int, start: int = 0) -> int:
        """Read the complete lines of ``source`` (content, or an open file) from ``start`` (the
        start of a line); returns the offset after the last ``\\n``. An unterminated tail is left
        unread (see :meth:`with_tail`)."""
        lines = Lines(source, start, final=False)
        self.read(lines)
        return lines.end_offset

    def read(self, lines: Lines) -> None:
        """Fold the lines ``lines`` yields (complete ones, or all of them once ``final``) into
        the summary. Once the first JSON object showed the file is not a session, nothing more
        is parsed.

        Up to the header, every line is parsed whole. After it the lines are decoded a block at
        a time by ``listing_lines.ListingLine`` (msgspec's ``decode_lines``: only the fields read
        here, in C, every other value skipped unread); a block holding a line that does not
        decode so (not JSON, not an object, a value of another type than pi writes, a text
        with a lone surrogate or bytes that are not UTF-8) is read line by line, and such a line
        parsed whole: :meth:`_fold_object`, the reference."""
        if self.status == _UNDECIDED:
            numbered = iter(lines)
            for _line_no, _offset, _end, line in numbered:
                self._fold_object(_parse_whole(line))
                if self.status != _UNDECIDED:
                    break
            numbered.close()  # (the reader stops after the header line)
        if self.status == _NOT_A_SESSION:
            for _ in lines:
                pass  # nothing more to learn from this file; read to its end
            return
        if self.status == _UNDECIDED:
            return  # (no header yet: every line was read)
        if not self.TYPED:
            for _line_no, _offset, _end, line in lines:
                self._fold_object(_parse_whole(line))
            return
        for block in lines.chunks():
            try:
                records = decode_listing_lines(block)
            except DecodeError:
                self._fold_one_by_one(block)
            else:
                self._fold_records(records)

    def _fold_one_by_one(self, block: memoryview) -> None:
        """A block some line of which the typed decode refused: each line on its own."""
        for line in io.BytesIO(block):
            if line.isspace():
                continue
            try:
                record = decode_listing_line(line)
            except DecodeError:
                self._fold_object(_parse_whole(line))
            else:
                self._fold_records((record,))

    def _fold_records(self, records: Iterable[ListingLine]) -> None:
        """Fold typed lines in; the per-line work written out with the state in locals: it runs
        a million times for a 10,000-session store. Message lines come first (most lines)."""
        entries = self.entries
        messages = self.message_count
        anon = self.anon
        childless = self.childless
        branched = self.branched
        activity = self.activity
        first_message = self.first_message
        tokens = self.tokens
        cost = self.cost
        model = self.model
        provider = self.provider
        text_length = self.text_length
        keep_text = self._keep_text if self.texts else None
        assistant, tool_result, user = ListingAssistant, ListingToolResult, ListingUser
        try:
            for record in records:
                etype = record.type
                if etype == "session":
                    continue  # a second header line: pi ignores it
                entries += 1
                # leaves without building the tree (see __init__)
                parent_id = record.parentId
                if type(parent_id) is str:
                    if parent_id in childless:
                        childless.discard(parent_id)
                    else:
                        branched.add(parent_id)
                entry_id = record.id
                if entry_id is not None:
                    if entry_id not in branched:
                        childless.add(entry_id)
                else:
                    anon += 1
                usage: ListingUsage | None
                if etype == "message":
                    messages += 1
                    message = record.message
                    kind = message.__class__
                    if kind is tool_result:
                        usage = message.usage  # type: ignore[union-attr]
                        if usage is None:
                            continue
                    elif kind is assistant or kind is user:
                        said: ListingUser | ListingAssistant = message  # type: ignore[assignment]
                        if kind is assistant:
                            usage = said.usage  # type: ignore[union-attr]
                            found_model = said.model  # type: ignore[union-attr]
                            if found_model is not None:
                                model = found_model
                                provider = said.provider  # type: ignore[union-attr]
                        else:
                            usage = None
                        content = said.content
                        if content is not UNSET:
                            # pi's isMessageWithContent: activity time and text
                            stamp = said.timestamp
                            value: Any
                            if type(stamp) is int or type(stamp) is float:
                                # pi takes any number; one outside Date's range is Invalid Date
                                value = stamp if -MAX_DATE_MS <= stamp <= MAX_DATE_MS else None
                            else:
                                value = js_date_ms(record.timestamp)
                            if value is not None:
                                if activity is None:
                                    activity = value if value > 0 else 0  # Math.max(last ?? 0, t)
                                elif value > activity:
                                    activity = value
                            if type(content) is list:
                                pieces = [block.text for block in content if block.type == "text"]
                                try:
                                    text = " ".join(pieces)  # type: ignore[arg-type]
                                except TypeError:  # a block without text (JavaScript: "")
                                    text = js_join(pieces, " ")
                            elif type(content) is str:
                                text = content
                            else:
                                text = ""
                            if text:
                                if text_length:  # (texts are never empty: one came before)
                                    text_length += 1
                                text_length += len(text) if text.isascii() else utf16_len(text)
                                if keep_text is not None:
                                    keep_text(text)
                                if first_message is None and kind is user:
                                    first_message = text
                        if usage is None:
                            continue
                    else:
                        continue
                elif etype == "compaction" or etype == "branch_summary" or etype == "usage":
                    usage = record.usage
                    if usage is None:
                        continue
                else:
                    if etype == "session_info" or etype == "label":
                        self._other(
                            etype, record.name, record.targetId, record.label, record.timestamp
                        )
                    continue
                # session totals: the same sums as Session.stats() (pi's token rule; see
                # ListingUsage: every part is a finite float, an absent one 0)
                tokens += usage.input + usage.output + usage.cacheRead + usage.cacheWrite
                spent = usage.cost
                if spent is not None:
                    cost += spent.total
        finally:
            self.entries = entries
            self.message_count = messages
            self.anon = anon
            self.activity = activity
            self.first_message = first_message
            self.tokens = tokens
            self.cost = cost
            self.model = model
            self.provider = provider
            self.text_length = text_length

    def _fold_object(self, obj: Any) -> None:
        """Fold in one line parsed whole (the reference rules, any value of any type)."""
        if type(obj) is not dict:
            return
        if self.status != _SESSION:
            self._header(obj)
            return
        get = obj.get
        etype = get("type")
        if etype == "session":
            return  # a second header line: pi ignores it
        self.entries += 1
        parent_id = get("parentId")
        if type(parent_id) is str:
            if parent_id in self.childless:
                self.childless.discard(parent_id)
            else:
                self.branched.add(parent_id)
        entry_id = get("id")
        if type(entry_id) is str:
            if entry_id not in self.branched:
                self.childless.add(entry_id)
        else:
            self.anon += 1
        usage: Any = None
        if etype == "message":
            self.message_count += 1
            message = get("message")
            if type(message) is not dict:
                return
            mget = message.get
            role = mget("role")
            if role == "assistant":
                usage = mget("usage")
                found_model = mget("model")
                if type(found_model) is str:
                    self.model = found_model
                    found_provider = mget("provider")
                    self.provider = found_provider if type(found_provider) is str else None
            elif role == "toolResult":
                usage = mget("usage")
            elif role != "user":
                return
            if (role == "user" or role == "assistant") and "content" in message:
                stamp = mget("timestamp")
                value: Any
                if type(stamp) is int or type(stamp) is float:
                    value = stamp if -MAX_DATE_MS <= stamp <= MAX_DATE_MS else None
                else:
                    value = js_date_ms(get("timestamp"))
                if value is not None:
                    if self.activity is None:
                        self.activity = value if value > 0 else 0
                    elif value > self.activity:
                        self.activity = value
                text = joined_text(message["content"])
                if text:
                    self._add_text(text)
                    if self.first_message is None and role == "user":
                        self.first_message = text
        elif etype == "compaction" or etype == "branch_summary" or etype == "usage":
            usage = get("usage")
        elif etype == "session_info" or etype == "label":
            self._other(etype, get("name"), get("targetId"), get("label"), get("timestamp"))
        if type(usage) is dict:
            inp, out, read, write, spent = usage_numbers(usage)
            self.tokens += inp + out + read + write
            self.cost += spent

    def with_tail(self, tail: bytes, *, at_start: bool = False) -> SummaryState:
        """The summary if ``tail`` (an unterminated last line) were complete: pi reads such a
        line when it parses. Returns ``self`` when it adds nothing; else a changed copy."""
        if not tail or tail.isspace() or self.status == _NOT_A_SESSION:
            return self
        if not at_start and tail.startswith(BOM):
            return self  # (only the file's first bytes may be a BOM: JSON.parse refuses U+FEFF)
        obj, _, _ = parse_json_line(tail.removeprefix(BOM))
        if type(obj) is not dict:
            return self
        copy = self.clone()
        copy.feed(tail + b"\n")
        return copy

    def clone(self) -> SummaryState:
        copy = SummaryState()
        for slot in SummaryState.__slots__:
            setattr(copy, slot, getattr(self, slot))
        copy.parts = list(self.parts)
        copy.labels = dict(self.labels)
        copy.label_times = dict(self.label_times)
        copy.childless = set(self.childless)
        copy.branched = set(self.branched)
        return copy

    def _header(self, obj: dict[str, Any]) -> None:
        """The first JSON objects decide: a header (listed; marked when it has no string id),
        one line before a header (a fork's title line: listed, marked), anything else not a
        session."""
        if obj.get("type") != "session":
            if self.header_problem is None:
                self.header_problem = "line-before-header"  # (the next object decides)
            else:
                self.status = _NOT_A_SESSION
            return
        self.status = _SESSION
        entry_id = obj.get("id")
        if type(entry_id) is not str:
            entry_id = ""
            self.header_problem = self.header_problem or "no-id"
        self.id = entry_id
        cwd = obj.get("cwd")
        self.cwd = cwd if isinstance(cwd, str) else ""
        parent = obj.get("parentSession")
        self.parent = parent if isinstance(parent, str) else None
        stamp = obj.get("timestamp")
        self.created = js_date_ms(stamp)
        self.header_modified = self.created if isinstance(stamp, str) else None
        self.v1 = header_version(obj) < 2

    def _other(self, etype: Any, name: Any, target: Any, label: Any, stamp: Any) -> None:
        if etype == "session_info":
            # [new]: the latest session_info decides, an empty or blank name clears it
            self.name = (js_trim(name) or None) if isinstance(name, str) else None
        elif etype == "label" and isinstance(target, str):
            apply_label(
                self.labels,
                self.label_times,
                target,
                label_text(label),
                stamp if type(stamp) is str else None,
            )

    def _add_text(self, text: str) -> None:
        if self.text_length:  # texts are never empty, so a length means one came before
            self.text_length += 1
        self.text_length += len(text) if text.isascii() else utf16_len(text)
        if self.texts:
            self._keep_text(text)

    def _keep_text(self, text: str) -> None:
        """Keep ``text`` in allMessagesText (its length is counted by the caller)."""
        room = SEARCH_TEXT_CAP - self.text_chars
        if room <= 0:
            return
        if self.text_chars:
            self.parts.append(" ")
            self.text_chars += 1
            room -= 1
        piece = text if len(text) <= room else text[:room]
        self.parts.append(piece)
        self.text_chars += len(piece)

    # -------------------------------------------------------------------- results

    @property
    def text(self) -> str:
        """allMessagesText (up to :data:`SEARCH_TEXT_CAP` characters)."""
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""

    @property
    def last_model(self) -> str | None:
        if self.model is None:
            return None
        return f"{self.provider}/{self.model}" if self.provider is not None else self.model

    @property
    def branch_count(self) -> int:
        if self.v1 and self.anon:
            return 1 if self.entries else 0  # a v1 file is one chain once migrated
        return len(self.childless) + self.anon

    def info(self, path: str, size: int, mtime_ns: int) -> SessionInfo | None:
        """The listing record, or ``None`` when the file is not (yet) a session."""
        if self.status != _SESSION:
            return None
        activity = self.activity
        if activity is not None and activity > 0:
            modified = int(activity)
        elif self.header_modified is not None:
            modified = int(self.header_modified)
        else:
            modified = mtime_ns // 1_000_000  # Node's stats.mtime: whole milliseconds
        created = self.created
        return SessionInfo(
            path=path,
            id=self.id,
            cwd=self.cwd,
            name=self.name,
            parent_session_path=self.parent,
            created=iso_from_ms(created) if created is not None else None,
            modified=modified,
            modified_iso=iso_from_ms(modified),
            message_count=self.message_count,
            first_message=self.first_message if self.first_message is not None else NO_MESSAGES,
            text_length=self.text_length,
            branch_count=self.branch_count,
            entry_count=self.entries,
            labels=dict(self.labels),
            label_times=dict(self.label_times),
            last_model=self.last_model,
            total_tokens=int(self.tokens),
            cost=self.cost,
            size=size,
            all_messages_text=self.text if self.texts else None,
            header_problem=self.header_problem,
        )

    def to_json(self) -> dict[str, Any]:
        """Everything but the text (stored apart, see :attr:`text`)."""
        return {
            "status": self.status,
            "id": self.id,
            "cwd": self.cwd,
            "parent": self.parent,
            "created": self.created,
            "headerModified": self.header_modified,
            "v1": self.v1,
            "headerProblem": self.header_problem,
            "name": self.name,
            "messageCount": self.message_count,
            "firstMessage": self.first_message,
            "textChars": self.text_chars,
            "textLength": self.text_length,
            "activity": self.activity,
            "labels": self.labels,
            "labelTimes": self.label_times,
            "model": self.model,
            "provider": self.provider,
            "tokens": self.tokens,
            "cost": self.cost,
            "entries": self.entries,
            "childless": sorted(self.childless),
            "branched": sorted(self.branched),
            "anon": self.anon,
            "texts": self.texts,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], text: str) -> SummaryState:
        state = cls()
        state.status = data["status"]
        state.id = data["id"]
        state.cwd = data["cwd"]
        state.parent = data["parent"]
        state.created = data["created"]
        state.header_modified = data["headerModified"]
        state.v1 = data["v1"]
        state.header_problem = data["headerProblem"]
        state.name = data["name"]
        state.message_count = data["messageCount"]
        state.first_message = data["firstMessage"]
        state.text_chars = data["textChars"]
        state.text_length = data["textLength"]
        state.activity = data["activity"]
        state.labels = dict(data["labels"])
        state.label_times = dict(data["labelTimes"])
        state.model = data["model"]
        state.provider = data["provider"]
        state.tokens = data["tokens"]
        state.cost = data["cost"]
        state.entries = data["entries"]
        state.childless = set(data["childless"])
        state.branched = set(data["branched"])
        state.anon = data["anon"]
        state.texts = data.get("texts", True)
        state.parts = [text] if text else []
        return state
