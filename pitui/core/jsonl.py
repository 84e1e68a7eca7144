"""The tolerant JSONL reader.

Bytes split on ``\\n`` only, one orjson parse per line, byte offsets kept.

Nothing in here raises because of what a file contains. Every line that cannot be used becomes a
:class:`~pitui.core.problems.Problem`; an unterminated last line is held back as
*pending* (pi may be in the middle of writing it) unless the caller says the file is final.
"""

from __future__ import annotations

import io
import json
import mmap
import os
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import Any

import orjson

from pitui.core.js import js_trim
from pitui.core.paths import open_regular
from pitui.core.problems import Problem, ProblemKind

BOM = b"\xef\xbb\xbf"
_BOM_REASON = "UTF-8 byte order mark at the start; pi 1.x will refuse this file (BOM)"
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


# A file is read this many bytes at a time (a longer line is read whole, in a larger read): small
# enough to stay in the CPU's cache while its lines are decoded (a tenth less time than 4 MB
# reads here). Not mapped: the pages of a big file would count in the process's memory while it
# is read, and a file truncated while mapped kills the process (SIGBUS).
CHUNK_SIZE = 256 << 10


def read_range(source: Buffer | int, offset: int, length: int) -> bytes:
    """The bytes of ``source`` (content or file descriptor) at ``offset`` (fewer at its end)."""
    if isinstance(source, int):
        return os.pread(source, max(0, length), offset)
    return bytes(source[offset : offset + length])


class Lines:
    """The one line reader: the lines of ``source`` from ``start`` (line ``line_no``), and how
    the read ended. Every reader of session files (the session index, the listing summary,
    refresh, the doctor, the watcher) folds over it; the decoding of each line is the caller's.

    ``source`` is the content (bytes, or an mmap), or an open file descriptor, read in chunks of
    :data:`CHUNK_SIZE` up to the size it has when the reader is made.

    Iterating yields ``(line_no, offset, end, line)`` for every line that is not blank: ``line``
    is its bytes with the ``\n`` still on (white space to JSON; one copy less), ``offset`` and
    ``end`` its byte range without the ``\n``. A UTF-8 byte order mark at the start of the file
    (``offset == 0``) is reported and left out of ``line`` (but not of the range).

    A final line without ``\n`` is *pending* while the file may still be growing (``final``
    false: pi may be writing it): it is not yielded, ``pending`` is its length. Once the file is
    quiet (``final``) it is yielded, and :meth:`recover` reports it as truncated if it does not
    parse.

    After the loop: ``end_offset`` (where the next read starts: after the last line consumed),
    ``next_line_no`` (the number of the line there), ``pending``, and ``problems`` (BOM, and
    what :meth:`recover` and :meth:`not_an_object` reported).
    """

    __slots__ = ("_final", "_source", "_tail", "end_offset", "next_line_no", "pending",
                 "problems", "size")  # fmt: skip

    def __init__(
        self, source: Buffer | int, start: int = 0, line_no: int = 1, *, final: bool
    ) -> None:
        self._source = source
        self.size = os.fstat(source).st_size if isinstance(source, int) else len(source)
        self._final = final
        self._tail = -1  # offset of the unterminated last line, once it is yielded
        self.end_offset = start
        self.next_line_no = line_no
        self.pending = 0
        self.problems: list[Problem] = []

    def _blocks(self, pos: int) -> Iterator[tuple[int, Buffer, bool]]:
        """``(offset, data, last)``: the source from ``pos`` in pieces that end with ``\n``,
        but the ``last`` one, which ends where the source does."""
        source = self._source
        if not isinstance(source, int):
            yield 0, source, True
            return
        size = self.size
        while pos < size:
            data = os.pread(source, min(CHUNK_SIZE, size - pos), pos)
            if not data:
                return  # truncated under us: what was read is all there is
            if pos + len(data) < size and data.rfind(b"\n") < 0:
                # a line longer than a read: where it ends is found by reads not kept, then it
                # is read once, whole (reads of twice the size each time held two copies)
                end = _line_end(source, pos + len(data), size)
                del data
                data = os.pread(source, end - pos, pos)
                if data[-1:] != b"\n":  # the end of the file (or it shrank under us)
                    if data:
                        yield pos, data, True
                    return
            if pos + len(data) >= size:
                yield pos, data, True
                return
            yield pos, data, False
            pos = self.end_offset  # where the lines of that block ended

    def __iter__(self) -> Generator[tuple[int, int, int, bytes], None, None]:
        pos = self.end_offset
        line_no = self.next_line_no - 1  # from here on, the number of the last line read
        try:
            for base, data, last in self._blocks(pos):
                complete = base + data.rfind(b"\n", pos - base) + 1  # lines before end in \n
                # readline: one C call a line, a quarter fewer instructions than find and a
                # slice. An mmap's own position is moved; nothing else reads by it.
                stream = io.BytesIO(data) if isinstance(data, bytes) else data
                stream.seek(pos - base)
                for line in iter(stream.readline, b""):
                    start = pos
                    pos += len(line)
                    if pos > complete:  # a line without its \n in this block
                        if not last:
                            pos = start  # the next block starts with it
                            break
                        if not self._final:
                            self.pending = pos - start
                            pos = start
                            break
                        self._tail = start
                        end = pos
                    else:
                        end = pos - 1
                    line_no += 1
                    if start == 0 and line.startswith(BOM):
                        self.problems.append(Problem(ProblemKind.BOM, line_no, 0, _BOM_REASON))
                        line = line[len(BOM) :]
                    if line.isspace() or not line:
                        continue
                    yield line_no, start, end, line
                self.end_offset = pos  # where _blocks reads on
        finally:
            self.end_offset = pos
            self.next_line_no = line_no + 1

    def batches(self) -> Iterator[tuple[int, int, list[bytes]]]:
        """The rest of the source as lists of lines, for a caller that decodes many lines at
        once (split in C, no Python per line): ``(line_no, offset, lines)``, ``lines[0]`` being
        line ``line_no`` at ``offset``, each with its ``\n`` (but the unterminated last line,
        once ``final``, held back as pending before), blank ones included (the caller's). The
        end state is what iterating leaves. The first line of a file is read by iterating (its
        byte order mark)."""
        pos = self.end_offset
        if pos == 0:
            raise ValueError("Lines.batches: the first line is read by iterating (its BOM)")
        line_no = self.next_line_no
        for base, data, last in self._blocks(pos):
            for lines in _line_lists(data, pos - base):
                tail = lines[-1]
                if tail[-1:] != b"\n":  # the block's last line, without its \n
                    if not last:
                        lines.pop()  # the next block starts with it
                    elif not self._final:
                        lines.pop()
                        self.pending = len(tail)
                    else:
                        self._tail = pos + sum(map(len, lines)) - len(tail)
                    if not lines:
                        break
                yield line_no, pos, lines
                pos += sum(map(len, lines))
                line_no += len(lines)
                self.end_offset = pos  # (where _blocks reads on)
                self.next_line_no = line_no

    def chunks(self) -> Iterator[memoryview]:
        """The rest of the source as buffers of whole lines, for a caller that decodes many
        lines at once: each ends with ``\n`` (but the unterminated last line, once ``final``);
        ``end_offset`` and ``pending`` are left as iterating would leave them, ``next_line_no``
        is not kept (counting the lines would cost a quarter of decoding them). Blank lines
        are the caller's (a byte order mark only starts a file's first line: read that one by
        iterating)."""
        pos = self.end_offset
        for base, data, last in self._blocks(pos):
            begin = pos - base
            complete = max(begin, data.rfind(b"\n", begin) + 1)
            end = complete
            if last and complete < len(data):
                if self._final:
                    end = len(data)
                    self._tail = base + complete
                else:
                    self.pending = len(data) - complete
            pos = base + end
            self.end_offset = pos
            if end > begin:
                yield memoryview(data)[begin:end]  # (not copied)

    def parse(self, line_no: int, offset: int, line: bytes) -> dict[str, Any] | None:
        """The JSON object of a line, parsed whole; ``None`` (reported) if it is not one."""
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            obj = self.recover(line_no, offset, line)
            if obj is None:
                return None
        if type(obj) is not dict:
            self.not_an_object(line_no, offset, obj)
            return None
        return obj

    def recover(self, line_no: int, offset: int, line: bytes) -> Any:
        """A line the caller's decoder refused, as JSON.parse reads it: its value (invalid UTF-8
        replaced, lone surrogates kept; reported), or ``None`` when it is broken (reported;
        truncated if it is the unterminated last line) or only Unicode blanks (skipped)."""
        if line[-1:] == b"\n":
            line = line[:-1]
        value, kind, reason = parse_json_line(line)
        if kind is not None:
            if offset == self._tail and value is None:
                kind = ProblemKind.TRUNCATED
                reason = f"unterminated last line does not parse ({reason})"
            self.problems.append(Problem(kind, line_no, offset, reason))
        return value

    def not_an_object(self, line_no: int, offset: int, value: Any) -> None:
        """Report a line that is JSON but not an object (pi's entries are objects)."""
        self.problems.append(
            Problem(
                ProblemKind.MALFORMED,
                line_no,
                offset,
                f"a JSON {type(value).__name__}, not an object",
            )
        )


def _line_end(fd: int, at: int, size: int) -> int:
    """The offset after the next ``\n`` of the file from ``at`` (``size`` without one, or where
    the file ends if it shrank), read :data:`CHUNK_SIZE` at a time."""
    while at < size:
        piece = os.pread(fd, min(CHUNK_SIZE, size - at), at)
        if not piece:
            return at
        found = piece.find(b"\n")
        if found >= 0:
            return at + found + 1
        at += len(piece)
    return size


def _line_lists(data: Buffer, start: int) -> Iterator[list[bytes]]:
    """The lines of ``data`` from ``start``, a list at a time (:func:`_read_lines`); a block
    that is one line (a long one, read whole) is that line, not a copy of it."""
    if isinstance(data, bytes) and start == 0 and data.find(b"\n") in (-1, len(data) - 1):
        yield [data]
        return
    stream = io.BytesIO(data) if isinstance(data, bytes) else data
    stream.seek(start)
    while lines := _read_lines(stream):
        yield lines


def _read_lines(stream: io.BytesIO | mmap.mmap) -> list[bytes]:
    """The next lines of ``stream``, about :data:`CHUNK_SIZE` bytes of them (all of a read)."""
    if isinstance(stream, io.BytesIO):
        return stream.readlines(CHUNK_SIZE)
    return list(islice(iter(stream.readline, b""), 256))


def read_lines(
    fd: int, start: int, size: int, consume: Callable[[bytes, bool], int]
) -> tuple[int, bytes]:
    """Hand ``consume`` the file from ``start`` to ``size`` in buffers that start at a line
    start and end with ``\\n`` (the reads of :class:`Lines`), for a caller that splits them.

    ``consume(buf, at_file_start)`` returns how many bytes of ``buf`` it used (up to after its
    last ``\\n``); the rest is read again with the next buffer. Returns the file offset after
    the last consumed byte and the unconsumed tail (an unterminated last line).
    """
    lines = Lines(fd, start, final=False)
    lines.size = size
    tail = b""
    for base, data, last in lines._blocks(start):
        used = consume(bytes(data), base == 0)
        lines.end_offset = base + used
        if last:
            tail = bytes(data[used:])
    return lines.end_offset, tail


def objects(lines: Lines) -> Iterator[tuple[int, int, int, dict[str, Any]]]:
    """``(line_no, offset, length, obj)`` of each line of ``lines`` that parses (orjson, else as
    JSON.parse would) to a JSON object; the others are reported in ``lines.problems``."""
    parse = lines.parse
    for line_no, offset, end, line in lines:
        obj = parse(line_no, offset, line)
        if obj is not None:
            yield line_no, offset, end - offset, obj


class LineReader:
    """Iterate the JSON objects of a buffer from ``start``, each parsed whole with orjson.

    Yields ``(line_no, offset, length, obj)`` for each line that parses to a JSON object
    (``offset`` and ``length`` without its ``\\n``); every other line is a problem. The end
    state (``end_offset``, ``next_line_no``, ``pending``, ``problems``) is that of :class:`Lines`.
    """

    __slots__ = ("_lines",)

    def __init__(
        self, source: Buffer | int, start: int = 0, line_no: int = 1, *, final: bool
    ) -> None:
        self._lines = Lines(source, start, line_no, final=final)

    def __iter__(self) -> Iterator[tuple[int, int, int, dict[str, Any]]]:
        return objects(self._lines)

    @property
    def end_offset(self) -> int:
        return self._lines.end_offset

    @property
    def next_line_no(self) -> int:
        return self._lines.next_line_no

    @property
    def pending(self) -> int:
        return self._lines.pending

    @property
    def problems(self) -> list[Problem]:
        return self._lines.problems


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


def has_session_header(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular file whose first line is a pi session header
    (``{"type":"session",…}``, a BOM allowed): what an export must never overwrite, and what
    pi or pitui may have trashed."""
    try:
        with open(open_regular(path), "rb") as handle:
            first = handle.readline(1 << 20)
    except OSError:
        return False
    try:
        header = orjson.loads(first.removeprefix(BOM))
    except orjson.JSONDecodeError:
        return False
    return isinstance(header, dict) and header.get("type") == "session"
