"""The disposable SQLite index: what pitui remembers between runs, the one cache of the listing.

Lives in ``$XDG_CACHE_HOME/pitui/index.sqlite3``. Deleting it loses nothing. Each file's row is
keyed by ``(size, mtime_ns, inode, device)`` and holds the listing record (whole, and as the
little a warm ``pitui list --json`` needs: the sort fields and its JSON text ready to print),
the session's ``modified`` (the picker's first page is the newest rows: :meth:`Index.newest`),
the byte offset parsed so far and the resumable :class:`~pitui.core.summary.SummaryState`; a
file that only grew is parsed from that offset (the worker checks the file's first line and the
bytes just before the offset to notice a file rewritten in place). A listing is a scan of the
folders, these rows for the files whose key is unchanged, and summaries of the others.

Robustness: WAL mode and a busy timeout let several pitui processes share the file. A damaged
file is deleted and rebuilt, with a one-line warning (:attr:`Index.warnings`); if the cache
directory cannot be used at all, the index lives in memory for this process. A write that stays
locked past the timeout is skipped (the listing is still correct, just not cached). Nothing here
raises :mod:`sqlite3` errors to the caller.

Full text (:mod:`pitui.core.fulltext` makes the bodies and queries): an FTS5 table without stored
content (the bodies stay in the session files; a hit names the file, the entry id and the
entry's byte range, so a snippet is re-read from the file). Contentless FTS5 rows cannot be
deleted here (SQLite 3.40); rows of replaced or deleted files are orphaned (their ``fts_docs``
row is removed, so they never show) and the table is rebuilt when orphans outnumber a quarter of
the live rows.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pitui.core.record import Record

if TYPE_CHECKING:
    # (imported where used: a warm listing needs neither the parsing code nor the full text)
    from pitui.core.file_summary import FileSummary, Resume
    from pitui.core.fulltext import FtsResult, FtsTask, TextHit
    from pitui.core.session_info import SessionInfo

__all__ = [
    "FTS_RANK_MAX",
    "INDEX_FILE",
    "Cached",
    "Index",
]

INDEX_FILE = "index.sqlite3"
# (the brief column is in marshal's format: another format version rebuilds the index)
# 8: tokens by pi's rule (core/facts.py); 9: the one cache (a modified column, no folder
# tables); 10: the newest rows indexed by (modified, path); 11: label times in the row and the
# summary state (core/labels.py: every label of a listing, with its age, from the index); 12: a
# header problem in the row and the summary state (files pi lists but cannot resume are listed,
# marked: issue 20.5)
SCHEMA_VERSION = f"12-{marshal.version}"
# Files older versions kept beside the index (whole outputs, first pages): removed with them.
_OLD_CACHE_FILES = ("index.sqlite3.out-*", "first-page-*.marshal")
BUSY_TIMEOUT_MS = 5000
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
    modified INTEGER,  -- NULL: not a session
    brief BLOB,
    listing BLOB,
    row BLOB
);
CREATE INDEX IF NOT EXISTS files_dir ON files (dir);
CREATE INDEX IF NOT EXISTS files_newest ON files (modified, path);
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
        from pitui.core.session_info import SessionInfo
        from pitui.core.summary import load_json

        if self.row is None:
            return None
        return SessionInfo.from_row(self.path, self.size, load_json(self.row))


class Index:
    """The index database. Thread-safe (one connection behind a lock).

    ``path=None`` keeps it in memory (used when the cache directory is unusable, and by tests).
    """

    def __init__(self, path: Path | None, *, create_dir: bool = True) -> None:
        self.path = path
        self.warnings: list[str] = []
        self._lock = threading.RLock()
        self._create_dir = create_dir
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
                    self._drop_old_files()
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
        # (folders and overlays: tables of older versions)
        for name in ("fts", "fts_docs", "states", "overlays", "folders", "files", "meta"):
            conn.execute(f"DROP TABLE IF EXISTS {name}")

    def _drop_old_files(self) -> None:
        if self.path is None:
            return
        import glob

        for pattern in _OLD_CACHE_FILES:
            for leftover in glob.glob(os.path.join(glob.escape(str(self.path.parent)), pattern)):
                with contextlib.suppress(OSError):
                    os.unlink(leftover)

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
        ``None``): plain tuples ``(path, brief, payload)``, where ``brief`` is the column
        :func:`_listing_columns` describes and ``payload`` the ``SessionInfo.to_row()`` JSON,
        or with ``brief=True`` its :func:`~pitui.core.session_info.listing_element` (``None``
        for a file that is not a session). Three columns, no objects: a warm listing is mostly
        this."""
        payload = "listing" if brief else "row"
        return self._select(f"path, brief, {payload}", dirs)

    def newest(self, dirs: Iterable[str], limit: int) -> list[Cached]:
        """The rows of the sessions directly in ``dirs`` with the newest ``modified``, newest
        first (ties by path), at most ``limit`` (``-1``: all): a picker's first page."""
        wanted = [d for d in dict.fromkeys(dirs) if _storable(d)]
        columns = "path, dir, size, mtime_ns, ino, dev, offset, row"
        # many folders: walk the newest rows (files_newest) and keep those of the folders, not
        # sort every row of every folder (40 ms for 10,000 sessions; this is 1 ms)
        folder = "+dir" if len(wanted) > 4 else "dir"

        def op(conn: sqlite3.Connection) -> list[Cached]:
            found: list[tuple[Any, ...]] = []
            for part, marks in _chunks(wanted):
                found.extend(
                    conn.execute(
                        f"SELECT modified, {columns} FROM files WHERE {folder} IN ({marks}) "
                        "AND modified IS NOT NULL ORDER BY modified DESC, path LIMIT ?",
                        [*part, limit],
                    )
                )
            found.sort(key=lambda row: (-row[0], row[1]))  # (the chunks' rows merged)
            return [Cached(*row[1:]) for row in (found if limit < 0 else found[:limit])]

        return self._run(op, [], write=False)

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

        from pitui.core.file_summary import Resume

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
                "INSERT INTO files (path, dir, size, mtime_ns, ino, dev, offset, modified, brief, "
                "listing, row) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO "
                "UPDATE SET dir = excluded.dir, size = excluded.size, "
                "mtime_ns = excluded.mtime_ns, ino = excluded.ino, dev = excluded.dev, "
                "offset = excluded.offset, modified = excluded.modified, "
                "brief = excluded.brief, listing = excluded.listing, row = excluded.row",
                [
                    (
                        r.path,
                        dirs.get(r.path) or os.path.dirname(r.path),
                        *r.key,
                        r.offset,
                        *_listing_columns(r),
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
        from pitui.core.fulltext import FtsTask

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
        from pitui.core.fulltext import TextHit, fts_match_expression

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


def _listing_columns(result: FileSummary) -> tuple[int | None, bytes, bytes | None]:
    """The ``modified``, ``brief`` and ``listing`` columns of a file (see :meth:`Index.listing`):
    ``brief`` is marshal of ``(key,)`` for a file that is not a session, else of ``(key,
    modified, parentSessionPath, name, cwd, id)``; marshal is decoded faster than JSON, and a
    warm listing imports no JSON library. ``listing`` is the session's element of ``pitui list
    --json`` (:func:`~pitui.core.session_info.listing_element`)."""
    if result.row is None:
        return None, marshal.dumps((tuple(result.key),)), None
    fields, listing = result.brief, result.listing
    if fields is None or listing is None:  # (made by the worker; a summary made by hand)
        from pitui.core.session_info import SessionInfo, brief_of, listing_element

        info = SessionInfo.from_row(result.path, result.key[0], result.row)
        fields = brief_of(info)
        listing = listing_element(info)
    return fields[0], marshal.dumps((tuple(result.key), *fields)), listing


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


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text
