"""Full text: what a search finds in an entry, the FTS5 query of a user's words, the bodies of a
file's lines for the index, and a hit's snippet re-read from its file.

The index (:mod:`pitui.core.index`) stores the bodies in a contentless FTS5 table; a hit names the
file, the entry id and the entry's byte range. :func:`extract_bodies` runs in the store's process
pool (:mod:`pitui.core.pools`) on a cold index.
"""

from __future__ import annotations

import os
import re
from typing import Any

from pitui.core.js import JS_WHITESPACE, js_trim
from pitui.core.record import Record

__all__ = [
    "FTS_BODY_CAP",
    "FtsResult",
    "FtsTask",
    "TextHit",
    "entry_body",
    "extract_bodies",
    "fts_match_expression",
    "hit_snippet",
    "sql_text",
]

# Characters of one message body given to the full-text index (a 10 MB tool output is cut).
FTS_BODY_CAP = 256 * 1024


class TextHit(Record):
    """One full-text hit: the session file and the entry (id and byte range of its line).

    ``entry_id`` is what :class:`~pitui.core.session.Session` calls the entry's uid for ordinary
    files (the entry id; ``#<line>`` for an entry without id; the migrated id of a v1 file). If
    a file repeats an id, ``offset`` is what identifies the entry (``EntryMeta.offset``).
    """

    __slots__ = ("entry_id", "kind", "length", "offset", "path", "rank")

    def __init__(
        self,
        path: str,
        entry_id: str,
        kind: str,  # user, assistant, toolResult, bashExecution, custom, compaction, …
        offset: int,
        length: int,
        rank: float | None,  # FTS5 bm25 rank (lower is better); None: too many matches
    ) -> None:
        self.path = path
        self.entry_id = entry_id
        self.kind = kind
        self.offset = offset
        self.length = length
        self.rank = rank


class FtsTask(Record):
    __slots__ = ("file", "line", "path", "start")

    def __init__(self, file: int, path: str, start: int, line: int) -> None:
        self.file = file
        self.path = path
        self.start = start
        self.line = line


class FtsResult(Record):
    __slots__ = ("docs", "end", "error", "file", "line", "path")

    def __init__(
        self,
        file: int,
        path: str,
        end: int,  # offset after the last complete line read
        line: int,  # line number at ``end``
        docs: list[tuple[str, str, int, int, str]],  # (entry_id, kind, offset, length, body)
        error: str | None = None,
    ) -> None:
        self.file = file
        self.path = path
        self.end = end
        self.line = line
        self.docs = docs
        self.error = error


_SURROGATE = re.compile("[\ud800-\udfff]")


def sql_text(text: str) -> str:
    """Text SQLite can store (UTF-8): lone surrogates become U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def _fts_terms(query: str) -> list[tuple[str, bool]]:
    """``(text, is_prefix)`` of each word and ``"quoted phrase"`` of a full-text query."""
    terms: list[tuple[str, bool]] = []
    current: list[str] = []
    in_phrase = False

    def flush(phrase: bool) -> None:
        word = js_trim("".join(current))
        current.clear()
        prefix = not phrase and len(word) > 1 and word.endswith("*") and word.strip("*") != ""
        word = word.rstrip("*") if prefix else word
        if word:
            terms.append((word, prefix))

    for char in query:
        if char == '"':
            flush(in_phrase)
            in_phrase = not in_phrase
        elif not in_phrase and char in JS_WHITESPACE:
            flush(False)
        else:
            current.append(char)
    flush(in_phrase)
    return terms


def fts_match_expression(query: str) -> str | None:
    """A user query as an FTS5 expression: words and ``"quoted phrases"`` must all occur (any
    order, case and accents ignored); a word ending in ``*`` matches as a prefix. FTS5 operators
    in the input are taken literally, so no input is a syntax error. ``None`` if nothing to find.
    """
    terms = _fts_terms(query)
    if not terms:
        return None
    return " ".join(
        '"' + text.replace('"', '""') + '"' + ("*" if prefix else "") for text, prefix in terms
    )


def _texts(content: Any, sep: str = "\n") -> str:
    if isinstance(content, str):
        return content
    if type(content) is not list:
        return ""
    return sep.join(
        text
        for block in content
        if type(block) is dict
        and block.get("type") == "text"
        and isinstance(text := block.get("text"), str)
    )


def entry_body(obj: dict[str, Any]) -> tuple[str, str] | None:
    """``(kind, text)`` a full-text search finds in one entry, or ``None`` for entries without a
    message body (labels, model changes, …). Thinking and tool-call arguments are left out."""
    etype = obj.get("type")
    if etype == "message":
        message = obj.get("message")
        if type(message) is not dict:
            return None
        role = message.get("role")
        if not isinstance(role, str):
            return None
        if role == "bashExecution":
            command = message.get("command")
            output = message.get("output")
            parts = [p for p in (command, output) if isinstance(p, str) and p]
            return (role, "\n".join(parts)) if parts else None
        if role in ("branchSummary", "compactionSummary"):
            summary = message.get("summary")
            return (role, summary) if isinstance(summary, str) and summary else None
        text = _texts(message.get("content"))
        return (role, text) if text else None
    if etype == "custom_message":
        text = _texts(obj.get("content"))
        return ("custom_message", text) if text else None
    if etype in ("compaction", "branch_summary"):
        summary = obj.get("summary")
        return (etype, summary) if isinstance(summary, str) and summary else None
    return None


def extract_bodies(task: FtsTask) -> FtsResult:
    """Worker: the bodies of the complete lines of ``task.path`` from ``task.start``."""
    try:
        fd = os.open(task.path, os.O_RDONLY)
    except OSError as exc:
        return FtsResult(task.file, task.path, task.start, task.line, [], exc.strerror or str(exc))
    try:
        return _extract(fd, task)
    except OSError as exc:
        return FtsResult(task.file, task.path, task.start, task.line, [], exc.strerror or str(exc))
    finally:
        os.close(fd)


def _extract(fd: int, task: FtsTask) -> FtsResult:
    from pitui.core.jsonl import BOM, parse_json_line, read_lines
    from pitui.core.migrate import header_version, v1_id

    size = os.fstat(fd).st_size
    docs: list[tuple[str, str, int, int, str]] = []
    v1 = False
    seen_header = task.start > 0
    if seen_header:  # ids of a v1 file come from line numbers: its header says which it is
        first = os.pread(fd, min(size, 1 << 20), 0).split(b"\n", 1)[0].removeprefix(BOM)
        header, _, _ = parse_json_line(first)
        v1 = type(header) is dict and header_version(header) < 2
    line_no = task.line
    buf_offset = task.start  # file offset of the buffer handed to consume

    def consume(buf: bytes, at_start: bool) -> int:
        nonlocal line_no, seen_header, v1, buf_offset
        pos = 0
        while True:
            nl = buf.find(b"\n", pos)
            if nl < 0:
                break
            line_start, number = pos, line_no
            line = buf[pos:nl]
            pos = nl + 1
            line_no += 1
            if at_start and line_start == 0:
                line = line.removeprefix(BOM)
            if not line or line.isspace():
                continue
            obj, _, _ = parse_json_line(line)
            if type(obj) is not dict:
                continue
            if not seen_header:
                seen_header = True
                v1 = header_version(obj) < 2
                continue
            found = entry_body(obj) if obj.get("type") != "session" else None
            if found is None:
                continue
            eid = obj.get("id")
            uid = eid if isinstance(eid, str) else v1_id(number) if v1 else f"#{number}"
            kind, text = found
            docs.append(
                (
                    sql_text(uid),
                    sql_text(kind),
                    buf_offset + line_start,
                    nl - line_start,
                    sql_text(text[:FTS_BODY_CAP]),
                )
            )
        buf_offset += pos
        return pos

    end, _tail = read_lines(fd, task.start, size, consume)
    return FtsResult(task.file, task.path, end, line_no, docs)


def _line_text(path: str, offset: int, length: int) -> dict[str, Any] | None:
    from pitui.core.jsonl import BOM, parse_json_line

    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read(length)
    except OSError:
        return None
    obj, _, _ = parse_json_line(data.removeprefix(BOM))
    return obj if type(obj) is dict else None


def hit_snippet(hit: TextHit, query: str, width: int = 160) -> str:
    """One line of the hit's body around the first query term (re-read from the session file;
    ``""`` if the entry is gone). Line breaks and tabs become spaces; not sanitised for display."""
    obj = _line_text(hit.path, hit.offset, hit.length)
    found = entry_body(obj) if obj is not None else None
    if found is None:
        return ""
    text = " ".join(found[1].split())
    lowered = text.lower()
    position = -1
    for term, _ in _fts_terms(query):
        position = lowered.find(term.lower())
        if position >= 0:
            break
    start = max(0, position - width // 3) if position >= 0 else 0
    piece = text[start : start + width]
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(text) else "")
