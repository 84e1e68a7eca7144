"""The disposable SQLite index: one row per session file, and a full-text index of message bodies.

Lives in ``$XDG_CACHE_HOME/pitui/index.sqlite3``. Deleting it loses nothing. Each file's row is
keyed by ``(size, mtime_ns, inode, device)`` and holds the listing record (whole, and as the
little a warm ``pitui list --json`` needs: the sort fields and its JSON text ready to print),
the byte offset parsed so far and the resumable :class:`~pitui.core.summary.SummaryState`; a
file that only grew is parsed from that offset (the worker checks the file's first line and the
bytes just before the offset to notice a file rewritten in place).

Folder listings (tables ``folders`` and ``overlays``, written by the store): for each folder,
the keys of all its files and the listing records of its sessions in one marshal blob, plus an
overlay of what changed since; a warm ``pitui list --json`` reads these and no per-file row.
They are checked against the files' keys every time, so a stale one only costs a re-read.

Whole outputs (:meth:`Index.put_output`): a command's output in a file of its own beside the
database (``index.sqlite3.out-<crc32 of its name>``), replaced atomically, with what its caller
needs to tell whether it still holds.

Robustness: WAL mode and a busy timeout let several pitui processes share the file. A damaged
file is deleted and rebuilt, with a one-line warning (:attr:`Index.warnings`); if the cache
directory cannot be used at all, the index lives in memory for this process. A write that stays
locked past the timeout is skipped (the listing is still correct, just not cached). Nothing here
raises :mod:`sqlite3` errors to the caller.

Full text: an FTS5 table without stored content (the bodies stay in the session files; a hit
names the file, the entry id and the entry's byte range, so a snippet is re-read from the file).
Contentless FTS5 rows cannot be deleted here (SQLite 3.40); rows of replaced or deleted files
are orphaned (their ``fts_docs`` row is removed, so they never show) and the table is rebuilt
when orphans outnumber a quarter of the live rows.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import re
import sqlite3
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pitui.core.js import JS_WHITESPACE, js_trim
from pitui.core.record import Record

if TYPE_CHECKING:
    # (imported where used: a warm listing needs none of the parsing code)
    from pitui.core.summary import FileSummary, Resume, SessionInfo

__all__ = [
    "FTS_BODY_CAP",
    "FTS_RANK_MAX",
    "INDEX_FILE",
    "Cached",
    "FtsResult",
    "FtsTask",
    "Index",
    "TextHit",
    "decode_brief",
    "entry_body",
    "extract_bodies",
    "fts_match_expression",
    "hit_snippet",
]

INDEX_FILE = "index.sqlite3"
# (the brief column is in marshal's format: another format version rebuilds the index)
SCHEMA_VERSION = f"8-{marshal.version}"  # 8: tokens by pi's rule (core/facts.py)
BUSY_TIMEOUT_MS = 5000
# Characters of one message body given to the full-text index (a 10 MB tool output is cut).
FTS_BODY_CAP = 256 * 1024
# Up to this many matching entries a full-text query is ranked by relevance; beyond, by recency.
FTS_RANK_MAX = 10_000
# Rebuild the full-text table when orphaned rows exceed this share of the live rows.
_FTS_ORPHAN_SHARE = 0.25
_FTS_ORPHAN_MIN = 10_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    dir TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    dev INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    fts_offset INTEGER NOT NULL DEFAULT 0,
    fts_line INTEGER NOT NULL DEFAULT 1,
    brief BLOB,
    listing BLOB,
    row BLOB
);
CREATE INDEX IF NOT EXISTS files_dir ON files (dir);
CREATE TABLE IF NOT EXISTS folders (dir TEXT PRIMARY KEY, listing BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS overlays (dir TEXT PRIMARY KEY, overlay BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS states (
    path TEXT PRIMARY KEY,
    head BLOB NOT NULL,
    seam BLOB NOT NULL,
    state BLOB NOT NULL,
    text BLOB,  -- NULL: the message texts were not read (only counted)
    text_tail BLOB
);
-- the few files stored without their texts, found without reading every row
CREATE INDEX IF NOT EXISTS states_untexted ON states (path) WHERE text IS NULL;
CREATE TABLE IF NOT EXISTS fts_docs (
    rowid INTEGER PRIMARY KEY,
    file INTEGER NOT NULL,
    entry_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    offset INTEGER NOT NULL,
    length INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS fts_docs_file ON fts_docs (file);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5 (
    body, content='', tokenize='unicode61 remove_diacritics 2'
);
"""

T = TypeVar("T")

# SQLite limits the variables of one statement: ``IN (…)`` lists are sent this many at a time.
_CHUNK = 500


def _chunks(values: Sequence[str]) -> Iterator[tuple[list[str], str]]:
    """``values`` in slices for ``IN (…)``: each slice with its ``?,?,…`` placeholders."""
    for start in range(0, len(values), _CHUNK):
        part = list(values[start : start + _CHUNK])
        yield part, ",".join("?" * len(part))


class Cached(Record):
    """What the index knows of one file."""

    __slots__ = ("dev", "dir", "ino", "mtime_ns", "offset", "path", "row", "size")

    def __init__(
        self,
        path: str,
        dir: str,
        size: int,
        mtime_ns: int,
        ino: int,
        dev: int,
        offset: int,
        row: bytes | None,  # SessionInfo.to_row() as JSON; None: not a session
    ) -> None:
        self.path = path
        self.dir = dir
        self.size = size
        self.mtime_ns = mtime_ns
        self.ino = ino
        self.dev = dev
        self.offset = offset
        self.row = row

    @property
    def key(self) -> tuple[int, int, int, int]:
        return (self.size, self.mtime_ns, self.ino, self.dev)

    def info(self) -> SessionInfo | None:
        from pitui.core.summary import SessionInfo, load_json

        if self.row is None:
            return None
        return SessionInfo.from_row(self.path, self.size, load_json(self.row))


class TextHit(Record):
    """One full-text hit: the session file and the entry (id and byte range of its line).

    ``entry_id`` is what :class:`~pitui.core.session.Session` calls the entry's uid for ordinary
    files (the entry id; ``#<line>`` for an entry without id; the migrated id of a v1 file). If
    a file repeats an id, ``offset`` is what identifies the entry (``EntryMeta.offset``).
    """

    __slots__ = ("entry_id", "kind", "length", "offset", "path", "rank")

    def __init__(
        self,
        path: str,
        entry_id: str,
        kind: str,  # user, assistant, toolResult, bashExecution, custom, compaction, …
        offset: int,
        length: int,
        rank: float | None,  # FTS5 bm25 rank (lower is better); None: too many matches
    ) -> None:
        self.path = path
        self.entry_id = entry_id
        self.kind = kind
        self.offset = offset
        self.length = length
        self.rank = rank


class FtsTask(Record):
    __slots__ = ("file", "line", "path", "start")

    def __init__(self, file: int, path: str, start: int, line: int) -> None:
        self.file = file
        self.path = path
        self.start = start
        self.line = line


class FtsResult(Record):
    __slots__ = ("docs", "end", "error", "file", "line", "path")

    def __init__(
        self,
        file: int,
        path: str,
        end: int,  # offset after the last complete line read
        line: int,  # line number at ``end``
        docs: list[tuple[str, str, int, int, str]],  # (entry_id, kind, offset, length, body)
        error: str | None = None,
    ) -> None:
        self.file = file
        self.path = path
        self.end = end
        self.line = line
        self.docs = docs
        self.error = error


class Index:
    """The index database. Thread-safe (one connection behind a lock).

    ``path=None`` keeps it in memory (used when the cache directory is unusable, and by tests).
    """

    def __init__(self, path: Path | None, *, create_dir: bool = True) -> None:
        self.path = path
        self.warnings: list[str] = []
        self._lock = threading.RLock()
        self._create_dir = create_dir
        self._outputs: dict[str, list[bytes]] = {}  # put_output's, in memory
        self._conn = self._open()

    @classmethod
    def default_path(cls) -> Path:
        from pitui.core.paths import cache_dir

        return cache_dir() / INDEX_FILE

    # ---------------------------------------------------------------- opening and recovery

    def _warn(self, message: str) -> None:
        line = " ".join(message.split())
        if line not in self.warnings:
            self.warnings.append(line)

    def _connect(self, target: str) -> sqlite3.Connection:
        conn = sqlite3.connect(
            target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if target != ":memory:":
                conn.execute("PRAGMA journal_mode = WAL")
            # a disposable cache: no fsync; a file damaged by a crash is detected and rebuilt
            conn.execute("PRAGMA synchronous = OFF")
            version = None
            has_meta = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
            ).fetchone()
            if has_meta:
                found = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
                version = found[0] if found else None
            if version != SCHEMA_VERSION:
                if has_meta:
                    self._drop_all(conn)
                conn.executescript(_SCHEMA)
                conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)",
                    (SCHEMA_VERSION,),
                )
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _drop_all(conn: sqlite3.Connection) -> None:
        for name in ("fts", "fts_docs", "states", "overlays", "folders", "files", "meta"):
            conn.execute(f"DROP TABLE IF EXISTS {name}")

    def _open(self) -> sqlite3.Connection:
        if self.path is None:
            return self._connect(":memory:")
        try:
            if self._create_dir:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            return self._connect(str(self.path))
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                self._warn(f"index {self.path} is locked by another process; not caching")
                return self._connect(":memory:")
            return self._recover(exc)
        except sqlite3.DatabaseError as exc:
            return self._recover(exc)
        except OSError as exc:
            self._warn(
                f"cannot use the index in {self.path.parent} ({exc.strerror}); "
                "keeping it in memory instead"
            )
            return self._connect(":memory:")

    def _recover(self, exc: Exception) -> sqlite3.Connection:
        """A damaged or unusable index file: delete it and start a fresh one (or go in memory)."""
        assert self.path is not None
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                os.unlink(str(self.path) + suffix)
        try:
            conn = self._connect(str(self.path))
        except (sqlite3.Error, OSError):
            self._warn(f"index {self.path} is unusable ({exc}); keeping it in memory instead")
            return self._connect(":memory:")
        self._warn(f"index {self.path} was unusable ({exc}); rebuilt it")
        return conn

    def _run(self, op: Callable[[sqlite3.Connection], T], fallback: T, *, write: bool) -> T:
        """Run ``op`` under the lock; a damaged file is rebuilt and ``op`` tried once more; a
        lock that outlasts the timeout skips ``op`` (returning ``fallback``)."""
        with self._lock:
            for attempt in (1, 2):
                try:
                    if not write:
                        return op(self._conn)
                    self._conn.execute("BEGIN IMMEDIATE")
                    try:
                        result = op(self._conn)
                    except BaseException:
                        with contextlib.suppress(sqlite3.Error):
                            self._conn.execute("ROLLBACK")
                        raise
                    self._conn.execute("COMMIT")
                    return result
                except sqlite3.OperationalError as exc:
                    if _is_busy(exc):
                        self._warn(f"index {self.path} stayed locked; results not cached this time")
                        return fallback
                    if attempt == 2 or self.path is None:
                        self._warn(f"index error ({exc}); continuing without it")
                        return fallback
                    self._reset(exc)
                except sqlite3.DatabaseError as exc:
                    if attempt == 2 or self.path is None:
                        self._warn(f"index error ({exc}); continuing without it")
                        return fallback
                    self._reset(exc)
                except (sqlite3.Error, ValueError, OverflowError) as exc:
                    # a value SQLite cannot take: that write is skipped, the listing stays right
                    self._warn(f"index could not store a value ({exc}); continuing")
                    return fallback
            return fallback

    def _reset(self, exc: Exception) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._conn.close()
        self._conn = self._recover(exc)

    def close(self) -> None:
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._conn.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- listing rows

    def cached(self, dirs: Iterable[str] | None = None) -> dict[str, Cached]:
        """Rows of the files directly in ``dirs`` (all rows when ``None``)."""
        rows = self._select("path, dir, size, mtime_ns, ino, dev, offset, row", dirs)
        return {row[0]: Cached(*row) for row in rows}

    def listing(self, dirs: Iterable[str] | None = None, *, brief: bool = False) -> list[Any]:
        """What a listing checks and shows of the files directly in ``dirs`` (all when
        ``None``): plain tuples ``(path, brief, payload)``, where ``brief`` is
        :func:`decode_brief`'s input and ``payload`` the ``SessionInfo.to_row()`` JSON, or with
        ``brief=True`` its :func:`~pitui.core.summary.listing_element` (``None`` for a file
        that is not a session). Three columns, no objects: a warm listing is mostly this."""
        payload = "listing" if brief else "row"
        return self._select(f"path, brief, {payload}", dirs)

    def listing_of(self, paths: Sequence[str], *, brief: bool = False) -> list[Any]:
        """:meth:`listing`'s rows of these files (those the index has)."""
        paths = [p for p in paths if _storable(p)]
        payload = "listing" if brief else "row"

        def op(conn: sqlite3.Connection) -> list[Any]:
            rows: list[Any] = []
            for part, marks in _chunks(paths):
                rows.extend(
                    conn.execute(
                        f"SELECT path, brief, {payload} FROM files WHERE path IN ({marks})", part
                    )
                )
            return rows

        return self._run(op, [], write=False)

    def folder_listings(
        self, dirs: Iterable[str] | None = None
    ) -> dict[str, tuple[bytes, bytes | None]]:
        """The stored listing of each whole folder among ``dirs`` (all when ``None``), as the
        store wrote it (:meth:`put_folders`): ``(base, overlay)``, each marshal of ``({path:
        key}, [Listed tuple, …])``: the keys of every ``.jsonl`` file the folder had and the
        records of its sessions; the overlay (or None) holds what changed since the base (a
        key ``False``: the file is gone). Valid while the folder's files have exactly those
        keys; a warm listing reads only these."""

        def op(conn: sqlite3.Connection) -> dict[str, tuple[bytes, bytes | None]]:
            # (the overlays in a table of their own: writing one never rewrites a base)
            if dirs is None:
                bases = dict(conn.execute("SELECT dir, listing FROM folders").fetchall())
                overlays = dict(conn.execute("SELECT dir, overlay FROM overlays").fetchall())
            else:
                wanted = [d for d in dict.fromkeys(dirs) if _storable(d)]
                bases, overlays = {}, {}
                for part, marks in _chunks(wanted):
                    bases.update(
                        conn.execute(
                            f"SELECT dir, listing FROM folders WHERE dir IN ({marks})", part
                        )
                    )
                    overlays.update(
                        conn.execute(
                            f"SELECT dir, overlay FROM overlays WHERE dir IN ({marks})", part
                        )
                    )
            return {d: (base, overlays.get(d)) for d, base in bases.items()}

        return self._run(op, {}, write=False)

    def put_folders(self, listings: dict[str, tuple[bytes | None, bytes | None]]) -> None:
        """Store folder listings (see :meth:`folder_listings`): ``(base, overlay)``, or
        ``(None, overlay)`` to keep the base and replace the overlay."""
        whole = [(d, base, over) for d, (base, over) in listings.items() if base is not None]
        overlays = [(over, d) for d, (base, over) in listings.items() if base is None]
        whole = [item for item in whole if _storable(item[0])]
        overlays = [item for item in overlays if _storable(item[1])]
        if not whole and not overlays:
            return

        def op(conn: sqlite3.Connection) -> None:
            conn.executemany(
                "INSERT OR REPLACE INTO folders (dir, listing) VALUES (?, ?)",
                [(d, base) for d, base, _ in whole],
            )
            conn.executemany("DELETE FROM overlays WHERE dir = ?", [(d,) for d, _, _ in whole])
            conn.executemany(
                "INSERT OR REPLACE INTO overlays (dir, overlay) VALUES (?, ?)",
                [(d, over) for over, d in overlays],
            )

        self._run(op, None, write=True)

    # ---------------------------------------------------------------- whole outputs

    def _output_path(self, name: str) -> Path | None:
        if self.path is None:
            return None
        digest = zlib.crc32(name.encode("utf-8", "surrogatepass"))
        return self.path.with_name(f"{self.path.name}.out-{digest:08x}")

    def output(self, name: str) -> list[bytes] | None:
        """The parts of a stored output (see :meth:`put_output`), or None."""
        path = self._output_path(name)
        if path is None:
            return self._outputs.get(name)
        try:
            with open(path, "rb") as handle:  # (a read per part: megabytes copied once)
                size = int.from_bytes(handle.read(8), "little")
                stored, lengths = marshal.loads(handle.read(size))
                if stored != name:
                    return None  # another name with the same file name
                parts = [handle.read(length) for length in lengths]
                if list(map(len, parts)) != lengths or handle.read(1):
                    return None  # a damaged file
        except (OSError, ValueError, EOFError, TypeError, MemoryError, OverflowError):
            return None
        return parts

    def put_output(self, name: str, parts: list[bytes]) -> None:
        """Keep a command's whole output under ``name`` in ``parts`` (the output and what tells
        the caller whether it still holds: see :meth:`~pitui.core.store.Store.listed_json`).
        A file of its own beside the database: read in one system call, where SQLite reads a
        blob a page at a time."""
        path = self._output_path(name)
        if path is None:
            self._outputs[name] = parts
            return
        from pitui.core.cachefile import replace_file

        head = marshal.dumps((name, [len(part) for part in parts]))
        replace_file(path, [len(head).to_bytes(8, "little") + head, *parts])

    def forget_folders(self, dirs: Sequence[str]) -> None:
        """Drop whole folders that vanished: their files and their listings."""
        dirs = [d for d in dirs if _storable(d)]
        if not dirs:
            return

        def op(conn: sqlite3.Connection) -> list[str]:
            found: list[str] = []
            for part, marks in _chunks(dirs):
                found.extend(
                    row[0]
                    for row in conn.execute(f"SELECT path FROM files WHERE dir IN ({marks})", part)
                )
                conn.execute(f"DELETE FROM folders WHERE dir IN ({marks})", part)
                conn.execute(f"DELETE FROM overlays WHERE dir IN ({marks})", part)
            return found

        self.forget(self._run(op, [], write=True))

    def dirs_of(self, paths: Sequence[str]) -> dict[str, str]:
        """The directory each of ``paths`` was listed in."""
        paths = [p for p in paths if _storable(p)]

        def op(conn: sqlite3.Connection) -> dict[str, str]:
            found: dict[str, str] = {}
            for part, marks in _chunks(paths):
                found.update(
                    conn.execute(f"SELECT path, dir FROM files WHERE path IN ({marks})", part)
                )
            return found

        return self._run(op, {}, write=False)

    def _select(self, columns: str, dirs: Iterable[str] | None) -> list[Any]:
        def op(conn: sqlite3.Connection) -> list[Any]:
            query = f"SELECT {columns} FROM files"
            if dirs is None:
                return conn.execute(query).fetchall()
            wanted = [d for d in dict.fromkeys(dirs) if _storable(d)]
            rows: list[Any] = []
            for part, marks in _chunks(wanted):
                rows.extend(conn.execute(f"{query} WHERE dir IN ({marks})", part).fetchall())
            return rows

        return self._run(op, [], write=False)

    def resumes(self, paths: Sequence[str]) -> dict[str, Resume]:
        """Where parsing of ``paths`` stopped, for files that look like they only grew."""
        paths = [p for p in paths if _storable(p)]

        from pitui.core.summary import Resume

        def op(conn: sqlite3.Connection) -> dict[str, Resume]:
            found: dict[str, Resume] = {}
            for part, marks in _chunks(paths):
                for path, offset, head, seam, state, text in conn.execute(
                    "SELECT f.path, f.offset, s.head, s.seam, s.state, s.text FROM files f "
                    f"JOIN states s ON s.path = f.path WHERE f.path IN ({marks})",
                    part,
                ):
                    found[path] = Resume(
                        offset, head, seam, state, _text_of(text) if text is not None else ""
                    )
            return found

        return self._run(op, {}, write=False)

    def put(self, results: Sequence[FileSummary], dirs: dict[str, str]) -> bool:
        """Store summaries (``dirs`` maps each path to the directory it was listed in); False
        when they could not be stored (locked, damaged): the caller keeps the texts itself.

        A file parsed from the start (not resumed) under another key than the stored one loses
        its full-text rows: they described content that may be gone.
        """
        from pitui.core.summary import dump_json

        # a file name that is not UTF-8 cannot be a key: such a file is parsed every time
        good = [r for r in results if r.error is None and _storable(r.path)]
        if not good:
            return True

        def op(conn: sqlite3.Connection) -> bool:
            fresh = {r.path: r.key for r in good if not r.resumed}
            if fresh:
                self._orphan_fts(conn, self._rekeyed(conn, fresh))
            conn.executemany(
                "INSERT INTO files (path, dir, size, mtime_ns, ino, dev, offset, brief, listing, "
                "row) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET "
                "dir = excluded.dir, size = excluded.size, mtime_ns = excluded.mtime_ns, "
                "ino = excluded.ino, dev = excluded.dev, offset = excluded.offset, "
                "brief = excluded.brief, listing = excluded.listing, row = excluded.row",
                [
                    (
                        r.path,
                        dirs.get(r.path, os.path.dirname(r.path)),
                        *r.key,
                        r.offset,
                        *_brief_and_listing(r),
                        dump_json(r.row) if r.row is not None else None,
                    )
                    for r in good
                ],
            )
            conn.executemany(
                "INSERT OR REPLACE INTO states (path, head, seam, state, text, text_tail) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(r.path, r.head, r.seam, r.state, *_text_blobs(r)) for r in good],
            )
            return True

        return self._run(op, False, write=True)

    def forget(self, paths: Sequence[str]) -> None:
        """Drop files that vanished."""
        paths = [p for p in paths if _storable(p)]
        if not paths:
            return

        def op(conn: sqlite3.Connection) -> None:
            self._orphan_fts(conn, paths)
            for part, marks in _chunks(paths):
                conn.execute(f"DELETE FROM files WHERE path IN ({marks})", part)
                conn.execute(f"DELETE FROM states WHERE path IN ({marks})", part)

        self._run(op, None, write=True)

    def texts(self, paths: Sequence[str]) -> dict[str, str]:
        """allMessagesText of each path (as the picker searches it) whose texts were read."""
        paths = [p for p in paths if _storable(p)]

        def op(conn: sqlite3.Connection) -> dict[str, str]:
            found: dict[str, str] = {}
            for part, marks in _chunks(paths):
                for path, text, tail in conn.execute(
                    f"SELECT path, text, text_tail FROM states WHERE path IN ({marks}) "
                    "AND text IS NOT NULL",
                    part,
                ):
                    found[path] = _text_of(text + tail)
            return found

        return self._run(op, {}, write=False)

    def without_texts(self, paths: Sequence[str]) -> list[str]:
        """The sessions among ``paths`` stored without their message texts (see
        :meth:`~pitui.core.store.Store.index_texts`); read from a partial index of those
        files alone, so asking costs next to nothing when there are none."""
        wanted = set(paths)

        def op(conn: sqlite3.Connection) -> list[str]:
            return [
                path
                for (path,) in conn.execute(
                    "SELECT s.path FROM states s "
                    "JOIN files f ON f.path = s.path WHERE s.text IS NULL AND f.row IS NOT NULL"
                )
                if path in wanted
            ]

        return self._run(op, [], write=False)

    # ---------------------------------------------------------------- full text

    @staticmethod
    def _rekeyed(conn: sqlite3.Connection, keys: dict[str, tuple[int, int, int, int]]) -> list[str]:
        """The paths of ``keys`` stored under another key (a file only read again, for its
        texts or a damaged value, keeps its full-text rows)."""
        changed: list[str] = []
        for part, marks in _chunks(list(keys)):
            for path, *stored in conn.execute(
                f"SELECT path, size, mtime_ns, ino, dev FROM files WHERE path IN ({marks})", part
            ):
                if tuple(stored) != keys[path]:
                    changed.append(path)
        return changed

    def _orphan_fts(self, conn: sqlite3.Connection, paths: Sequence[str]) -> None:
        orphaned = 0
        for part, marks in _chunks(paths):
            ids = [
                row[0]
                for row in conn.execute(f"SELECT id FROM files WHERE path IN ({marks})", part)
            ]
            if not ids:
                continue
            id_marks = ",".join("?" * len(ids))
            orphaned += conn.execute(
                f"DELETE FROM fts_docs WHERE file IN ({id_marks})", ids
            ).rowcount
            conn.execute(
                f"UPDATE files SET fts_offset = 0, fts_line = 1 WHERE id IN ({id_marks})", ids
            )
        if orphaned:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('fts_orphans', ?) ON CONFLICT (key) "
                "DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value",
                (str(orphaned),),
            )

    def fts_todo(self, paths: Iterable[str]) -> list[FtsTask]:
        """Sessions among ``paths`` whose full-text rows lag behind their listing offset."""
        wanted = [p for p in paths if _storable(p)]

        def op(conn: sqlite3.Connection) -> list[FtsTask]:
            self._maybe_rebuild_fts(conn)
            todo: list[FtsTask] = []
            for part, marks in _chunks(wanted):
                todo.extend(
                    FtsTask(*row)
                    for row in conn.execute(
                        "SELECT id, path, fts_offset, fts_line FROM files WHERE row IS NOT NULL "
                        f"AND fts_offset < offset AND path IN ({marks})",
                        part,
                    )
                )
            return todo

        return self._run(op, [], write=True)

    def _maybe_rebuild_fts(self, conn: sqlite3.Connection) -> None:
        found = conn.execute("SELECT value FROM meta WHERE key = 'fts_orphans'").fetchone()
        orphans = int(found[0]) if found else 0
        if orphans < _FTS_ORPHAN_MIN:
            return
        live = conn.execute("SELECT COUNT(*) FROM fts_docs").fetchone()[0]
        if orphans <= live * _FTS_ORPHAN_SHARE:
            return
        conn.execute("DROP TABLE fts")
        conn.execute("DELETE FROM fts_docs")
        conn.execute("UPDATE files SET fts_offset = 0, fts_line = 1")
        conn.execute("DELETE FROM meta WHERE key = 'fts_orphans'")
        conn.execute(
            "CREATE VIRTUAL TABLE fts USING fts5 "
            "(body, content='', tokenize='unicode61 remove_diacritics 2')"
        )

    def fts_put(self, results: Sequence[FtsResult]) -> None:
        good = [r for r in results if r.error is None]
        if not good:
            return

        def op(conn: sqlite3.Connection) -> None:
            found = conn.execute("SELECT value FROM meta WHERE key = 'fts_next'").fetchone()
            next_rowid = int(found[0]) if found else 1
            docs: list[tuple[int, int, str, str, int, int]] = []
            bodies: list[tuple[int, str]] = []
            for result in good:
                for entry_id, kind, offset, length, body in result.docs:
                    docs.append((next_rowid, result.file, entry_id, kind, offset, length))
                    bodies.append((next_rowid, body))
                    next_rowid += 1
            conn.executemany(
                "INSERT INTO fts_docs (rowid, file, entry_id, kind, offset, length) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                docs,
            )
            conn.executemany("INSERT INTO fts (rowid, body) VALUES (?, ?)", bodies)
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('fts_next', ?)",
                (str(next_rowid),),
            )
            conn.executemany(
                "UPDATE files SET fts_offset = ?, fts_line = ? WHERE id = ? AND path = ?",
                [(r.end, r.line, r.file, r.path) for r in good],
            )

        self._run(op, None, write=True)

    def fts_search(
        self, query: str, *, limit: int = 50, paths: Iterable[str] | None = None
    ) -> list[TextHit]:
        """Entries whose body matches ``query`` (see :func:`fts_match_expression`).

        Best first (bm25) when at most :data:`FTS_RANK_MAX` entries match; a broader query
        (a common word) comes newest first instead (``rank`` is ``None``): ranking hundreds of
        thousands of matches would take seconds. ``paths`` restricts hits to those files.
        """
        expression = fts_match_expression(query)
        if expression is None:
            return []
        allowed = set(paths) if paths is not None else None

        def op(conn: sqlite3.Connection) -> list[TextHit]:
            matches = conn.execute(
                "SELECT COUNT(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)",
                (expression, FTS_RANK_MAX + 1),
            ).fetchone()[0]
            ranked = matches <= FTS_RANK_MAX
            inner = (
                "SELECT rowid, rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?"
                if ranked
                # rowids grow as files are indexed, oldest files first: the newest entries
                else "SELECT rowid, NULL AS rank FROM fts WHERE fts MATCH ? "
                "ORDER BY rowid DESC LIMIT ?"
            )
            sql = (
                f"SELECT f.path, d.entry_id, d.kind, d.offset, d.length, m.rank FROM ({inner}) m "
                "JOIN fts_docs d ON d.rowid = m.rowid JOIN files f ON f.id = d.file "
                + ("ORDER BY m.rank" if ranked else "ORDER BY m.rowid DESC")
            )
            fetch = limit * 4 if allowed is not None else limit + 16
            while True:
                rows = conn.execute(sql, (expression, fetch)).fetchall()
                hits = [TextHit(*row) for row in rows if allowed is None or row[0] in allowed]
                # orphaned rows and other folders' hits take places: fetch more if that cut us
                if len(hits) >= limit or len(rows) < fetch or fetch >= 1 << 22:
                    return hits[:limit]
                fetch *= 4

        try:
            return self._run(op, [], write=False)
        except sqlite3.Error:
            return []

    def fts_size(self) -> int:
        """Number of entries in the full-text index."""
        return self._run(
            lambda conn: int(conn.execute("SELECT COUNT(*) FROM fts_docs").fetchone()[0]),
            0,
            write=False,
        )


def _brief_and_listing(result: FileSummary) -> tuple[bytes, bytes | None]:
    """The ``brief`` and ``listing`` columns of a file (see :func:`decode_brief`)."""
    from pitui.core.summary import SessionInfo, listing_element

    if result.row is None:
        return marshal.dumps((tuple(result.key),)), None
    info = SessionInfo.from_row(result.path, result.key[0], result.row)
    brief = marshal.dumps(
        (tuple(result.key), info.modified, info.parent_session_path, info.name, info.cwd, info.id)
    )
    # made by the worker; a summary made without it (by hand) gets the same value here
    listing = result.listing if result.listing is not None else listing_element(info)
    return brief, listing


def decode_brief(data: bytes | None) -> tuple[Any, ...] | None:
    """The ``brief`` column: ``(key,)`` for a file that is not a session, else ``(key,
    modified, parentSessionPath, name, cwd, id)`` (``key`` is ``(size, mtime_ns, inode,
    device)``); ``None`` if unreadable. marshal: decoded faster than JSON, and a warm listing
    imports no JSON library."""
    if data is None:
        return None
    try:
        found = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return None
    return found if type(found) is tuple and found else None


def _storable(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _text_blobs(result: FileSummary) -> tuple[bytes | None, bytes | None]:
    """The ``text`` and ``text_tail`` columns: NULL when the texts were not read. Lone
    surrogates (from JSON "\ud83d" escapes) survive the round trip through a BLOB."""
    if not result.texts:
        return None, None
    return (
        result.text.encode("utf-8", "surrogatepass"),
        result.text_tail.encode("utf-8", "surrogatepass"),
    )


def _text_of(blob: bytes) -> str:
    return blob.decode("utf-8", "surrogatepass")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _sql_text(text: str) -> str:
    """Text SQLite can store (UTF-8): lone surrogates become U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


# ------------------------------------------------------------------------------------------------
# Full-text queries and bodies


def _fts_terms(query: str) -> list[tuple[str, bool]]:
    """``(text, is_prefix)`` of each word and ``"quoted phrase"`` of a full-text query."""
    terms: list[tuple[str, bool]] = []
    current: list[str] = []
    in_phrase = False

    def flush(phrase: bool) -> None:
        word = js_trim("".join(current))
        current.clear()
        prefix = not phrase and len(word) > 1 and word.endswith("*") and word.strip("*") != ""
        word = word.rstrip("*") if prefix else word
        if word:
            terms.append((word, prefix))

    for char in query:
        if char == '"':
            flush(in_phrase)
            in_phrase = not in_phrase
        elif not in_phrase and char in JS_WHITESPACE:
            flush(False)
        else:
            current.append(char)
    flush(in_phrase)
    return terms


def fts_match_expression(query: str) -> str | None:
    """A user query as an FTS5 expression: words and ``"quoted phrases"`` must all occur (any
    order, case and accents ignored); a word ending in ``*`` matches as a prefix. FTS5 operators
    in the input are taken literally, so no input is a syntax error. ``None`` if nothing to find.
    """
    terms = _fts_terms(query)
    if not terms:
        return None
    return " ".join(
        '"' + text.replace('"', '""') + '"' + ("*" if prefix else "") for text, prefix in terms
    )


def _texts(content: Any, sep: str = "\n") -> str:
    if isinstance(content, str):
        return content
    if type(content) is not list:
        return ""
    return sep.join(
        text
        for block in content
        if type(block) is dict
        and block.get("type") == "text"
        and isinstance(text := block.get("text"), str)
    )


def entry_body(obj: dict[str, Any]) -> tuple[str, str] | None:
    """``(kind, text)`` a full-text search finds in one entry, or ``None`` for entries without a
    message body (labels, model changes, …). Thinking and tool-call arguments are left out."""
    etype = obj.get("type")
    if etype == "message":
        message = obj.get("message")
        if type(message) is not dict:
            return None
        role = message.get("role")
        if not isinstance(role, str):
            return None
        if role == "bashExecution":
            command = message.get("command")
            output = message.get("output")
            parts = [p for p in (command, output) if isinstance(p, str) and p]
            return (role, "\n".join(parts)) if parts else None
        if role in ("branchSummary", "compactionSummary"):
            summary = message.get("summary")
            return (role, summary) if isinstance(summary, str) and summary else None
        text = _texts(message.get("content"))
        return (role, text) if text else None
    if etype == "custom_message":
        text = _texts(obj.get("content"))
        return ("custom_message", text) if text else None
    if etype in ("compaction", "branch_summary"):
        summary = obj.get("summary")
        return (etype, summary) if isinstance(summary, str) and summary else None
    return None


def extract_bodies(task: FtsTask) -> FtsResult:
    """Worker: the bodies of the complete lines of ``task.path`` from ``task.start``."""
    try:
        fd = os.open(task.path, os.O_RDONLY)
    except OSError as exc:
        return FtsResult(task.file, task.path, task.start, task.line, [], exc.strerror or str(exc))
    try:
        return _extract(fd, task)
    except OSError as exc:
        return FtsResult(task.file, task.path, task.start, task.line, [], exc.strerror or str(exc))
    finally:
        os.close(fd)


def _extract(fd: int, task: FtsTask) -> FtsResult:
    from pitui.core.jsonl import BOM, parse_json_line
    from pitui.core.migrate import header_version, v1_id
    from pitui.core.summary import read_lines

    size = os.fstat(fd).st_size
    docs: list[tuple[str, str, int, int, str]] = []
    v1 = False
    seen_header = task.start > 0
    if seen_header:  # ids of a v1 file come from line numbers: its header says which it is
        first = os.pread(fd, min(size, 1 << 20), 0).split(b"\n", 1)[0].removeprefix(BOM)
        header, _, _ = parse_json_line(first)
        v1 = type(header) is dict and header_version(header) < 2
    line_no = task.line
    buf_offset = task.start  # file offset of the buffer handed to consume

    def consume(buf: bytes, at_start: bool) -> int:
        nonlocal line_no, seen_header, v1, buf_offset
        pos = 0
        while True:
            nl = buf.find(b"\n", pos)
            if nl < 0:
                break
            line_start, number = pos, line_no
            line = buf[pos:nl]
            pos = nl + 1
            line_no += 1
            if at_start and line_start == 0:
                line = line.removeprefix(BOM)
            if not line or line.isspace():
                continue
            obj, _, _ = parse_json_line(line)
            if type(obj) is not dict:
                continue
            if not seen_header:
                seen_header = True
                v1 = header_version(obj) < 2
                continue
            found = entry_body(obj) if obj.get("type") != "session" else None
            if found is None:
                continue
            eid = obj.get("id")
            uid = eid if isinstance(eid, str) else v1_id(number) if v1 else f"#{number}"
            kind, text = found
            docs.append(
                (
                    _sql_text(uid),
                    _sql_text(kind),
                    buf_offset + line_start,
                    nl - line_start,
                    _sql_text(text[:FTS_BODY_CAP]),
                )
            )
        buf_offset += pos
        return pos

    end, _tail = read_lines(fd, task.start, size, consume)
    return FtsResult(task.file, task.path, end, line_no, docs)


def _line_text(path: str, offset: int, length: int) -> dict[str, Any] | None:
    from pitui.core.jsonl import BOM, parse_json_line

    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read(length)
    except OSError:
        return None
    obj, _, _ = parse_json_line(data.removeprefix(BOM))
    return obj if type(obj) is dict else None


def hit_snippet(hit: TextHit, query: str, width: int = 160) -> str:
    """One line of the hit's body around the first query term (re-read from the session file;
    ``""`` if the entry is gone). Line breaks and tabs become spaces; not sanitised for display."""
    obj = _line_text(hit.path, hit.offset, hit.length)
    found = entry_body(obj) if obj is not None else None
    if found is None:
        return ""
    text = " ".join(found[1].split())
    lowered = text.lower()
    position = -1
    for term, _ in _fts_terms(query):
        position = lowered.find(term.lower())
        if position >= 0:
            break
    start = max(0, position - width // 3) if position >= 0 else 0
    piece = text[start : start + width]
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(text) else "")
