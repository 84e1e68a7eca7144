"""Read a big session in two processes: the last part of its lines in a forked helper.

Reading a session is Python work on every line (orjson's parse, then the fields the tree needs),
bound to one core. On a machine with two or more, a big session (``SPLIT_MIN_BYTES`` in
:mod:`pitui.core.session`) is read in two parts at once: the parent reads the first part and
links it; a :class:`~pitui.core.forked.Helper` reads the rest with the same
:func:`~pitui.core.session._scan` (without linking: its parents are in the first part) and sends
back what it kept. The parent then rebuilds those entries and links them on by the same rules. A
200 MB session opens in about four fifths of the time (``bench_core``: 1.25 -> 1.03 s median; the
two use about 45% more CPU than one). The result is the same as one read, field for field (tests
compare them); if the helper fails, the parent reads its part.
"""

from __future__ import annotations

import operator
import time
from typing import Any

from pitui.core import forked
from pitui.core.jsonl import Buffer
from pitui.core.problems import Problem, ProblemKind
from pitui.core.session import NO_PARENT_KEY, EntryMeta, _Scan, _scan

# The parent's share of the bytes: it also rebuilds and links the helper's entries, so it takes a
# little more than half, and both finish at about the same time.
PARENT_SHARE = 0.55

# How long the parent waits for the helper once its own part is read: this many times what that
# part took, and at least MIN_WAIT_SECONDS (the helper's part is the smaller one).
WAIT_FACTOR = 3.0
MIN_WAIT_SECONDS = 5.0

_FIELDS = ("uid", "id", "parent_id", "type", "timestamp", "line", "offset", "length", "role",
           "usage", "info")  # fmt: skip
_fields_of = operator.attrgetter(*_FIELDS)


def can_split() -> bool:
    """Whether a big session is read in two processes here."""
    return forked.available()


def scan_in_two(buf: Buffer, pos: int, line_no: int, final: bool) -> _Scan:
    """What ``_scan(buf, pos, line_no, final)`` returns, read by two processes."""
    size = len(buf)
    mid = buf.find(b"\n", pos + int((size - pos) * PARENT_SHARE)) + 1  # a line boundary
    if mid <= pos or mid >= size:
        return _scan(buf, pos, line_no, final)
    with forked.Helper(_read_rest, buf, pos, line_no, mid, final) as helper:
        started = time.monotonic()
        part = _scan(buf, pos, line_no, final, stop=mid)
        packed = helper.result(max(MIN_WAIT_SECONDS, WAIT_FACTOR * (time.monotonic() - started)))
    rest = _unpack(packed) if packed is not None else None
    if rest is None:  # the helper failed: the parent reads on from where it stopped
        rest = _scan(buf, mid, part.line_no, final, link=False)
    return _join(part, rest)


# ----------------------------------------------------------------------------------- the helper


def _read_rest(buf: Buffer, pos: int, line_no: int, mid: int, final: bool) -> tuple[Any, ...]:
    rest = _scan(buf, mid, line_no + _newlines(buf, pos, mid), final, link=False)
    return _pack(rest)  # (rest is dropped on return: marshal then tracks fewer shared values)


def _newlines(buf: Buffer, start: int, end: int) -> int:
    # An mmap has no count(); a find per line is quicker than copying the bytes to count them.
    count = 0
    find = buf.find
    at = find(b"\n", start, end) + 1
    while at:
        count += 1
        at = find(b"\n", at, end) + 1
    return count


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


def _unpack(packed: Any) -> _Scan | None:
    try:
        return _unpacked(packed)
    except (ValueError, TypeError, IndexError, AttributeError):  # (not what _pack makes)
        return None


def _unpacked(packed: Any) -> _Scan:
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
