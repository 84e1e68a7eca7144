"""The lines of a file that cannot be read as a session, each with what pi makes of it.

The session view shows these when a file fails pi's header check (format §2.1, §14: a line
before the header, a header without a string id, a file in another format): pi 0.73.1 would
overwrite such a file with a fresh header when it opens it, pi 1.6.0 refuses it, pitui refuses it
and shows its lines instead, so the user can see what is there and why it is not a session.

Lines are split on ``\\n`` only (never ``str.splitlines``) and parsed as pi parses them. At most
:data:`MAX_LINES` lines and :data:`MAX_BYTES` bytes are read; each line's text is cut to
:data:`PREVIEW_CHARS` characters (a line can be megabytes of base64).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from pitui.core.jsonl import parse_json_line

__all__ = ["MAX_BYTES", "MAX_LINES", "PREVIEW_CHARS", "RawLine", "RawLines", "read_raw_lines"]

MAX_LINES = 5_000
MAX_BYTES = 8 * 1024 * 1024
PREVIEW_CHARS = 300

_REFUSED = "pi 1.x refuses the file; pi 0.73.1 overwrites it with a fresh header when it opens it"


@dataclass(frozen=True, slots=True)
class RawLine:
    number: int  # 1-based
    offset: int  # byte offset of the line's start
    size: int  # bytes, without the newline
    text: str  # the start of the line, decoded as Node would (U+FFFD for bad bytes)
    cut: bool  # text is only the start of the line (PREVIEW_CHARS)
    verdict: str  # what pi makes of the line
    problem: bool  # the line is why the file is not a session, or is skipped by pi


@dataclass(frozen=True, slots=True)
class RawLines:
    path: str
    size: int  # bytes on disk
    lines: tuple[RawLine, ...]
    truncated: bool  # more lines than were read
    reason: str  # why the file is not a session, in one line


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool) or value is None:
        return "a literal"
    return "a number"


def _describe_object(obj: dict[str, object]) -> str:
    kind = obj.get("type")
    kind_text = f"type {kind!r}" if isinstance(kind, str) else "no type"
    entry_id = obj.get("id")
    id_text = f", id {entry_id!r}" if isinstance(entry_id, str) else ", no id"
    return kind_text + id_text


class _Judge:
    """pi's header check, line by line: what each line is, and the first reason to refuse."""

    def __init__(self) -> None:
        self.header_seen = False
        self.object_seen = False
        self.reason: str | None = None

    def verdict(self, raw: bytes) -> tuple[str, bool]:
        """(what pi makes of the line, whether it is a problem)."""
        value, kind, why = parse_json_line(raw)
        if value is None:
            return ("blank: skipped", False) if kind is None else (f"{why}: pi skips it", True)
        if not isinstance(value, dict):
            return f"JSON {_json_kind(value)}, not an object: skipped", True
        described = _describe_object(value)
        first, self.object_seen = not self.object_seen, True
        is_session = value.get("type") == "session"
        if first and is_session and isinstance(value.get("id"), str):
            self.header_seen = True
            return f"the session header ({described})", False
        if first:
            if is_session:
                self.reason = "its session header has no string id"
            elif value.get("kind") == "header":
                self.reason = "it is in another harness's format (a 'kind: header' first line)"
            else:
                self.reason = f"its first JSON object is not a session header ({described})"
            return f"not a session header: {_REFUSED}", True
        if is_session:
            where = "a second session header" if self.header_seen else "a session header, too late"
            note = "pi reads only the first JSON object as the header"
            return f"{where} ({described}): {note}", not self.header_seen
        return f"an entry ({described})", False


def read_raw_lines(path: str) -> RawLines:
    """Read the start of a file as raw lines. Raises OSError when it cannot be read."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(MAX_BYTES)
    truncated = len(data) < size
    lines: list[RawLine] = []
    judge = _Judge()
    offset = 0
    while offset < len(data) and len(lines) < MAX_LINES:
        end = data.find(b"\n", offset)
        cut = end < 0  # the last line read has no newline (or was cut by MAX_BYTES)
        raw = data[offset:] if cut else data[offset:end]
        # pi 0.73.1 trims a byte order mark before parsing (1.x does not)
        bare = raw[3:] if offset == 0 and raw.startswith(b"\xef\xbb\xbf") else raw
        verdict, problem = judge.verdict(bare.rstrip(b"\r"))
        if cut and not truncated:
            verdict += " (no newline at the end)"
        text = raw.decode("utf-8", "replace")
        number = len(lines) + 1
        short = text[:PREVIEW_CHARS]
        lines.append(
            RawLine(number, offset, len(raw), short, len(short) < len(text), verdict, problem)
        )
        if cut:
            break
        offset = end + 1
    truncated = truncated or offset < len(data)
    reason = judge.reason
    if reason is None:
        reason = "it holds no JSON object" if not judge.object_seen else "it is not a session"
    return RawLines(path, size, tuple(lines), truncated, f"Not a pi session: {reason}.")
