"""Read a big session in two processes: the last part of its lines in a forked child.

Reading a session is Python work on every line (orjson's parse, then the fields the tree needs),
bound to one core. On a machine with two or more, a big session (``SPLIT_MIN_BYTES`` in
:mod:`pitui.core.session`) is read in two parts at once: the parent reads the first part and
links it; a child forked for the purpose reads the rest with the same
:func:`~pitui.core.session._scan` (without linking: its parents are in the first part) and sends
back what it kept, as marshal data through a pipe. The parent then rebuilds those entries and
links them on by the same rules. A 200 MB session opens in about two thirds of the time (issue 2).
The result is the same as one read, field for field (tests compare them).

The child is kept out of harm's way:

- it runs only code that takes no lock another thread of the parent may hold (the scan over the
  already mapped file, marshal, ``os.write``), with every signal blocked, and leaves with
  ``os._exit``: no atexit handler, no buffer of the parent written a second time, nothing of a
  terminal the parent drives touched;
- on Python 3.12 and later, where CPython warns against forking a process that runs threads, it
  is used only while the process runs one thread;
- if it fails, or has not answered well after the parent finished its own part, it is killed
  and the parent reads the rest itself.
"""

from __future__ import annotations

import contextlib
import marshal
import operator
import os
import select
import signal
import sys
import threading
import time
from typing import Any, NoReturn

from pitui.core.jsonl import Buffer
from pitui.core.problems import Problem, ProblemKind
from pitui.core.session import NO_PARENT_KEY, EntryMeta, _Scan, _scan

# The parent's share of the bytes: it also rebuilds and links the child's entries, so it takes a
# little more than half, and both finish at about the same time.
PARENT_SHARE = 0.55

# How long the parent waits for the child once its own part is read: this many times what that
# part took, and at least MIN_WAIT_SECONDS (the child's part is the smaller one).
WAIT_FACTOR = 3.0
MIN_WAIT_SECONDS = 5.0

_FIELDS = ("uid", "id", "parent_id", "type", "timestamp", "line", "offset", "length", "role",
           "usage", "info")  # fmt: skip
_fields_of = operator.attrgetter(*_FIELDS)
_HEAD = 8  # the byte count of the marshal data, before it


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_split() -> bool:
    """Whether a big session is read in two processes here (see SPLIT_MIN_BYTES in session)."""
    return (
        hasattr(os, "fork")
        and (sys.version_info < (3, 12) or threading.active_count() == 1)
        and _cpu_count() > 1
    )


def scan_in_two(buf: Buffer, pos: int, line_no: int, final: bool) -> _Scan:
    """What ``_scan(buf, pos, line_no, final)`` returns, read by two processes."""
    size = len(buf)
    mid = buf.find(b"\n", pos + int((size - pos) * PARENT_SHARE)) + 1  # a line boundary
    if mid <= pos or mid >= size:
        return _scan(buf, pos, line_no, final)
    read_end, write_end = os.pipe()
    try:
        child = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return _scan(buf, pos, line_no, final)
    if child == 0:
        _child(buf, pos, line_no, mid, final, read_end, write_end)
    os.close(write_end)
    rest: _Scan | None = None
    try:
        started = time.monotonic()
        part = _scan(buf, pos, line_no, final, stop=mid)
        wait = max(MIN_WAIT_SECONDS, WAIT_FACTOR * (time.monotonic() - started))
        rest = _receive(read_end, time.monotonic() + wait)
    finally:
        os.close(read_end)
        _reap(child, kill=rest is None)
    if rest is None:  # the child failed: the parent reads on from where it stopped
        rest = _scan(buf, mid, part.line_no, final, link=False)
    return _join(part, rest)


# ------------------------------------------------------------------------------------ the child


def _child(
    buf: Buffer, pos: int, line_no: int, mid: int, final: bool, read_end: int, write_end: int
) -> NoReturn:
    code = 1
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        os.close(read_end)  # (else a parent gone would leave it writing to a full pipe forever)
        rest = _scan(buf, mid, line_no + _newlines(buf, pos, mid), final, link=False)
        packed = _pack(rest)
        del rest  # the rows own their values alone: marshal then tracks fewer shared objects
        data = marshal.dumps(packed, 4)
        _write_all(write_end, len(data).to_bytes(_HEAD, "little"))
        _write_all(write_end, data)
        code = 0
    except BaseException:  # (whatever it was, the parent reads the part itself)
        pass
    finally:
        os._exit(code)


def _newlines(buf: Buffer, start: int, end: int) -> int:
    # An mmap has no count(); a find per line is quicker than copying the bytes to count them.
    count = 0
    find = buf.find
    at = find(b"\n", start, end) + 1
    while at:
        count += 1
        at = find(b"\n", at, end) + 1
    return count


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _pack(part: _Scan) -> tuple[Any, ...]:
    entries = part.entries
    rows = list(map(_fields_of, entries))
    # parentId absent (a sentinel object marshal cannot write): sent as None, and where
    absent = [i for i, meta in enumerate(entries) if meta.parent_id is NO_PARENT_KEY]
    for i in absent:
        row = rows[i]
        rows[i] = (*row[:2], None, *row[3:])
    specials = {id(meta) for meta in part.specials}
    return (
        rows,
        absent,
        [i for i, meta in enumerate(entries) if id(meta) in specials] if specials else [],
        part.tool_calls,
        [_problem_fields(p) for p in part.problems],
        [_problem_fields(p) for p in part.dup_problems],
        part.end,
        part.line_no,
        part.pending,
    )


def _problem_fields(problem: Problem) -> tuple[str, int, int, str]:
    return (problem.kind.value, problem.line, problem.offset, problem.reason)


# ----------------------------------------------------------------------------------- the parent


def _receive(fd: int, deadline: float) -> _Scan | None:
    """The child's part, or None if it failed or is late."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(left * 1000):
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    data = b"".join(chunks)
    if len(data) < _HEAD or int.from_bytes(data[:_HEAD], "little") != len(data) - _HEAD:
        return None  # (it died while writing)
    try:
        return _unpack(marshal.loads(memoryview(data)[_HEAD:]))
    except (ValueError, EOFError, TypeError):
        return None


def _unpack(packed: Any) -> _Scan:
    rows, absent, specials, tool_calls, problems, dup_problems, end, line_no, pending = packed
    part = _Scan()
    part.entries = entries = _rebuild(rows)
    for i in absent:
        entries[i].parent_id = NO_PARENT_KEY
    part.specials = [entries[i] for i in specials]
    part.tool_calls = tool_calls
    part.problems = _problems(problems)
    part.dup_problems = _problems(dup_problems)
    part.end, part.line_no, part.pending = end, line_no, pending
    part.linked = False
    return part


def _problems(fields: list[tuple[str, int, int, str]]) -> list[Problem]:
    return [
        Problem(ProblemKind(kind), line, offset, reason) for kind, line, offset, reason in fields
    ]


def _rebuild(rows: list[tuple[Any, ...]]) -> list[EntryMeta]:
    new = object.__new__
    entries: list[EntryMeta] = []
    append = entries.append
    for uid, entry_id, parent_id, etype, timestamp, line, offset, length, role, usage, info in rows:
        meta = new(EntryMeta)  # its fields set here, as _scan does (the quickest way)
        meta.uid = uid
        meta.id = entry_id
        meta.parent_id = parent_id
        meta.type = etype
        meta.timestamp = timestamp
        meta.line = line
        meta.offset = offset
        meta.length = length
        meta.parent = meta.children = None
        meta.role = role
        meta.usage = usage
        meta.info = info
        append(meta)
    return entries


def _reap(child: int, *, kill: bool) -> None:
    if kill:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):  # reaped by someone else's waitpid(-1)
        os.waitpid(child, 0)


def _join(part: _Scan, rest: _Scan) -> _Scan:
    """``part`` followed by ``rest`` (read without links), linked on as :func:`_scan` links."""
    entries = part.entries
    by_id = part.by_id
    linked = part.linked
    if linked:
        roots = part.roots
        branching = part.branching
        previous: EntryMeta | None = entries[-1] if entries else None
        previous_id: Any = previous.id if previous is not None else object()
        parent: EntryMeta
        for meta in rest.entries:
            raw_id = meta.id
            pid = meta.parent_id
            if raw_id is None:
                linked = False
                break
            if pid == previous_id:
                parent = previous  # type: ignore[assignment]  # not None once previous_id is set
            elif pid is None:
                roots.append(meta)
                by_id[raw_id] = meta
                previous = meta
                previous_id = raw_id
                continue
            else:
                try:
                    parent = by_id[pid]
                except (KeyError, TypeError):
                    linked = False
                    break
            meta.parent = parent
            meta.parent_id = parent.id
            children = parent.children
            if children is None:
                parent.children = [meta]
            else:
                if len(children) == 1:
                    branching.append(parent)
                children.append(meta)
            by_id[raw_id] = meta
            previous = meta
            previous_id = raw_id
    entries.extend(rest.entries)
    part.specials.extend(rest.specials)
    part.tool_calls.update(rest.tool_calls)
    part.problems.extend(rest.problems)
    part.dup_problems.extend(rest.dup_problems)
    part.end, part.line_no, part.pending = rest.end, rest.line_no, rest.pending
    part.linked = linked and len(by_id) == len(entries)
    return part
