"""Usage statistics over many session files: sessions, messages, tokens and cost.

What is counted (format §6.2): every ``message`` entry is a message; tokens and cost come from
every entry that carries a usage (assistant messages, and [new] tool results, compactions, branch
summaries and ``usage`` entries). Messages inside a compaction's ``retainedTail`` are copies and
are never counted. Tokens follow pi's rule (:mod:`pitui.core.facts`): the sum of the four parts,
``totalTokens`` is not read.

Forks are not counted twice. pi's ``forkFrom`` copies every entry of the source verbatim, and
``/fork`` (``createBranchedSession``) and ``pitui extract`` copy the branch's entries with their ids
and timestamps, so the same entry can sit in several files. An entry is identified, independently
of the file it is in, by the key ``(id, timestamp, type)``; each key is counted once in a whole
run, credited to the first file read that holds it. Files are read oldest first (header
timestamp, then path), so the original session gets the credit and a fork only adds what was
written after the fork. An entry without an id (a damaged line) has no key and always counts.

Grouping (``by``): ``model`` is the model an entry belongs to (an assistant message's own
``provider/model``; a ``usage`` entry's own; anything else the model last seen before it in its
file, through assistant messages and ``model_change`` entries; ``(unknown)`` before any);
``project`` is the session's working folder; ``day`` is the entry's own timestamp in local time
(or ``tz``). A session counts in a group when at least one of its counted entries falls in it; in
``project`` a session always counts in its own folder. The per-day spend is always computed (the
app's chart draws it).

Reading is done in a process pool when there is enough to read, like the store's listing.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING, Any, Literal

from pitui.core import pools
from pitui.core.facts import Stats, Usage, model_text, usage_numbers
from pitui.core.js import parse_iso_ms
from pitui.core.pools import run_tasks
from pitui.core.session import Session, SessionError

if TYPE_CHECKING:
    from pitui.core.store import Scope, Store

__all__ = [
    "GROUP_BY",
    "EntryRecord",
    "FileScan",
    "GroupBy",
    "StatsBuilder",
    "StatsReport",
    "Tally",
    "collect_stats",
    "entry_key",
    "scan_file",
    "scan_session",
    "store_stats",
]

GroupBy = Literal["model", "project", "day"]
GROUP_BY: tuple[GroupBy, ...] = ("model", "project", "day")
UNKNOWN = "(unknown)"
Progress = Callable[[int, int], None]  # (files read, files in all)

# Below this many bytes, a process pool costs more than it saves: the store's floor.
POOL_MIN_BYTES = pools.POOL_MIN_BYTES


def entry_key(
    entry_id: str | None, timestamp: str | None, entry_type: str
) -> tuple[str, ...] | None:
    """The file-independent identity of an entry (see the module docstring)."""
    if entry_id is None:
        return None
    return (entry_id, timestamp or "", entry_type)


@dataclass(frozen=True, slots=True)
class EntryRecord:
    """What the statistics need of one entry: a message or an entry with a usage."""

    key: tuple[str, ...] | None
    is_message: bool
    role: str | None
    model: str
    usage: Usage | None
    timestamp: str | None


@dataclass(frozen=True, slots=True)
class FileScan:
    """One session file, reduced to its counted entries (small enough to cross processes)."""

    path: str
    session_id: str = ""
    cwd: str = ""
    created: str | None = None
    records: tuple[EntryRecord, ...] = ()
    error: str | None = None

    @property
    def order_key(self) -> tuple[float, str]:
        """Oldest first; a file without a readable creation time goes last."""
        millis = parse_iso_ms(self.created)
        return (float("inf") if millis is None else float(millis), self.path)


def scan_session(session: Session) -> FileScan:
    """The records of an open session, in file order."""
    records: list[EntryRecord] = []
    current = UNKNOWN
    for meta in session.entries:
        own: str | None = None
        if meta.type == "model_change" or (meta.type == "message" and meta.role == "assistant"):
            own = model_text(meta.provider, meta.model)
            if own is not None:
                current = own
        elif meta.type == "usage" and meta.usage is not None:
            raw = session.raw(meta)
            own = model_text(raw.get("provider"), raw.get("model"))
        is_message = meta.type == "message"
        if not is_message and meta.usage is None:
            continue
        records.append(
            EntryRecord(
                key=entry_key(meta.id, meta.timestamp, meta.type),
                is_message=is_message,
                role=meta.role,
                model=own or current,
                usage=usage_numbers(meta.usage) if meta.usage is not None else None,
                timestamp=meta.timestamp,
            )
        )
    return FileScan(
        path=session.path,
        session_id=session.id or "",
        cwd=session.cwd or "",
        created=session.created,
        records=tuple(records),
    )


def scan_file(path: str) -> FileScan:
    """Read one file; a file that cannot be read becomes a scan with ``error`` set."""
    try:
        with Session.open(path, final=True) as session:
            return scan_session(session)
    except SessionError as exc:
        return FileScan(path, error=str(exc))
    except OSError as exc:
        return FileScan(path, error=exc.strerror or str(exc))


def _scan_many(paths: Sequence[str]) -> list[FileScan]:
    """Pool task: one file that fails unexpectedly must not stop the others."""
    out: list[FileScan] = []
    for path in paths:
        try:
            out.append(scan_file(path))
        except Exception as exc:  # a bug or MemoryError on one file: report it, keep going
            out.append(FileScan(path, error=f"internal error: {exc!r}"))
    return out


# ------------------------------------------------------------------------------ aggregation


@dataclass(slots=True)
class Tally(Stats):
    """Counts and spend of one group (or of everything): a session's :class:`Stats`, summed
    over sessions."""

    sessions: int = 0

    def add(self, record: EntryRecord) -> None:
        if record.is_message:
            self.messages += 1
        if record.usage is not None:
            self.add_numbers(record.usage)

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "messages": self.messages,
            "tokens": self.tokens_json(),
            "cost": self.cost,
        }


@dataclass(slots=True)
class StatsReport:
    by: GroupBy | None
    totals: Tally
    groups: list[tuple[str, Tally]]  # model/project: by cost, largest first; day: by date
    daily: list[tuple[str, Tally]]  # every day with counted entries, oldest first
    files: int = 0  # files read as sessions
    replayed: int = 0  # messages / usages not counted again: counted in an earlier file
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)

    def to_json(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "totals": {**self.totals.to_json(), "replayedEntries": self.replayed},
            "groups": [{"key": key, **tally.to_json()} for key, tally in self.groups],
            "daily": [{"day": day, "cost": tally.cost} for day, tally in self.daily],
            "skipped": [{"path": path, "reason": reason} for path, reason in self.skipped],
        }


class StatsBuilder:
    """Adds file scans one by one (oldest file first for the fork rule) and reports."""

    def __init__(self, by: GroupBy | None = None, tz: tzinfo | None = None) -> None:
        self.by = by
        self.tz = tz
        self.totals = Tally()
        self.groups: dict[str, Tally] = {}
        self.daily: dict[str, Tally] = {}
        self.seen: set[tuple[str, ...]] = set()
        self.replayed = 0
        self.skipped: list[tuple[str, str]] = []
        self._day_cache: dict[str, str] = {}

    def day_of(self, timestamp: str | None) -> str:
        if timestamp is None:
            return UNKNOWN
        cached = self._day_cache.get(timestamp)
        if cached is not None:
            return cached
        millis = parse_iso_ms(timestamp)
        if millis is None:
            day = UNKNOWN
        else:
            moment = datetime.fromtimestamp(millis / 1000, UTC)
            # astimezone() without an argument is the local zone at that moment (DST included)
            local = moment.astimezone(self.tz) if self.tz is not None else moment.astimezone()
            day = local.date().isoformat()
        self._day_cache[timestamp] = day
        return day

    def _group_of(self, scan: FileScan, record: EntryRecord, day: str) -> str:
        if self.by == "model":
            return record.model
        if self.by == "project":
            return scan.cwd or UNKNOWN
        return day

    def add(self, scan: FileScan) -> None:
        if scan.error is not None:
            self.skipped.append((scan.path, scan.error))
            return
        self.totals.sessions += 1
        in_groups: set[str] = set()
        in_days: set[str] = set()
        if self.by == "project":
            in_groups.add(scan.cwd or UNKNOWN)
        seen = self.seen
        for record in scan.records:
            key = record.key
            if key is not None:
                if key in seen:
                    self.replayed += 1
                    continue
                seen.add(key)
            self.totals.add(record)
            day = self.day_of(record.timestamp)
            self.daily.setdefault(day, Tally()).add(record)
            in_days.add(day)
            if self.by is not None:
                group = self._group_of(scan, record, day)
                self.groups.setdefault(group, Tally()).add(record)
                in_groups.add(group)
        for group in in_groups:
            self.groups.setdefault(group, Tally()).sessions += 1
        for day in in_days:
            self.daily[day].sessions += 1

    def report(self) -> StatsReport:
        if self.by == "day":
            groups = sorted(self.groups.items())
        else:
            groups = sorted(self.groups.items(), key=lambda item: (-item[1].cost, item[0]))
        return StatsReport(
            by=self.by,
            totals=self.totals,
            groups=groups,
            daily=sorted((d, t) for d, t in self.daily.items() if d != UNKNOWN),
            files=self.totals.sessions,
            replayed=self.replayed,
            skipped=list(self.skipped),
        )


# ------------------------------------------------------------------------------ reading


def _file_size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def iter_scans(
    paths: Sequence[str],
    *,
    workers: int | None = None,
    cancel: threading.Event | None = None,
) -> Iterator[list[FileScan]]:
    """Batches of scans in completion order (not sorted): a pool when there is much to read."""
    workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    sizes = [_file_size(path) for path in paths]
    yield from run_tasks(
        list(paths), sizes, _scan_many, (), cancel, workers, min_bytes=POOL_MIN_BYTES
    )


def collect_stats(
    paths: Iterable[str],
    *,
    by: GroupBy | None = None,
    tz: tzinfo | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    workers: int | None = None,
) -> StatsReport:
    """Statistics over session files (see the module docstring for what counts and how).

    ``progress(read, total)`` after each batch; ``cancel`` stops early (the report then holds
    what was read so far).
    """
    unique = sorted(set(paths))
    scans: list[FileScan] = []
    for batch in iter_scans(unique, workers=workers, cancel=cancel):
        scans.extend(batch)
        if progress is not None:
            progress(len(scans), len(unique))
    builder = StatsBuilder(by, tz)
    for scan in sorted(scans, key=lambda s: s.order_key):
        builder.add(scan)
    return builder.report()


def store_stats(
    store: Store,
    scope: Scope,
    *,
    by: GroupBy | None = None,
    tz: tzinfo | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> StatsReport:
    """:func:`collect_stats` over the sessions the store lists for ``scope``."""
    sessions = store.load(scope, cancel=cancel)
    return collect_stats(
        [info.path for info in sessions],
        by=by,
        tz=tz,
        progress=progress,
        cancel=cancel,
        workers=store.workers,
    )
