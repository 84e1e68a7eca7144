"""What is wrong with a session file: the edge cases of format §14, what makes it big, and whether
pi would load it.

Read-only: nothing here writes, and nothing offers a repair. Per file the doctor reports

- every problem the reader found (:class:`~pitui.core.session.Session` problems: malformed and
  truncated lines, duplicate headers and ids, orphans, cycles, labels on missing entries, BOM, ...)
  plus its own: a parent written after its child, a last line still being written, temp files
  left by an interrupted rewrite, and the file-level cases (empty, not a session, v4 harness,
  unreadable);
- the largest entries, with what their bytes are (images, tool output, text, ...);
- whether pi 0.73.1 and pi 1.x would load the file (:mod:`pitui.core.pi_verdict`).

Severities: ``error`` (entries lost, or the file refused), ``warning`` (odd structure; pi loads it
but may show it wrongly), ``note`` (nothing wrong: an old format, a line being written). A file is
healthy when it has no error and no warning.
"""

from __future__ import annotations

import os
import stat
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pitui.core.big_entries import BigEntry, bytes_by_kind, largest_entries
from pitui.core.edit import STALE_TEMP_SECONDS, TEMP_NAME
from pitui.core.js import js_trim
from pitui.core.jsonl import Buffer, open_buffer
from pitui.core.pi_verdict import (
    Head,
    PiVerdict,
    blank_verdicts,
    first_values,
    loaded_verdicts,
    refusals,
    unreadable_verdicts,
)
from pitui.core.pools import run_tasks
from pitui.core.problems import Problem, ProblemKind
from pitui.core.session import (
    Session,
    SessionError,
    UnreadableError,
    UnsupportedFormatError,
)
from pitui.core.units import format_bytes, format_duration, plural

__all__ = [
    "BigEntry",
    "FileReport",
    "Severity",
    "Status",
    "TempFile",
    "diagnose_bytes",
    "diagnose_file",
    "diagnose_paths",
    "find_temp_files",
    "headline",
    "messages_without_message",
    "report_lines",
    "severity",
]

Severity = Literal["error", "warning", "note"]
Status = Literal["ok", "problems", "empty", "not-a-session", "unsupported", "unreadable"]

_SEVERITY: dict[ProblemKind, Severity] = {
    ProblemKind.MALFORMED: "error",
    ProblemKind.TRUNCATED: "error",
    ProblemKind.BOM: "error",  # pi 1.x refuses the file
    ProblemKind.NOT_A_SESSION: "error",
    ProblemKind.UNSUPPORTED_FORMAT: "error",
    ProblemKind.UNREADABLE: "error",
    ProblemKind.INVALID_UTF8: "warning",
    ProblemKind.DUPLICATE_HEADER: "warning",
    ProblemKind.DUPLICATE_ID: "warning",
    ProblemKind.MISSING_ID: "warning",
    ProblemKind.ORPHAN: "warning",
    ProblemKind.SELF_PARENT: "warning",
    ProblemKind.CYCLE: "warning",
    ProblemKind.LABEL_TARGET_MISSING: "warning",
    ProblemKind.VERSION_TRAP: "warning",
    ProblemKind.PARENT_AFTER_CHILD: "warning",
    ProblemKind.EMPTY: "warning",
    ProblemKind.STALE_TEMP: "warning",
    ProblemKind.NO_MESSAGE: "error",
    ProblemKind.MIGRATED: "note",
    ProblemKind.PENDING: "note",
}

LARGEST = 5  # entries listed per file
# A temp file younger than this may belong to a rewrite that is running right now.
TEMP_GRACE_SECONDS = STALE_TEMP_SECONDS
# Below this many bytes in all, worker processes cost more than they save.
PARALLEL_MIN_BYTES = 32 * 1024 * 1024
_BLANK_SCAN_BYTES = 4 << 20


def severity(kind: ProblemKind) -> Severity:
    return _SEVERITY.get(kind, "warning")


# ----------------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class TempFile:
    """A ``.<name>.<random>.tmp`` file of an atomic rewrite, in a session folder."""

    path: str
    target: str  # the session file it was going to replace
    size: int
    age: float  # seconds since it was last written

    @property
    def stale(self) -> bool:
        return self.age >= TEMP_GRACE_SECONDS

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "target": self.target,
            "size": self.size,
            "ageSeconds": round(self.age, 1),
            "stale": self.stale,
        }


@dataclass(slots=True)
class FileReport:
    """Everything the doctor found about one file."""

    path: str
    status: Status
    size: int | None
    version: int | None = None
    entries: int = 0
    problems: list[Problem] = field(default_factory=list)
    pi: tuple[PiVerdict, PiVerdict] | None = None  # (0.73.1, 1.x)
    largest: list[BigEntry] = field(default_factory=list)
    bytes_by_kind: dict[str, int] = field(default_factory=dict)
    temp_files: list[TempFile] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not any(severity(p.kind) != "note" for p in self.problems)

    def counts(self) -> Counter[Severity]:
        return Counter(severity(p.kind) for p in self.problems)

    def add_temp_files(self, temps: Iterable[TempFile]) -> None:
        """Attach the rewrite leftovers of this file's folder (stale ones are problems)."""
        for temp in temps:
            self.temp_files.append(temp)
            if temp.stale:
                name, size = os.path.basename(temp.path), format_bytes(temp.size)
                self.problems.append(
                    Problem(
                        ProblemKind.STALE_TEMP,
                        0,
                        0,
                        f"leftover temp file {name} ({size}, {format_duration(temp.age)} old) "
                        "from an interrupted rewrite; the session file itself is complete",
                    )
                )
        self.problems.sort(key=lambda p: (p.line, p.offset))
        if self.status == "ok" and not self.healthy:
            self.status = "problems"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "healthy": self.healthy,
            "size": self.size,
            "version": self.version,
            "entries": self.entries,
            "problems": [
                {
                    "kind": str(p.kind),
                    "severity": severity(p.kind),
                    "line": p.line,
                    "offset": p.offset,
                    "reason": p.reason,
                }
                for p in self.problems
            ],
            "pi": {v.version: v.to_json() for v in self.pi} if self.pi else None,
            "largest": [big.to_json() for big in self.largest],
            "bytesByKind": dict(self.bytes_by_kind),
            "tempFiles": [temp.to_json() for temp in self.temp_files],
        }


# ------------------------------------------------------------------------------- entry points


def diagnose_file(
    path: str | os.PathLike[str],
    *,
    final: bool | None = None,
    largest: int = LARGEST,
    temp_files: bool = True,
) -> FileReport:
    """Diagnose one file. Never writes, never raises because of what the file holds or because
    it cannot be read. ``final`` as for :meth:`Session.open` (None: decided by the file's age);
    ``temp_files`` also looks for this file's rewrite leftovers in its folder."""
    name = os.fspath(path)
    size: int | None = None
    try:
        st = os.stat(name)
        if not stat.S_ISREG(st.st_mode):
            # never open a FIFO or a device: opening a FIFO waits for a writer forever
            what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            report = _unreadable(name, None, what)
            return _with_temp_files(report) if temp_files else report
        size = st.st_size
        session: Session | SessionError = _open(name, final)
        with open_buffer(name) as buf:
            report = _diagnose(name, buf, session, largest)
    except OSError as exc:
        report = _unreadable(name, size, f"{exc.strerror or exc}")
    except UnreadableError as exc:
        report = _unreadable(name, size, _strip_path(str(exc), name))
    return _with_temp_files(report) if temp_files else report


def _with_temp_files(report: FileReport) -> FileReport:
    target = os.path.abspath(report.path)
    folder = os.path.dirname(target)
    report.add_temp_files(t for t in find_temp_files(folder) if t.target == target)
    return report


def diagnose_bytes(
    data: bytes, path: str = "<memory>", *, final: bool = True, largest: int = LARGEST
) -> FileReport:
    """Diagnose content held in memory (tests, a file read by someone else)."""
    session: Session | SessionError
    try:
        session = Session.from_bytes(data, path, final=final)
    except SessionError as exc:
        session = exc
    return _diagnose(path, data, session, largest)


def diagnose_paths(
    paths: Sequence[str],
    *,
    workers: int | None = None,
    largest: int = LARGEST,
    progress: Callable[[int, int], None] | None = None,
) -> list[FileReport]:
    """Diagnose many files, in worker processes when there is enough to read, in the order
    given. Each file's folder is searched for rewrite leftovers (see :func:`find_temp_files`)."""
    sizes = [_size_or_zero(p) for p in paths]
    count = max(1, workers if workers is not None else (os.cpu_count() or 1))
    found: list[tuple[int, FileReport]] = []
    tasks = list(enumerate(paths))
    batches = run_tasks(
        tasks, sizes, _diagnose_group, (largest,), None, count, min_bytes=PARALLEL_MIN_BYTES
    )
    for batch in batches:
        found.extend(batch)
        if progress is not None:
            progress(len(found), len(paths))
    reports = [report for _, report in sorted(found, key=lambda item: item[0])]
    by_folder: dict[str, list[TempFile]] = {}
    for report in reports:
        folder = os.path.dirname(os.path.abspath(report.path))
        if folder not in by_folder:
            by_folder[folder] = find_temp_files(folder)
        target = os.path.abspath(report.path)
        report.add_temp_files(t for t in by_folder[folder] if t.target == target)
    return reports


def find_temp_files(folder: str, *, now: float | None = None) -> list[TempFile]:
    """Temp files of :func:`pitui.core.edit.atomic_write` in ``folder`` (``.<name>.<8>.tmp``).

    A rewrite killed between creating its temp file and renaming it leaves one behind; the
    session file is then still the complete old one."""
    found: list[TempFile] = []
    clock = time.time() if now is None else now
    try:
        with os.scandir(folder) as listing:
            for item in listing:
                match = TEMP_NAME.match(item.name)
                if match is None:
                    continue
                try:
                    st = item.stat(follow_symlinks=False)
                except OSError:
                    continue
                found.append(
                    TempFile(
                        item.path,
                        os.path.join(os.path.abspath(folder), match.group("target")),
                        st.st_size,
                        max(0.0, clock - st.st_mtime),
                    )
                )
    except OSError:
        return []
    found.sort(key=lambda t: t.path)
    return found


# ----------------------------------------------------------------------------------- internals


def _open(path: str, final: bool | None) -> Session | SessionError:
    try:
        return Session.open(path, final=final)
    except UnreadableError:
        raise
    except SessionError as exc:
        return exc


def _diagnose_safely(path: str, largest: int) -> FileReport:
    try:
        return diagnose_file(path, largest=largest, temp_files=False)
    except Exception as exc:  # a bug or MemoryError on one file must not hide the others
        return _unreadable(path, _size_or_none(path), f"internal error while reading: {exc!r}")


def _diagnose_group(tasks: list[tuple[int, str]], largest: int) -> list[tuple[int, FileReport]]:
    """A pool task: the reports of ``(position, path)`` tasks, with their positions."""
    return [(position, _diagnose_safely(path, largest)) for position, path in tasks]


def _size_or_none(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def _size_or_zero(path: str) -> int:
    return _size_or_none(path) or 0


def _strip_path(message: str, path: str) -> str:
    prefix = f"{path}: "
    return message[len(prefix) :] if message.startswith(prefix) else message


def _unreadable(path: str, size: int | None, reason: str) -> FileReport:
    return FileReport(
        path,
        "unreadable",
        size,
        problems=[Problem(ProblemKind.UNREADABLE, 0, 0, f"cannot read the file: {reason}")],
        pi=unreadable_verdicts(reason),
    )


def _diagnose(path: str, buf: Buffer, session: Session | SessionError, largest: int) -> FileReport:
    size = len(buf)
    heads = first_values(buf)
    if isinstance(session, SessionError):
        return _not_loaded(path, buf, session, heads)
    try:
        no_message = messages_without_message(session)
        problems = list(session.problems)
        problems.extend(_parents_after_children(session))
        problems.extend(no_message)
        if session.pending:
            problems.append(
                Problem(
                    ProblemKind.PENDING,
                    session.next_line,
                    session.end_offset,
                    f"the last line has no newline yet ({session.pending} bytes): pi is "
                    "probably writing it (it is read once it is finished)",
                )
            )
        problems.sort(key=lambda p: (p.line, p.offset))
        report = FileReport(
            path,
            "ok",
            size,
            version=session.original_version,
            entries=len(session.entries),
            problems=problems,
        )
        report.pi = loaded_verdicts(session, buf, heads, no_message)
        report.largest = largest_entries(session, largest)
        report.bytes_by_kind = bytes_by_kind(session)
    finally:
        session.close()
    if not report.healthy:
        report.status = "problems"
    return report


def _not_loaded(
    path: str,
    buf: Buffer,
    error: SessionError,
    heads: tuple[Head | None, Head | None],
) -> FileReport:
    size = len(buf)
    reason = _strip_path(str(error), path)
    if _is_blank(buf):
        problem = Problem(
            ProblemKind.EMPTY,
            1,
            0,
            "empty file" if size == 0 else "the file holds only blank lines",
        )
        return FileReport(path, "empty", size, problems=[problem], pi=blank_verdicts(size))
    where = heads[0] if heads[0] is not None else heads[1]
    line, offset = (where.line, where.offset) if where is not None else (1, 0)
    status: Status
    if isinstance(error, UnsupportedFormatError):
        status = "unsupported"
        problem = Problem(ProblemKind.UNSUPPORTED_FORMAT, line, offset, reason)
    else:
        status = "not-a-session"
        problem = Problem(ProblemKind.NOT_A_SESSION, line, offset, reason)
    return FileReport(
        path,
        status,
        size,
        problems=[problem],
        pi=refusals(heads),
    )


def _is_blank(buf: Buffer) -> bool:
    if len(buf) > _BLANK_SCAN_BYTES:
        return False
    return not js_trim(bytes(buf).decode("utf-8", "replace"))


# --------------------------------------------------------------------------- structure checks


def _parents_after_children(session: Session) -> list[Problem]:
    """Entries whose parent comes later in the file. pi appends a parent before its children,
    so this is an edited or damaged file. A duplicated parent id is already reported (its
    children point at the later copy): only a parent with no occurrence before the child counts.
    """
    first_line: dict[str, int] = {}
    for meta in session.entries:
        if meta.id is not None and meta.id not in first_line:
            first_line[meta.id] = meta.line
    found: list[Problem] = []
    for meta in session.entries:
        parent = meta.parent
        if parent is None or parent.line < meta.line or parent.id is None:
            continue
        if first_line.get(parent.id, parent.line) < meta.line:
            continue
        found.append(
            Problem(
                ProblemKind.PARENT_AFTER_CHILD,
                meta.line,
                meta.offset,
                f"parent {parent.id!r} comes later in the file (line {parent.line}); pi always "
                "writes a parent first",
            )
        )
    return found


def messages_without_message(session: Session) -> list[Problem]:
    """Message entries whose ``message`` is null or missing: pi reads ``entry.message.role`` of
    each message entry on the branch it resumes (and 0.73.1 of those before the first assistant
    message at every write), and throws."""
    found: list[Problem] = []
    for meta in session.entries:
        if meta.type != "message" or meta.role not in (None, "?"):  # (no role: look closer)
            continue
        raw = session.raw(meta)
        if raw.get("message") is None:
            what = "null" if "message" in raw else "missing"
            found.append(
                Problem(
                    ProblemKind.NO_MESSAGE,
                    meta.line,
                    meta.offset,
                    f"a message entry whose message is {what}: pi throws when it is on the "
                    "branch it resumes",
                )
            )
    return found


# ------------------------------------------------------------------------------- human report


def headline(report: FileReport) -> str:
    """``healthy``, or what is wrong in a few words (``2 errors, 1 warning``)."""
    if report.healthy:
        return "healthy"
    counts = report.counts()
    parts = [plural(counts[level], level) for level in ("error", "warning") if counts[level]]
    status = {
        "empty": "empty",
        "not-a-session": "not a pi session",
        "unsupported": "unsupported format",
        "unreadable": "unreadable",
    }.get(report.status)
    return (f"{status}: " if status else "") + ", ".join(parts)


def report_lines(
    report: FileReport, *, detailed: bool = True, max_problems: int | None = None
) -> list[str]:
    """The doctor's human report of one file, as plain lines (``pitui doctor PATH`` prints them;
    the app shows them). ``detailed`` adds the largest entries and what the bytes are; past
    ``max_problems`` problems, one line says how many more there are.
    Session text (problem reasons quote lines) is left as is: whoever shows it sanitizes it."""
    lines: list[str] = []
    out = lines.append
    out(f"{report.path}: {headline(report)}")
    if report.status in ("ok", "problems"):
        version = f"format version {report.version}" if report.version is not None else ""
        entries = f"{report.entries} entr{'ies' if report.entries != 1 else 'y'}"
        out(f"  file       {format_bytes(report.size)}, {entries}, {version}")
    if report.pi is not None:
        for verdict in report.pi:
            out(f"  pi {verdict.version:<7} {verdict.reason}")
            for note in verdict.notes:
                out(f"             {note}")
    shown = report.problems if max_problems is None else report.problems[:max_problems]
    if shown:
        out("  problems")
        for problem in shown:
            where = f"line {problem.line} (byte {problem.offset})" if problem.line else "file"
            out(f"    {severity(problem.kind):<8} {where}: {problem.kind}: {problem.reason}")
        more = len(report.problems) - len(shown)
        if more > 0:
            out(f"    … and {more} more (--json lists them all)")
    if not detailed:
        return lines
    for temp in report.temp_files:
        if not temp.stale:
            out(f"  note       {os.path.basename(temp.path)}: a rewrite may be running right now")
    if report.largest:
        out("  largest entries")
        for big in report.largest:
            what = f"{big.type}/{big.role}" if big.role else big.type
            parts = ", ".join(
                f"{kind} {format_bytes(n)}" for kind, n in list(big.parts.items())[:3]
            )
            images = f"; {plural(big.images, 'image')}" if big.images else ""
            out(
                f"    line {big.line} (byte {big.offset})  {format_bytes(big.length)}  {big.uid} "
                f"{what}: {parts}{images}"
            )
    if report.bytes_by_kind and report.size:
        total = report.size
        shares = ", ".join(
            f"{kind} {format_bytes(n)} ({100 * n / total:.0f}%)"
            for kind, n in list(report.bytes_by_kind.items())[:6]
        )
        out(f"  by kind    {shares}")
    return lines
