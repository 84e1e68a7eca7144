"""A session file as a tree index: entries by id, children in pi's order, leaf, labels, name, stats.

Loading keeps only what the tree needs from each line (ids, type, timestamp, a few small fields and
the line's byte range). Whole entries are decoded again from the file when something shows them, so
a 200 MB session costs a few hundred bytes per entry, not the size of its content.

Robustness rules are those of spec/session-format.md §14: malformed lines, duplicate headers,
duplicate ids, orphans, entries without ids and cycles are all reported as problems and handled;
nothing here raises because of what a file contains. A file that is not a pi session at all raises
:class:`NotASessionError` (a one-line reason) from :meth:`Session.open`.
"""

from __future__ import annotations

import os
import threading
import time
from bisect import insort
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, Literal

from pitui.core import migrate
from pitui.core.facts import Stats, tally
from pitui.core.js import js_trim, parse_iso_ms
from pitui.core.jsonl import LineReader, Lines, objects, parse_json_line, read_line_at, read_range
from pitui.core.labels import apply_label
from pitui.core.memory import collector_paused, promote_to_oldest
from pitui.core.paths import open_regular
from pitui.core.problems import Problem, ProblemKind
from pitui.core.records import DUPLICATE_HEADER, attach, make_meta, scan
from pitui.core.records import NO_PARENT_KEY as NO_PARENT_KEY  # (the index's entries: their home)
from pitui.core.records import EntryMeta as EntryMeta

# The one-pass loader (False: the plain reference loader, which tests compare it with).
_FAST_LOAD = True

# A load with this many entries moves its objects to the oldest GC generation (see Session._load).
_PROMOTE_ENTRIES = 20_000

# A file whose last write is older than this is taken as finished: its unterminated last line is
# read (pi accepts it) or reported as truncated, instead of being held back as pending.
SETTLE_SECONDS = 2.0


class SessionError(Exception):
    """A file that cannot be read as a pi session at all; ``str(exc)`` is a one-line reason."""


class NotASessionError(SessionError):
    pass


class UnsupportedFormatError(SessionError):
    pass


class UnreadableError(SessionError):
    pass


# How many of the last bytes read refresh() compares to tell an in-place rewrite from growth.
_TAIL_BYTES = 64


@dataclass(frozen=True, slots=True)
class RefreshResult:
    kind: Literal["unchanged", "grew", "replaced"]
    new: tuple[EntryMeta, ...] = ()


def _child_key(meta: EntryMeta) -> float:
    return _iso_key(meta.timestamp)


def _iso_key(timestamp: str | None) -> float:
    """Sort key for children: epoch ms as JavaScript reads it; unparseable ones sort last."""
    millis = parse_iso_ms(timestamp)
    return float("inf") if millis is None else float(millis)


class Session:
    """The index of one session file (or of bytes in memory).

    Build it with :meth:`open` or :meth:`from_bytes`.
    """

    def __init__(self, path: str, data: bytes | None = None) -> None:
        self.path = path
        self._data = data  # in-memory content (tests, exports); None = read from ``path``
        self._fd: int | None = None
        self._fd_lock = threading.Lock()
        self.header: dict[str, Any] = {}
        self.original_version: int = 3
        self.problems: list[Problem] = []
        self.entries: list[EntryMeta] = []
        self.by_uid: dict[str, EntryMeta] = {}  # by_id itself while every uid is its id
        self.by_id: dict[str, EntryMeta] = {}  # last occurrence of each id, as pi looks ids up
        self.roots: list[EntryMeta] = []
        self.labels: dict[str, str] = {}
        self.label_times: dict[str, str] = {}
        self.name: str | None = None
        self.tool_calls: dict[str, str] = {}  # toolCall id -> uid of the assistant entry holding it
        self.end_offset = 0
        self.next_line = 1
        self.pending = 0
        self._header_line = b""
        self._tail = b""  # the last bytes read (before end_offset): an in-place rewrite shows
        self._inode: tuple[int, int] | None = None
        self._ordinals: list[EntryMeta | None] = []  # v1 only: parsed objects, header = None
        self._v1_first_kept: dict[str, int] = {}
        self._v1_chain = False  # a v1 file whose entries got ids and one chain on load

    # ------------------------------------------------------------------ loading

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, final: bool | None = None) -> Session:
        """Read a session file. Never writes. ``final=None`` decides by the file's age whether an
        unterminated last line is pi mid-write (held back) or the end of a finished file."""
        session = cls(os.fspath(path))
        try:
            stat = os.stat(session.path)
            if final is None:
                final = time.time() - stat.st_mtime >= SETTLE_SECONDS
            with open(open_regular(session.path), "rb") as handle:  # (a FIFO is refused)
                session._load(handle.fileno(), final=final)
                session._remember_tail(handle.fileno())
            session._inode = (stat.st_dev, stat.st_ino)
        except IsADirectoryError as exc:
            raise UnreadableError(f"{session.path}: is a directory") from exc
        except OSError as exc:
            raise UnreadableError(f"{session.path}: {exc.strerror or exc}") from exc
        return session

    @classmethod
    def from_bytes(cls, data: bytes, path: str = "<memory>", *, final: bool = True) -> Session:
        session = cls(path, data)
        session._load(data, final=final)
        return session

    def _load(self, source: bytes | int, *, final: bool) -> None:
        """Read the content (``bytes``) or the open file (a descriptor)."""
        with collector_paused():  # millions of small objects, no cycles
            if _FAST_LOAD:
                self._load_fast(source, final=final)
            else:
                self._load_reference(source, final=final)
            if len(self.entries) >= _PROMOTE_ENTRIES:
                # the index is long-lived: out of the young generations before the collector
                # runs again (its first young collection would scan all of it)
                promote_to_oldest()

    def _check_header(self, obj: dict[str, Any], line: int) -> None:
        if line == 1 and obj.get("kind") == "header":
            raise UnsupportedFormatError(
                f"{self.path}: unsupported v4 harness session "
                "(first line is a `kind: header` record)"
            )
        if obj.get("type") != "session" or not isinstance(obj.get("id"), str):
            raise NotASessionError(
                f"{self.path}: not a valid pi session "
                "(the first JSON line is not a session header with a string id)"
            )

    def _no_header(self, pending: int) -> NotASessionError:
        if pending:
            return NotASessionError(f"{self.path}: no complete session header yet (being written?)")
        return NotASessionError(f"{self.path}: not a valid pi session (no session header)")

    def _load_reference(self, source: bytes | int, *, final: bool) -> None:
        """The plain loader: each line parsed whole, :func:`~pitui.core.records.make_meta`, then
        index and link.

        Used for v1 files (ids and parents are assigned after reading) and, in tests, as the
        reference :meth:`_load_fast` must agree with.
        """
        reader = Lines(source, final=final)
        entries = self.entries
        ordinals = self._ordinals
        header: dict[str, Any] | None = None
        v1 = False
        for line, offset, length, obj in objects(reader):
            if header is None:
                self._check_header(obj, line)
                header = obj
                v1 = migrate.needs_v1_ids(header)
                self._header_line = read_range(source, 0, offset + length)  # with what precedes it
                ordinals.append(None)
                continue
            if obj.get("type") == "session":
                self.problems.append(
                    Problem(ProblemKind.DUPLICATE_HEADER, line, offset, DUPLICATE_HEADER)
                )
                if v1:
                    ordinals.append(None)
                continue
            meta = make_meta(obj, line, offset, length)
            if v1:
                index = obj.get("firstKeptEntryIndex")
                if meta.type == "compaction" and isinstance(index, int | float):
                    self._v1_first_kept[meta.uid] = int(index)
            entries.append(meta)
            if v1:
                ordinals.append(meta)
        self.problems.extend(reader.problems)
        self.problems.sort(key=lambda p: p.line)
        self.end_offset = reader.end_offset
        self.next_line = reader.next_line_no
        self.pending = reader.pending
        if header is None:
            raise self._no_header(reader.pending)
        self.header = header
        self._migrate()
        self._index_all()

    def _load_fast(self, source: bytes | int, *, final: bool) -> None:
        """What :meth:`_load_reference` does, with little work per line (issue 2: a 200 MB
        session in about the time orjson alone takes to parse it).

        :func:`~pitui.core.records.scan` reads the lines (the typed decode, the rules of
        :func:`~pitui.core.records.make_meta` inlined) and links the normal file (every entry has
        its own id and a parent written before it) as it reads; anything else (a missing or
        duplicate id, a parent not read yet) is indexed and linked from scratch by
        :meth:`_index_all`, as the reference loader does.
        """
        # Up to the header: every line parsed whole (BOM, blank and broken lines before it).
        lines = Lines(source, final=final)
        header: dict[str, Any] | None = None
        for line, offset, length, obj in objects(lines):
            self._check_header(obj, line)
            header = obj
            self._header_line = read_range(source, 0, offset + length)  # with what precedes it
            break
        if header is None:
            raise self._no_header(lines.pending)
        if migrate.needs_v1_ids(header):
            # small, old files: ids and parents come after reading; the plain loader does it
            self._load_reference(source, final=final)
            return
        part = scan(lines)
        self.entries = part.entries
        # as the reference loader orders them: its own problems, then the reader's, by line
        self.problems = part.dup_problems + lines.problems
        self.end_offset = lines.end_offset
        self.next_line = lines.next_line_no
        self.pending = lines.pending
        self.header = header
        self._migrate()
        if not part.linked:
            self._index_all()
            return
        for meta in part.branching:
            meta.children.sort(key=_child_key)  # type: ignore[union-attr]
        self.by_id = self.by_uid = part.by_id  # one dict while every uid is its id
        self.roots = part.roots
        self.problems.sort(key=lambda p: p.line)  # as _link leaves them
        self.tool_calls = part.tool_calls
        self._resolve_labels(part.specials, reset=False)

    def _migrate(self) -> None:
        version = migrate.header_version(self.header)
        self.original_version = version
        if version >= 3:
            self._ordinals = []
            return
        if version < 2:
            # Entries with ids *and* parent links hold a tree pi would flatten: read the tree and
            # warn. Ids without any parentId (old linear files) are one chain in file order, as
            # pi's migration makes them (it replaces the ids too, as assign_v1_ids does).
            linked = any(m.parent_id is not NO_PARENT_KEY for m in self.entries)
            if self.entries and linked and all(m.id is not None for m in self.entries):
                self.problems.append(
                    Problem(
                        ProblemKind.VERSION_TRAP,
                        self.entries[0].line,
                        self.entries[0].offset,
                        "header has no version but entries already have ids: read as a tree "
                        "(pi would linearize it on open)",
                    )
                )
                self._v1_first_kept.clear()
                version = 2
            else:
                migrate.assign_v1_ids(self.entries, self._ordinals, self._v1_first_kept)
                self._v1_chain = True
        self._ordinals = []
        for meta in self.entries:
            if meta.role == "hookMessage":
                meta.role = "custom"
        self.header = migrate.migrated_header(self.header)
        first: EntryMeta | None = self.entries[0] if self.entries else None
        self.problems.append(
            Problem(
                ProblemKind.MIGRATED,
                first.line if first else 1,
                first.offset if first else 0,
                f"format version {self.original_version}, migrated to 3 in memory (file untouched)",
            )
        )

    def _register_ids(self, metas: Iterable[EntryMeta]) -> bool:
        """Add metas to the id maps; returns False when a duplicate id forces a full relink."""
        clean = True
        for meta in metas:
            if self.by_uid is self.by_id and (meta.id is None or meta.id in self.by_id):
                self.by_uid = dict(self.by_id)  # this uid is not its id: the maps part
            if meta.id is None:
                self.problems.append(
                    Problem(
                        ProblemKind.MISSING_ID, meta.line, meta.offset, "entry has no string id"
                    )
                )
            else:
                previous = self.by_id.get(meta.id)
                if previous is not None:
                    clean = False
                    del self.by_uid[previous.uid]
                    previous.uid = f"{previous.id}#{previous.line}"
                    self.by_uid[previous.uid] = previous
                    self.problems.append(
                        Problem(
                            ProblemKind.DUPLICATE_ID,
                            meta.line,
                            meta.offset,
                            f"id {meta.id!r} was already used on line {previous.line}; "
                            "lookups use this later entry, the earlier one is kept as "
                            f"{previous.uid}",
                        )
                    )
                self.by_id[meta.id] = meta
            self.by_uid[meta.uid] = meta
        return clean

    def _index_all(self) -> None:
        entries = self.entries
        # Fast path (the normal file): every entry has its own string id.
        by_id = {meta.id: meta for meta in entries if meta.id is not None}
        if len(by_id) == len(entries):
            self.by_id = self.by_uid = by_id  # one dict while every uid is its id
        else:
            self.by_uid = {}
            self.by_id = {}
            self._register_ids(entries)
        self._link()
        self._resolve_labels(entries, reset=True)

    def _resolve_parent(self, meta: EntryMeta, report: bool) -> EntryMeta | None:
        pid = meta.parent_id
        if pid is None:
            return None
        parent = self.by_id.get(pid) if type(pid) is str else None
        if parent is None or parent is meta:
            if report:
                self._report_parent(meta)
            return None
        return parent

    def _report_parent(self, meta: EntryMeta) -> None:
        pid = meta.parent_id
        if pid is NO_PARENT_KEY:
            kind, reason = ProblemKind.ORPHAN, "entry has no parentId; shown as a root"
        elif type(pid) is str and self.by_id.get(pid) is meta:
            kind, reason = ProblemKind.SELF_PARENT, "entry is its own parent; shown as a root"
        else:
            kind, reason = ProblemKind.ORPHAN, f"parent {pid!r} is not in the file; shown as a root"
        self.problems.append(Problem(kind, meta.line, meta.offset, reason))

    def _link(self) -> None:
        """Parents, cycle breaking, children in pi's order and roots, from scratch (no parsing)."""
        link_kinds = (ProblemKind.ORPHAN, ProblemKind.SELF_PARENT, ProblemKind.CYCLE)
        self.problems = [p for p in self.problems if p.kind not in link_kinds]
        by_id = self.by_id
        entries = self.entries
        roots: list[EntryMeta] = []
        branching: list[EntryMeta] = []  # nodes with several children: only these need sorting
        forward = False  # a parent later in the file: the only way a cycle can form
        for meta in entries:
            meta.children = None
        for meta in entries:
            pid = meta.parent_id
            parent = by_id.get(pid) if type(pid) is str else None
            if parent is None or parent is meta:
                if pid is not None:
                    self._report_parent(meta)
                meta.parent = None
                roots.append(meta)
                continue
            meta.parent = parent
            if parent.line > meta.line:
                forward = True
            attach(parent, meta, branching)
        if forward:
            # Rare (hand-edited or damaged files): cut cycles, then attach again in file order.
            self._break_cycles()
            roots = []
            branching = []
            for meta in entries:
                meta.children = None
            for meta in entries:
                parent = meta.parent
                if parent is None:
                    roots.append(meta)
                else:
                    attach(parent, meta, branching)
        for meta in branching:
            meta.children.sort(key=_child_key)  # type: ignore[union-attr]
        self.roots = roots
        self.problems.sort(key=lambda p: p.line)

    def _break_cycles(self) -> None:
        state: dict[str, int] = {}  # uid -> 1 on the current walk, 2 done
        for start in self.entries:
            if start.uid in state:
                continue
            chain: list[EntryMeta] = []
            node: EntryMeta | None = start
            while node is not None and node.uid not in state:
                state[node.uid] = 1
                chain.append(node)
                node = node.parent
            if node is not None and state[node.uid] == 1:
                # `node` is where the walk met itself: it becomes a root (format §14, cycles).
                self.problems.append(
                    Problem(
                        ProblemKind.CYCLE,
                        node.line,
                        node.offset,
                        f"parent chain of {node.uid!r} loops back to it; cut there (a root)",
                    )
                )
                node.parent = None
            for member in chain:
                state[member.uid] = 2

    def _resolve_labels(self, metas: Iterable[EntryMeta], *, reset: bool) -> None:
        if reset:
            self.labels.clear()
            self.label_times.clear()
            self.name = None
            self.tool_calls.clear()
        for meta in metas:
            if meta.type == "label":
                target = meta.target_id
                if target is not None:
                    apply_label(self.labels, self.label_times, target, meta.label, meta.timestamp)
            elif meta.type == "session_info":
                name = js_trim(meta.name) if meta.name is not None else ""
                self.name = name or None
            elif meta.role == "assistant" and len(meta.info) > 4:
                for call_id in meta.info[4]:
                    self.tool_calls[call_id] = meta.uid  # the last one wins, as pi's lookup
        self._report_missing_targets()

    def _report_missing_targets(self) -> None:
        """One problem per label entry whose target is not in the file (the first entry that
        labels it), each reported once. One pass over the entries whatever the number of such
        labels (a file of 20k labels pointing nowhere took 50 s when each looked on its own)."""
        missing = {target for target in self.labels if target not in self.by_id}
        if not missing:
            return
        setters: dict[str, EntryMeta] = {}
        for meta in self.entries:
            if meta.type == "label":
                target = meta.target_id
                if target in missing and target not in setters:
                    setters[target] = meta
        reported = {p.line for p in self.problems if p.kind is ProblemKind.LABEL_TARGET_MISSING}
        added = False
        for target in self.labels:  # (in the labels' order, as they were reported)
            setter = setters.get(target)
            if setter is not None and setter.line not in reported:
                reported.add(setter.line)
                self.problems.append(
                    Problem(
                        ProblemKind.LABEL_TARGET_MISSING,
                        setter.line,
                        setter.offset,
                        f"label for {target!r}, which is not in the file",
                    )
                )
                added = True
        if added:
            self.problems.sort(key=lambda p: p.line)  # by line, as every other problem

    # ------------------------------------------------------------------ growth

    def refresh(self) -> RefreshResult:
        """Follow the file: read only what was appended since the last read.

        A file that shrank, changed inode, or changed its first line or the last bytes read
        (rewritten in place) was replaced: it is re-read whole. (A same-size edit of the middle
        alone is not noticed: that would take reading the whole file on every change.)
        """
        if self._data is not None:
            return RefreshResult("unchanged")
        try:
            stat = os.stat(self.path)
        except OSError as exc:
            raise UnreadableError(f"{self.path}: {exc.strerror or exc}") from exc
        replaced = (stat.st_dev, stat.st_ino) != self._inode or stat.st_size < self.end_offset
        if not replaced:
            # same file, not shorter: still the one read if its first line and the last bytes
            # read are unchanged (an editor or a tool may rewrite it in place, even same size)
            with open(self.path, "rb") as handle:
                head = os.pread(handle.fileno(), len(self._header_line), 0)
                tail = os.pread(handle.fileno(), len(self._tail), self.end_offset - len(self._tail))
            replaced = (
                head.lstrip(b"\xef\xbb\xbf") != self._header_line.lstrip(b"\xef\xbb\xbf")
                or tail != self._tail
            )
        if not replaced and stat.st_size == self.end_offset + self.pending:
            final = time.time() - stat.st_mtime >= SETTLE_SECONDS
            if not (final and self.pending):
                return RefreshResult("unchanged")
        if replaced:
            self.reload()
            return RefreshResult("replaced", tuple(self.entries))
        final = time.time() - stat.st_mtime >= SETTLE_SECONDS
        with open(open_regular(self.path), "rb") as handle:
            new = self._extend(handle.fileno(), final=final)
            self._remember_tail(handle.fileno())
        return RefreshResult("grew", tuple(new)) if new else RefreshResult("unchanged")

    def _remember_tail(self, source: bytes | int) -> None:
        start = max(0, self.end_offset - _TAIL_BYTES)
        self._tail = read_range(source, start, self.end_offset - start)

    def reload(self) -> None:
        """Read the file again from scratch (it was replaced, or pitui rewrote it)."""
        self.replace_with(Session.open(self.path))

    def replace_with(self, fresh: Session) -> None:
        """Take over a freshly read index of the same file (objects holding ``self`` stay valid)."""
        self.close()
        self.__dict__.update(fresh.__dict__)
        fresh._fd = None  # the descriptor (if any) now belongs to self

    def _extend(self, source: int, *, final: bool) -> list[EntryMeta]:
        reader = LineReader(source, self.end_offset, self.next_line, final=final)
        new: list[EntryMeta] = []
        for line, offset, length, obj in reader:
            if obj.get("type") == "session":
                self.problems.append(
                    Problem(ProblemKind.DUPLICATE_HEADER, line, offset, DUPLICATE_HEADER)
                )
                continue
            meta = make_meta(obj, line, offset, length)
            if self.original_version < 3 and meta.role == "hookMessage":
                meta.role = "custom"
            new.append(meta)
        self.problems.extend(reader.problems)
        self.end_offset = reader.end_offset
        self.next_line = reader.next_line_no
        self.pending = reader.pending
        if not new:
            return new
        # an orphan whose missing parent has just arrived must be re-attached: relink everything
        waiting = {m.parent_id for m in self.roots if isinstance(m.parent_id, str)}
        adopts = any(m.id in waiting for m in new)
        self.entries.extend(new)
        clean = self._register_ids(new) and not adopts
        if clean:
            for meta in new:
                parent = self._resolve_parent(meta, report=True)
                meta.parent = parent
                if parent is None:
                    self.roots.append(meta)
                elif parent.children is None:
                    parent.children = [meta]
                else:
                    insort(parent.children, meta, key=_child_key)
            self._resolve_labels(new, reset=False)
        else:
            self._link()
            self._resolve_labels(self.entries, reset=True)
        return new

    # ------------------------------------------------------------------ queries

    @property
    def id(self) -> str:
        value = self.header.get("id")
        return value if isinstance(value, str) else ""

    @property
    def cwd(self) -> str:
        value = self.header.get("cwd")
        return value if isinstance(value, str) else ""

    @property
    def parent_session(self) -> str | None:
        value = self.header.get("parentSession")
        return value if isinstance(value, str) and value else None

    @property
    def created(self) -> str | None:
        value = self.header.get("timestamp")
        return value if isinstance(value, str) else None

    @property
    def leaf(self) -> EntryMeta | None:
        """The leaf pi picks on open: the last entry line of the file (format §7.3)."""
        return self.entries[-1] if self.entries else None

    @property
    def leaf_id(self) -> str | None:
        leaf = self.leaf
        return leaf.uid if leaf is not None else None

    def get(self, uid: str) -> EntryMeta | None:
        """An entry by unique id; a plain (possibly duplicated) id finds its last occurrence."""
        return self.by_uid.get(uid)

    def path_to(self, meta: EntryMeta | None) -> list[EntryMeta]:
        """Root → ``meta`` (format §7.2). Cycles were cut on load, so this always ends."""
        path: list[EntryMeta] = []
        node = meta
        while node is not None:
            path.append(node)
            node = node.parent
        path.reverse()
        return path

    def resolve_leaf(self, leaf: str | Literal["default"] | None = "default") -> EntryMeta | None:
        """Leaf for context building (format §10.1): ``None`` means explicitly none; "default" or
        an unknown id falls back to the last entry in file order."""
        if leaf is None:
            return None
        if leaf != "default":
            found = self.by_uid.get(leaf)
            if found is not None:
                return found
        return self.leaf

    def branch(self, leaf: str | Literal["default"] | None = "default") -> list[EntryMeta]:
        return self.path_to(self.resolve_leaf(leaf))

    def children_of(self, meta: EntryMeta | None) -> list[EntryMeta]:
        if meta is None:
            return list(self.roots)
        return list(meta.children or ())

    def iter_preorder(self) -> Iterator[tuple[EntryMeta, int]]:
        """Depth-first, children in pi's order (timestamp), roots in file order; no recursion."""
        stack: list[tuple[EntryMeta, int]] = [(root, 0) for root in reversed(self.roots)]
        while stack:
            meta, depth = stack.pop()
            while True:  # down the first children (most nodes have one) without the stack
                yield meta, depth
                children = meta.children
                if not children:
                    break
                depth += 1
                if len(children) > 1:
                    stack.extend((child, depth) for child in reversed(children[1:]))
                meta = children[0]

    def stats(self, metas: Iterable[EntryMeta] | None = None) -> Stats:
        """Counts and spend over ``metas`` (default: the whole file, every branch)."""
        return tally(self.entries if metas is None else metas)

    # ------------------------------------------------------------------ whole entries

    def raw(self, meta: EntryMeta) -> dict[str, Any]:
        """The entry's JSON object, re-read from the file and migrated like the index was."""
        if self._data is not None:
            line = self._data[meta.offset : meta.offset + meta.length]
            if meta.offset == 0:
                line = line.removeprefix(b"\xef\xbb\xbf")
        else:
            with self._fd_lock:  # workers and the UI read entries at the same time
                if self._fd is None:
                    self._fd = os.open(self.path, os.O_RDONLY)
                fd = self._fd
            line = read_line_at(fd, meta.offset, meta.length)
        obj, _, _ = parse_json_line(line)
        if type(obj) is not dict:
            # the file changed under us; say so through the entry rather than crash
            obj = {
                "type": meta.type,
                "id": meta.id,
                "parentId": meta.parent_id,
                "_unreadable": True,
            }
        if self.original_version < 3:
            migrate.patch_entry(obj, meta, v1_chain=self._v1_chain)
        return obj

    def raws(self, metas: Iterable[EntryMeta]) -> list[dict[str, Any]]:
        return [self.raw(meta) for meta in metas]

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with suppress(Exception):
            self.close()
