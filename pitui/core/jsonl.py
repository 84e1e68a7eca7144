"""The tolerant JSONL reader.

Bytes split on ``\\n`` only, one orjson parse per line, byte offsets kept.

Nothing in here raises because of what a file contains. Every line that cannot be used becomes a
:class:`~pitui.core.problems.Problem`; an unterminated last line is held back as
*pending* (pi may be in the middle of writing it) unless the caller says the file is final.
"""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson

from pitui.core.js import js_trim
from pitui.core.paths import open_regular
from pitui.core.problems import Problem, ProblemKind

BOM = b"\xef\xbb\xbf"
# A read buffer: an mmap of the file, or bytes for small or in-memory content.
Buffer = bytes | mmap.mmap


def _reject_constant(name: str) -> Any:
    # JSON.parse (and so pi) refuses NaN and Infinity; Python's parser would accept them
    raise ValueError(f"{name} is not JSON")


def parse_json_line(line: bytes) -> tuple[Any, ProblemKind | None, str]:
    """Parse one line as Node would: invalid UTF-8 becomes U+FFFD, lone surrogate escapes are kept.

    Returns ``(value, problem_kind, reason)``; value is ``None`` when the line is unusable.
    """
    try:
        return orjson.loads(line), None, ""
    except orjson.JSONDecodeError as exc:
        first_error = str(exc)
    # orjson refuses invalid UTF-8 and lone surrogate escapes (`"\ud83d"`), both of which
    # JSON.parse in Node accepts; the standard library parser handles the decoded text the same way.
    text = line.decode("utf-8", "replace")
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        if not js_trim(text):
            return None, None, ""  # a line of Unicode blanks: pi skips it without a word
        return None, ProblemKind.MALFORMED, f"not valid JSON: {first_error}"
    if "\ufffd" in text and b"\xef\xbf\xbd" not in line:
        return value, ProblemKind.INVALID_UTF8, "invalid UTF-8 bytes replaced by U+FFFD"
    return value, None, ""


class LineReader:
    """Iterate the JSON objects of a buffer from ``start``; afterwards read the end state.

    Yields ``(line_no, offset, length, obj)`` for each line that parses to a JSON object. ``offset``
    and ``length`` cover the line without its ``\\n``. After the loop:

    - ``end_offset``: where the next read must start (after the last complete line consumed);
    - ``next_line_no``: the line number of the line at ``end_offset``;
    - ``pending``: byte length of an unterminated tail that was held back (0 if none);
    - ``problems``: everything skipped, with line and byte offset.
    """

    __slots__ = ("_buf", "_final", "end_offset", "next_line_no", "pending", "problems")

    def __init__(self, buf: Buffer, start: int = 0, line_no: int = 1, *, final: bool) -> None:
        self._buf = buf
        self._final = final
        self.end_offset = start
        self.next_line_no = line_no
        self.pending = 0
        self.problems: list[Problem] = []

    def __iter__(self) -> Iterator[tuple[int, int, int, dict[str, Any]]]:
        buf = self._buf
        size = len(buf)
        pos = self.end_offset
        line_no = self.next_line_no
        find = buf.find
        loads = orjson.loads
        problems = self.problems
        while pos < size:
            nl = find(b"\n", pos)
            if nl < 0:
                if not self._final:
                    self.pending = size - pos
                    break
                end = size
            else:
                end = nl
            line = buf[pos:end]
            start = pos
            pos = end + 1 if nl >= 0 else size
            self.end_offset = pos
            current = line_no
            line_no += 1
            self.next_line_no = line_no
            if start == 0 and line.startswith(BOM):
                problems.append(
                    Problem(
                        ProblemKind.BOM,
                        current,
                        0,
                        "UTF-8 byte order mark at the start; pi 1.x will refuse this file (BOM)",
                    )
                )
                line = line[len(BOM) :]
            if not line or line.isspace():
                continue
            try:
                obj = loads(line)
            except orjson.JSONDecodeError:
                obj, kind, reason = parse_json_line(line)
                if kind is not None:
                    if nl < 0 and obj is None:
                        kind = ProblemKind.TRUNCATED
                        reason = f"unterminated last line does not parse ({reason})"
                    problems.append(Problem(kind, current, start, reason))
                if obj is None:
                    continue
            if type(obj) is not dict:
                problems.append(
                    Problem(
                        ProblemKind.MALFORMED,
                        current,
                        start,
                        f"a JSON {type(obj).__name__}, not an object",
                    )
                )
                continue
            yield current, start, end - start, obj


@contextmanager
def open_buffer(path: str | os.PathLike[str]) -> Iterator[Buffer]:
    """The file's bytes as a read-only mmap (no copy of a 200 MB file), or ``b""`` when empty."""
    with open(open_regular(path), "rb") as handle:  # (a FIFO is refused, never waited on)
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            yield b""
            return
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            yield mapped
        finally:
            mapped.close()


def read_line_at(fd: int, offset: int, length: int) -> bytes:
    """Read one line by its byte range (used to decode an entry only when something shows it)."""
    chunks: list[bytes] = []
    at_start = offset == 0
    remaining = length
    while remaining > 0:
        chunk = os.pread(fd, remaining, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
        remaining -= len(chunk)
    data = b"".join(chunks)
    if at_start and data.startswith(BOM):
        data = data[len(BOM) :]
    return data
