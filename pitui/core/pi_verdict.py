"""What pi does with a session file: whether pi 0.73.1 and pi 1.x load it, and if not, why.

The verdicts follow the loaders of both versions (checked against their code, and in
tests/interop against their libraries): the first parsed JSON *value* must be the header (a
``null``, number or array before it makes pi refuse a file pitui can still read; 1.x skips falsy
values), 0.73.1 stops with a TypeError on a ``null`` line, 1.x cannot see a header behind a BOM,
both loop forever when the leaf's parent chain loops, and both crash resuming a branch that holds
a message entry without a message. The doctor (:mod:`pitui.core.doctor`) reports them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pitui.core.js import JS_WHITESPACE, js_trim, js_truthy
from pitui.core.jsonl import BOM, Buffer, parse_json_line
from pitui.core.problems import Problem, ProblemKind
from pitui.core.session import EntryMeta, Session

__all__ = [
    "Head",
    "Outcome",
    "PiVerdict",
    "blank_verdicts",
    "first_values",
    "loaded_verdicts",
    "refusals",
    "unreadable_verdicts",
]

Outcome = Literal["loads", "new-session", "refuses", "overwrites", "crashes", "hangs", "unreadable"]

# pi 0.73.1 reads a whole file into one JavaScript string (V8's limit: 2**29 - 24 characters).
_PI_OLD_STRING_LIMIT = (1 << 29) - 24
# pi 1.x finds sessions (`--continue`, id lookups) by scanning at most this much for the header.
_PI_NEW_HEADER_SCAN = 1 << 20
# Lines looked at before the first parsed value (pi's header check), and for a blank file.
_HEAD_SCAN_LINES = 10_000


@dataclass(frozen=True, slots=True)
class PiVerdict:
    """What one pi version does with the file: ``loads`` it, or not and why (``outcome``)."""

    version: str  # "0.73.1" or "1.x"
    outcome: Outcome
    reason: str  # one line
    notes: tuple[str, ...] = ()  # caveats when it does load

    @property
    def loads(self) -> bool:
        return self.outcome == "loads"

    def to_json(self) -> dict[str, Any]:
        return {
            "loads": self.loads,
            "outcome": self.outcome,
            "reason": self.reason,
            "notes": list(self.notes),
        }


def first_values(buf: Buffer) -> tuple[Head | None, Head | None]:
    """The first JSON value as pi 0.73.1 and as pi 1.x parse it (None: no JSON at all)."""
    return _first_value(buf, old=True), _first_value(buf, old=False)


def loaded_verdicts(
    session: Session,
    buf: Buffer,
    heads: tuple[Head | None, Head | None],
    no_message: Sequence[Problem],
) -> tuple[PiVerdict, PiVerdict]:
    """(0.73.1, 1.x) for a file pitui reads as a session. ``no_message``: its message entries
    without a message (pi crashes resuming a branch that holds one)."""
    values = _non_object_values(buf, session.problems)
    lines = frozenset(problem.line for problem in no_message)
    return (
        _verdict_old(session, len(buf), heads[0], values, lines),
        _verdict_new(session, buf, heads[1], values, lines),
    )


def refusals(heads: tuple[Head | None, Head | None]) -> tuple[PiVerdict, PiVerdict]:
    """(0.73.1, 1.x) for a file pitui does not read as a session (no header)."""
    return _refusal_old(heads[0]), _refusal_new(heads[1])


def blank_verdicts(size: int) -> tuple[PiVerdict, PiVerdict]:
    """(0.73.1, 1.x) for an empty file (``size`` 0) or one of blank lines only."""
    new_session = "starts a new session in it when it is opened; not listed"
    old = PiVerdict("0.73.1", "new-session", new_session)
    if size == 0:
        return old, PiVerdict("1.x", "new-session", new_session)
    refused = "refuses it: blank lines are not an empty file (not a valid pi session); not listed"
    return old, PiVerdict("1.x", "refuses", refused)


def unreadable_verdicts(reason: str) -> tuple[PiVerdict, PiVerdict]:
    return (
        PiVerdict("0.73.1", "unreadable", f"cannot read it either ({reason})"),
        PiVerdict("1.x", "unreadable", f"cannot read it either ({reason})"),
    )


# --------------------------------------------------------------------- pi's view of the head


@dataclass(frozen=True, slots=True)
class Head:
    """The first JSON value pi parses in a file: its line, byte range and value."""

    line: int
    offset: int
    end: int
    value: Any

    @property
    def is_header(self) -> bool:
        value = self.value
        return (
            type(value) is dict
            and value.get("type") == "session"
            and (type(value.get("id")) is str)
        )


def _lines(buf: Buffer, limit: int) -> Iterator[tuple[int, int, int]]:
    """(line number, start, end) of the first ``limit`` lines, split on ``\\n`` only."""
    pos = 0
    size = len(buf)
    number = 1
    while pos < size and number <= limit:
        nl = buf.find(b"\n", pos)
        end = size if nl < 0 else nl
        yield number, pos, end
        pos = end + 1
        number += 1


def _first_value(buf: Buffer, *, old: bool) -> Head | None:
    """The first line that parses as JSON, as pi's loader sees it.

    0.73.1 trims the whole content first (a leading BOM or blank is dropped) and keeps every
    parsed value; 1.x parses line by line (a BOM makes the first line fail) and skips falsy
    values (``null``, ``0``, ``false``, ``""``)."""
    for number, start, end in _lines(buf, _HEAD_SCAN_LINES):
        raw = bytes(buf[start:end])
        text = raw.decode("utf-8", "replace")
        if number == 1 and old:
            stripped = text.lstrip(JS_WHITESPACE)
            raw = raw[len(text[: len(text) - len(stripped)].encode()) :]
            text = stripped
        if not js_trim(text):
            continue
        if not old and raw.startswith(BOM):
            continue  # JSON.parse refuses U+FEFF: the line is skipped as malformed
        value, kind, _ = parse_json_line(raw)
        if kind is ProblemKind.MALFORMED or kind is ProblemKind.TRUNCATED:
            continue
        if not old and not js_truthy(value):
            continue  # 1.x: `if (entry) entries.push(entry)`
        return Head(number, start, end, value)
    return None


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is dict:
        if value.get("type") == "session":
            return "a session header without a string id"
        kind = value.get("kind") if value.get("kind") == "header" else value.get("type")
        return f"a {kind!r} object" if isinstance(kind, str) else "an object without a type"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string"}.get(
        type(value), "an array"
    )


def _listed(head: Head | None) -> bool:
    """pi's listing checks only the first JSON object's type: a header without an id is listed
    (without an id), in both releases (checked against their SessionManager.list)."""
    return head is not None and type(head.value) is dict and head.value.get("type") == "session"


def _refusal_old(head: Head | None) -> PiVerdict:
    if head is not None and head.value is None:
        return PiVerdict(
            "0.73.1",
            "crashes",
            f"crashes opening it (TypeError): its first JSON value (line {head.line}) is null",
        )
    what = f"line {head.line} is {_describe(head.value)}" if head is not None else "no JSON"
    return PiVerdict(
        "0.73.1",
        "overwrites",
        f"overwrites it when it is opened: no session header ({what}), so it starts a new "
        "session in this file (data loss); "
        + ("listed by /resume, where picking it does that" if _listed(head) else "not listed"),
    )


def _refusal_new(head: Head | None) -> PiVerdict:
    what = f"line {head.line} is {_describe(head.value)}" if head is not None else "no JSON"
    return PiVerdict(
        "1.x",
        "refuses",
        f"refuses it: no session header ({what}); "
        + ("listed by /resume, where picking it is refused" if _listed(head) else "not listed")
        + ", the file is left alone",
    )


def _non_object_values(buf: Buffer, problems: Sequence[Problem]) -> list[tuple[int, Any]]:
    """(line, value) of lines that parse as JSON but not as an object: pi keeps them as
    entries (the reader skips them as malformed)."""
    found: list[tuple[int, Any]] = []
    for problem in problems:
        if problem.kind is not ProblemKind.MALFORMED:
            continue
        end = buf.find(b"\n", problem.offset)
        raw = bytes(buf[problem.offset : len(buf) if end < 0 else end])
        if problem.offset == 0:
            raw = raw.removeprefix(BOM)
        value, kind, _ = parse_json_line(raw)
        if kind is None and type(value) is not dict:
            found.append((problem.line, value))
    return found


def _leaf_loop(session: Session) -> EntryMeta | None:
    """The entry where pi's walk from the leaf to the root would start going round forever."""
    node = session.leaf
    seen: set[str] = set()
    by_id = session.by_id
    while node is not None:
        if node.uid in seen:
            return node
        seen.add(node.uid)
        pid = node.parent_id
        node = by_id.get(pid) if type(pid) is str and pid else None
    return None


def _verdict_old(
    session: Session,
    size: int,
    head: Head | None,
    values: list[tuple[int, Any]],
    no_message: frozenset[int],
) -> PiVerdict:
    if head is None or not head.is_header:
        return _refusal_old(head)
    nulls = [line for line, value in values if value is None]
    if nulls:
        return PiVerdict(
            "0.73.1",
            "crashes",
            f"crashes opening it (TypeError): line {nulls[0]} is a JSON null",
        )
    loop = _leaf_hang(session, values, skip_falsy=False)
    if loop is not None:
        return PiVerdict("0.73.1", "hangs", loop)
    crash = _null_message_crash(session, values, no_message, skip_falsy=False)
    if crash is not None:
        return PiVerdict("0.73.1", "crashes", crash)
    notes = _common_notes(session) + _junk_leaf_note(session, values, skip_falsy=False)
    if size > _PI_OLD_STRING_LIMIT:
        notes.append(
            "over 512 MiB: pi 0.73.1 reads the whole file into one string and may fail to open it"
        )
    return PiVerdict("0.73.1", "loads", "loads it", tuple(notes))


def _verdict_new(
    session: Session,
    buf: Buffer,
    head: Head | None,
    values: list[tuple[int, Any]],
    no_message: frozenset[int],
) -> PiVerdict:
    if head is None or not head.is_header:
        reason = _refusal_new(head)
        if buf[:3] == BOM:
            return PiVerdict(
                "1.x",
                "refuses",
                "refuses it: a UTF-8 byte order mark hides the header; not listed, the file is "
                "left alone",
            )
        return reason
    loop = _leaf_hang(session, values, skip_falsy=True)
    if loop is not None:
        return PiVerdict("1.x", "hangs", loop)
    crash = _null_message_crash(session, values, no_message, skip_falsy=True)
    if crash is not None:
        return PiVerdict("1.x", "crashes", crash)
    notes = _common_notes(session) + _junk_leaf_note(session, values, skip_falsy=True)
    if head.end > _PI_NEW_HEADER_SCAN:
        notes.append(
            "the header ends after the first MiB: --continue and id lookups skip this file"
        )
    if session.pending or (len(buf) and buf[len(buf) - 1 :] != b"\n"):
        notes.append("the last line has no newline: opening it appends one to the file")
    return PiVerdict("1.x", "loads", "loads it", tuple(notes))


def _junk_leaf(
    session: Session, values: list[tuple[int, Any]], *, skip_falsy: bool
) -> tuple[int, Any] | None:
    """A JSON value that is not an object after the last entry: pi keeps such values as entries,
    so it becomes pi's leaf (and the session opens with an empty context)."""
    last = session.entries[-1].line if session.entries else 0
    after = [(line, v) for line, v in values if line > last and (js_truthy(v) or not skip_falsy)]
    return after[-1] if after else None


def _leaf_hang(session: Session, values: list[tuple[int, Any]], *, skip_falsy: bool) -> str | None:
    leaf = session.leaf
    if leaf is None or _junk_leaf(session, values, skip_falsy=skip_falsy) is not None:
        return None
    loop = _leaf_loop(session)
    if loop is None:
        return None
    return (
        f"hangs opening it: the parent chain of the leaf (line {leaf.line}) loops at line "
        f"{loop.line}, and pi walks it until it runs out of memory"
    )


def _null_message_crash(
    session: Session, values: list[tuple[int, Any]], no_message: frozenset[int], *, skip_falsy: bool
) -> str | None:
    """Resuming crashes when a message entry without a message is on the active branch (see
    :func:`pitui.core.doctor.messages_without_message`); the file still opens and lists."""
    if _junk_leaf(session, values, skip_falsy=skip_falsy) is not None:
        return None  # pi's leaf is that value: its branch is empty
    for meta in session.branch():
        if meta.line in no_message:
            return (
                f"crashes resuming it (TypeError): the message entry of line {meta.line}, on "
                "the active branch, has no message"
            )
    return None


def _junk_leaf_note(
    session: Session, values: list[tuple[int, Any]], *, skip_falsy: bool
) -> list[str]:
    junk = _junk_leaf(session, values, skip_falsy=skip_falsy)
    if junk is None:
        return []
    return [
        f"line {junk[0]} is {_describe(junk[1])}, not an entry: pi takes it for the leaf and "
        "opens the session with an empty context"
    ]


def _common_notes(session: Session) -> list[str]:
    notes: list[str] = []
    kinds = {p.kind for p in session.problems}
    if ProblemKind.VERSION_TRAP in kinds:
        notes.append(
            "no format version but a tree: opening it rewrites the file as one chain "
            "(the branches are lost)"
        )
    elif session.original_version < 3:
        notes.append(f"format version {session.original_version}: opening it rewrites the file "
                     "as version 3")  # fmt: skip
    if ProblemKind.DUPLICATE_ID in kinds:
        notes.append("duplicate ids: its tree shows the later entry twice, the earlier not at all")
    if ProblemKind.CYCLE in kinds or ProblemKind.SELF_PARENT in kinds:
        notes.append("entries on a parent loop are missing from its tree")
    return notes
