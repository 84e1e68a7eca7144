"""One file's listing summary, read from its start or from where the index stopped.

:func:`summarise_file` opens a file once and folds its complete lines into a
:class:`~pitui.core.summary.SummaryState`: from the start, or, given a :class:`Resume` (what the
index kept of the last read: the offset, the hash of the first line, the bytes just before the
offset and the state), from that offset when the file only grew (the same first line and the
same bytes before the offset; anything else is a file rewritten in place, read whole). The
:class:`FileSummary` is what the index stores and the listing shows: the key of the open file,
the offset of the complete lines, the state to resume from, the texts, and the session's row,
JSON element and sort fields (made here, in the pool's worker, so that the parent builds no
``SessionInfo``).
"""

from __future__ import annotations

import os
from typing import Any

from pitui.core.jsonl import Lines, read_range
from pitui.core.memory import collector_paused
from pitui.core.record import Record
from pitui.core.session_info import Brief, brief_of, listing_element
from pitui.core.summary import SummaryState, dump_json, load_json

__all__ = ["FileSummary", "Resume", "summarise_file"]

# Bytes before the parsed offset remembered to notice a file rewritten in place.
_SEAM = 64
# Bytes of the first line hashed to notice a replaced file (a header line is far shorter).
_HEAD_MAX = 64 * 1024
# A file up to this size is read in one call (a bigger one in the line reader's chunks).
_WHOLE_READ = 1 << 20


class Resume(Record):
    """Where a previous summary of a file stopped (from the index)."""

    __slots__ = ("head", "offset", "seam", "state", "text")

    def __init__(self, offset: int, head: bytes, seam: bytes, state: bytes, text: str) -> None:
        self.offset = offset
        self.head = head
        self.seam = seam
        self.state = state  # SummaryState.to_json() as JSON
        self.text = text

    def __reduce__(self) -> tuple[type[Resume], tuple[Any, ...]]:
        return Resume, (self.offset, self.head, self.seam, self.state, self.text)


class FileSummary(Record):
    """The result of summarising one file: what the index stores and what the listing shows.

    ``key`` is ``(size, mtime_ns, inode, device)`` from the open file; ``offset`` is where the
    complete lines end; ``row`` is ``SessionInfo.to_row()`` or ``None`` (not a session, or not
    readable: then ``error`` says why). ``brief`` and ``listing`` are what ``pitui list --json``
    needs of the session, made in the worker so that the parent builds no ``SessionInfo``.
    """

    __slots__ = (
        "brief", "error", "head", "key", "listing", "offset", "path", "resumed", "row", "seam",
        "state", "text", "text_tail", "texts",
    )  # fmt: skip

    def __init__(
        self,
        path: str,
        key: tuple[int, int, int, int],
        head: bytes = b"",
        seam: bytes = b"",
        offset: int = 0,
        state: bytes = b"",
        text: str = "",  # allMessagesText of the complete lines (what a resumed parse goes on)
        text_tail: str = "",  # what an unterminated last line that parses adds to it
        row: list[Any] | None = None,
        error: str | None = None,
        resumed: bool = False,  # parsed from a previous offset (not from the start)
        listing: bytes | None = None,  # listing_element() of the session (made in the worker)
        texts: bool = True,  # text and text_tail hold the message texts (False: not read)
        brief: Brief | None = None,  # the session's sort and filter fields (see Brief)
    ) -> None:
        self.path = path
        self.key = key
        self.head = head
        self.seam = seam
        self.offset = offset
        self.state = state
        self.text = text
        self.text_tail = text_tail
        self.row = row
        self.error = error
        self.resumed = resumed
        self.listing = listing
        self.texts = texts
        self.brief = brief

    def __reduce__(self) -> tuple[type[FileSummary], tuple[Any, ...]]:
        # (a constructor call: pool results are unpickled by the thousand)
        return FileSummary, (
            self.path, self.key, self.head, self.seam, self.offset, self.state, self.text,
            self.text_tail, self.row, self.error, self.resumed, self.listing, self.texts,
            self.brief,
        )  # fmt: skip

    @property
    def search_text(self) -> str | None:
        """allMessagesText as listed (the complete lines plus a parseable unterminated one),
        ``None`` when the texts were not read."""
        return self.text + self.text_tail if self.texts else None


def _head_hash(first_line: bytes | memoryview) -> bytes:
    try:  # hashlib's own blake2b, without the OpenSSL bindings hashlib loads first (5 ms)
        from _blake2 import blake2b
    except ImportError:  # (a Python built without it)
        from hashlib import blake2b

    return blake2b(first_line[:_HEAD_MAX], digest_size=16).digest()


def _read_head(fd: int, size: int) -> bytes:
    """Hash of the file's first line, or b"" if it has no complete first line yet."""
    data = os.pread(fd, min(size, 4096), 0)  # (a header line is far shorter)
    if b"\n" not in data and len(data) < size:
        data = os.pread(fd, min(size, _HEAD_MAX + 1), 0)
    return _head_of(data)


def _head_of(data: bytes) -> bytes:
    """:func:`_read_head` of a file whose first bytes are ``data`` (all of them, or at least
    ``_HEAD_MAX + 1``)."""
    nl = data.find(b"\n", 0, _HEAD_MAX + 1)
    if nl < 0:
        return b"" if len(data) <= _HEAD_MAX else _head_hash(data)
    return _head_hash(data[:nl])


def summarise_file(path: str, resume: Resume | None = None, *, texts: bool = True) -> FileSummary:
    """Summarise ``path``, from ``resume`` when the file only grew since (else from the start).

    ``texts=False`` counts the message texts without keeping them (a listing that will not
    search); a resumed summary that kept them goes on keeping them, and one that did not is
    not resumed when ``texts`` are asked for.

    Never raises for what a file contains or for a file that vanished: the result then has
    ``error`` set and no row.
    """
    with collector_paused():  # many short-lived dicts and no cycles
        return _summarise(path, resume, texts)


def _summarise(path: str, resume: Resume | None, texts: bool) -> FileSummary:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        return FileSummary(path, (0, 0, 0, 0), error=exc.strerror or str(exc))
    try:
        st = os.fstat(fd)
        key = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)
        size = st.st_size
        state: SummaryState | None = None
        start = 0
        head = b""
        if resume is not None and resume.offset <= size:
            head = _read_head(fd, size)
            seam_start = max(0, resume.offset - _SEAM)
            if head == resume.head and os.pread(fd, resume.offset - seam_start, seam_start) == (
                resume.seam
            ):
                state = SummaryState.from_json(load_json(resume.state), resume.text)
                start = resume.offset
                if texts and not state.texts:
                    state, start = None, 0  # the texts before the offset were never read
        resumed = state is not None
        if state is None:
            state = SummaryState(texts=texts)
        # a file read from its start and not big is read at once: one system call, where the
        # chunks, its first line, the bytes before the offset and the unfinished tail are four
        source: bytes | int = os.pread(fd, size, 0) if start == 0 and size <= _WHOLE_READ else fd
        lines = Lines(source, start, final=False)
        state.read(lines)
        offset = lines.end_offset
        tail = read_range(source, offset, lines.pending)
        if start == 0:
            head = _head_of(source) if isinstance(source, bytes) else _read_head(fd, size)
        final = state.with_tail(tail, at_start=offset == 0)
        info = final.info(path, size, st.st_mtime_ns)
        seam_start = max(0, offset - _SEAM)
        return FileSummary(
            path,
            key,
            head=head,
            seam=read_range(source, seam_start, offset - seam_start) if offset else b"",
            offset=offset,
            state=dump_json(state.to_json()),
            text=state.text,
            text_tail=final.text[len(state.text) :] if final is not state else "",
            row=info.to_row() if info is not None else None,
            resumed=resumed,
            listing=listing_element(info) if info is not None else None,
            texts=state.texts,
            brief=brief_of(info) if info is not None else None,
        )
    except OSError as exc:
        return FileSummary(path, (0, 0, 0, 0), error=exc.strerror or str(exc))
    finally:
        os.close(fd)
