"""Following the sessions folder while pitui is open: watchfiles changes → typed session events.

One recursive watch over the sessions root (so new project folders show up too), debounced
far below watchfiles' 1.6 s default. Each file has a cursor (inode, byte offset, first line): a
file that grew yields only its new complete entries, parsed from the offset; a shrunk file, a new
inode or a changed first line is "replaced" (re-read whole); an unterminated last line waits for
the next event and is never an error while the file grows. Where native watching fails the
watcher falls back to polling and says so.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pitui.core.jsonl import LineReader, open_buffer


@dataclass(frozen=True, slots=True)
class SessionCreated:
    path: str


@dataclass(frozen=True, slots=True)
class SessionGrew:
    path: str
    # the new complete entry lines: (line number, byte offset, parsed object)
    entries: tuple[tuple[int, int, dict[str, Any]], ...] = ()


@dataclass(frozen=True, slots=True)
class SessionReplaced:
    path: str


@dataclass(frozen=True, slots=True)
class SessionDeleted:
    path: str


@dataclass(frozen=True, slots=True)
class SessionRenamed:
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class WatchNotice:
    """Something the user should know about the watching itself (e.g. polling fallback)."""

    message: str


WatchEvent = (
    SessionCreated | SessionGrew | SessionReplaced | SessionDeleted | SessionRenamed | WatchNotice
)


@dataclass(slots=True)
class FileCursor:
    inode: tuple[int, int]
    offset: int
    next_line: int
    head: bytes = field(repr=False)


def _first_line(path: str, limit: int = 1 << 20) -> bytes:
    with open(path, "rb") as handle:
        data = handle.read(limit)
    end = data.find(b"\n")
    return data if end < 0 else data[:end]


class SessionWatcher:
    """Turns file-system changes under ``root`` into :data:`WatchEvent` batches."""

    def __init__(self, root: str | os.PathLike[str], *, debounce_ms: int = 150) -> None:
        self.root = Path(root)
        self.debounce_ms = debounce_ms
        self.cursors: dict[str, FileCursor] = {}

    # ---------------------------------------------------------------------------- cursors
    def track(self, path: str) -> None:
        """Start following ``path`` from its current end (its present content is known)."""
        self._advance(path, collect=False)

    def _advance(
        self, path: str, *, collect: bool
    ) -> tuple[str, list[tuple[int, int, dict[str, Any]]]]:
        """Read what is new in ``path``: ("created"|"grew"|"replaced"|"deleted"|"same", entries)."""
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            return ("deleted" if self.cursors.pop(path, None) is not None else "same"), []
        except OSError:
            return "same", []
        inode = (stat.st_dev, stat.st_ino)
        cursor = self.cursors.get(path)
        kind = "grew"
        start, line = (cursor.offset, cursor.next_line) if cursor is not None else (0, 1)
        try:
            head = _first_line(path)
        except OSError:
            return "same", []
        if cursor is None:
            kind = "created"
        elif cursor.inode != inode or stat.st_size < cursor.offset or head != cursor.head:
            kind, start, line = "replaced", 0, 1
        elif stat.st_size == cursor.offset:
            return "same", []
        entries: list[tuple[int, int, dict[str, Any]]] = []
        try:
            with open_buffer(path) as buf:
                reader = LineReader(buf, start, line, final=False)
                for number, offset, _length, obj in reader:
                    if collect and kind == "grew":
                        entries.append((number, offset, obj))
                self.cursors[path] = FileCursor(inode, reader.end_offset, reader.next_line_no, head)
        except OSError:
            return "same", []
        if kind == "grew" and not entries and collect:
            return "same", []  # only a partial line arrived: wait for the rest
        return kind, entries

    def process(self, paths: Iterable[str]) -> list[WatchEvent]:
        """The events for a batch of changed paths (blocking reads: call from a thread)."""
        events: list[WatchEvent] = []
        deleted: dict[tuple[int, int], str] = {}
        created: list[str] = []
        for path in sorted(set(paths)):
            if not path.endswith(".jsonl"):
                continue
            previous = self.cursors.get(path)
            kind, entries = self._advance(path, collect=True)
            if kind == "deleted":
                if previous is not None:
                    deleted[previous.inode] = path
                events.append(SessionDeleted(path))
            elif kind == "created":
                created.append(path)
                events.append(SessionCreated(path))
            elif kind == "replaced":
                events.append(SessionReplaced(path))
            elif kind == "grew":
                events.append(SessionGrew(path, tuple(entries)))
        # a delete and a create of the same inode in one batch is a rename
        for path in created:
            cursor = self.cursors.get(path)
            if cursor is not None and cursor.inode in deleted:
                old = deleted.pop(cursor.inode)
                events = [
                    e
                    for e in events
                    if not (isinstance(e, SessionDeleted) and e.path == old)
                    and not (isinstance(e, SessionCreated) and e.path == path)
                ]
                events.append(SessionRenamed(old, path))
        return events

    # ------------------------------------------------------------------------------ watching
    async def events(
        self, stop_event: asyncio.Event | None = None
    ) -> AsyncIterator[list[WatchEvent]]:
        """Batches of events until ``stop_event`` is set (or the task is cancelled)."""
        # imported in a thread: tens of milliseconds the event loop need not wait for
        watchfiles = await asyncio.to_thread(importlib.import_module, "watchfiles")

        while not self.root.is_dir():
            # no sessions folder yet (pi never ran here): wait for it to appear
            if stop_event is not None and stop_event.is_set():
                return
            await asyncio.sleep(1.0)
        halt = threading.Event()  # set when this generator ends, however it ends
        stop = _EitherSet(halt, stop_event)
        force_polling: bool | None = None
        try:
            while True:
                changes_of = watchfiles.watch(
                    self.root,
                    debounce=self.debounce_ms,
                    step=min(50, self.debounce_ms),
                    recursive=True,
                    stop_event=stop,
                    force_polling=force_polling,
                    ignore_permission_denied=True,
                    watch_filter=lambda _change, path: path.endswith(".jsonl"),
                )
                try:
                    # Made and waited on in a thread (watchfiles' awatch makes its watcher on
                    # the event loop: a walk of every folder, 75 ms for 500 of them). The
                    # thread leaves within a step of ``stop`` being set.
                    while (changes := await asyncio.to_thread(next, changes_of, None)) is not None:
                        paths = [path for _change, path in changes]
                        batch = await asyncio.to_thread(self.process, paths)
                        if batch:
                            yield batch
                    return
                except (OSError, RuntimeError) as exc:
                    if force_polling:
                        yield [WatchNotice(f"Watching stopped: {exc}")]
                        return
                    force_polling = True
                    yield [WatchNotice(f"File watching failed ({exc}); polling instead")]
        finally:
            halt.set()


class _EitherSet:
    """Set when either event is (what watchfiles asks of a stop event: ``is_set()``)."""

    def __init__(self, first: threading.Event, second: asyncio.Event | None) -> None:
        self.first = first
        self.second = second

    def is_set(self) -> bool:
        return self.first.is_set() or (self.second is not None and self.second.is_set())
