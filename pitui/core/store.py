"""The session store: which files a scope lists, their :class:`SessionInfo`, search and full text.

Scopes (format §12.1, ui §2.3): ``"current"`` lists the ``.jsonl`` files directly in the current
folder's session directory (format §1.2) or in a custom ``--session-dir`` (§1.3: then only
sessions whose header cwd is the current folder, unless that directory is the default one);
``"all"`` lists every sub-directory of the sessions root (or the custom directory). Listing never
creates a directory; only the index creates its cache directory.

A listing is a scan of the folders (:mod:`pitui.core.scan`), the index's rows for the files whose
key is unchanged (:class:`~pitui.core.index.Index`, the one cache), and summaries of the others
(:mod:`pitui.core.reread`: a file that grew is read from where it stopped, the rest whole, in the
store's process pool, newest first), handed out in batches with progress ``(loaded, total)`` so
a picker can paint before the whole store is read.
``Store(use_index=False)`` computes everything from the files (the reference the index must
agree with). The picker's first page (:meth:`Store.first_page`) is the index's newest rows.

:meth:`Store.load_listed` is ``pitui list --json``'s fast path: records of
:class:`~pitui.core.listed.Listed` (the sort fields and the session's JSON text, ready to print)
instead of a :class:`SessionInfo` each; the threaded order of such records
(:func:`~pitui.core.order.threaded_order`) sends only the sessions in a fork relation through the
forest.

The picker's search, sort modes and Named filter (ui §2.4-§2.6) are :mod:`pitui.core.search`;
:meth:`Store.rows` applies them to a loaded list.
"""

from __future__ import annotations

import marshal
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from pitui.core import paths, pools
from pitui.core.index import Index
from pitui.core.listed import Listed, modified_of, path_of
from pitui.core.order import PathKeys, Row, S, ordered, path_keys
from pitui.core.reread import Progress, reread, stale_files
from pitui.core.scan import Candidate, Key, Scan, Unreadable, scan_dirs, subdirs

if TYPE_CHECKING:
    # (imported where used: a warm listing needs neither the parsing code, the search nor the
    # full text)
    from pitui.core.file_summary import FileSummary, Resume
    from pitui.core.fulltext import TextHit
    from pitui.core.search import SearchableSession, SortMode
    from pitui.core.session_info import SessionInfo

__all__ = [
    "Candidate",
    "Listed",
    "Progress",
    "Scope",
    "SessionInfo",
    "Store",
    "newest_named",
    "sort_sessions",
]

Scope = Literal["current", "all"]

FIRST_PAGE_SIZE = 150  # rows of a first page: more than the tallest terminal shows
NEWEST_NAMED = 8  # sessions read for a first page when the index has none
NEWEST_NAMED_MAX_BYTES = 2 * 1024 * 1024  # (a big session is left to the listing)


def sort_sessions(sessions: Iterable[SessionInfo]) -> list[SessionInfo]:
    """pi's listing order: ``modified`` newest first; ties by path (pi leaves them unspecified)."""
    return sorted(sessions, key=lambda s: (-s.modified, s.path))


def _expand(path: str) -> str:
    if path == "~" or path.startswith("~/"):
        path = paths.home() + path[1:]
    return os.path.normpath(os.path.abspath(path))


def __getattr__(name: str) -> Any:
    if name == "SessionInfo":  # re-exported, imported on first use
        from pitui.core.session_info import SessionInfo

        return SessionInfo
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def newest_named(folders: Iterable[str]) -> list[SessionInfo]:
    """The sessions among the :data:`NEWEST_NAMED` newest ``.jsonl`` names of ``folders``
    (pi's names start with the creation time), each read now; unreadable or big files, and
    files that are no session, are left out. A first page when the index has none."""
    import heapq

    from pitui.core.file_summary import summarise_file
    from pitui.core.session_info import SessionInfo

    names: list[tuple[str, str]] = []
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                names.extend(
                    (entry.name, entry.path)
                    for entry in entries
                    if entry.name.endswith(".jsonl") and entry.is_file()
                )
        except OSError:
            continue
    found: list[SessionInfo] = []
    for _name, path in heapq.nlargest(NEWEST_NAMED, names):
        try:
            if os.stat(path).st_size > NEWEST_NAMED_MAX_BYTES:
                continue
        except OSError:
            continue
        result = summarise_file(path)
        if result.row is not None:
            found.append(SessionInfo.from_row(path, result.key[0], result.row))
    return found


def _stat_key(path: str) -> Key | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


class Store:
    """Listing, search and full-text search over pi's sessions.

    ``cwd`` is the current folder (default: the process's); ``agent`` the agent directory
    (default: ``PI_CODING_AGENT_DIR`` rules); ``session_dir`` pi's ``--session-dir``.
    ``use_index=False`` never touches the cache (nor creates its directory). ``workers`` is the
    size of the parsing pool (default: the number of CPUs). ``collect_texts=False`` (a listing
    that will not search) reads files without keeping their message texts; a search then reads
    the texts it lacks (:meth:`load_texts`) and the index keeps them from then on.
    """

    def __init__(
        self,
        *,
        cwd: str | None = None,
        agent: Path | None = None,
        session_dir: str | None = None,
        use_index: bool = True,
        index_path: Path | None = None,
        workers: int | None = None,
        collect_texts: bool = True,
    ) -> None:
        self.cwd = paths.normalize_cwd(cwd if cwd is not None else os.getcwd())
        self.agent = agent if agent is not None else paths.agent_dir()
        self.session_dir = _expand(session_dir) if session_dir is not None else None
        self.workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
        self.use_index = use_index
        self.collect_texts = collect_texts
        self._index_path = index_path
        self._index: Index | None = None
        self._memory_index: Index | None = None  # full text without the cache (--no-index)
        self._links: set[str] = set()  # listed names that are symbolic links
        self._real_dirs: dict[str, str] = {}  # default_normalize_path of scanned folders
        self._scanned: Scan = {}  # the last scan, by folder
        self._unreadable: Unreadable = {}  # the folders the last scan could not list, and why
        self._root_unreadable: Unreadable = {}  # the sessions root, when scope_dirs could not
        # The sessions of the last listings, by path, with their files' keys: a reload hands
        # back the same object for a file that did not change, and with it the texts already
        # read (a picker following pi reloads many times a minute; new objects would read every
        # text again and hold a second copy of each).
        self._known: dict[str, tuple[Key, SessionInfo]] = {}

    # ---------------------------------------------------------------- the index

    @property
    def index(self) -> Index | None:
        """The cache index (opened on first use), or ``None`` with ``use_index=False``."""
        if not self.use_index:
            return None
        if self._index is None:
            self._index = Index(self._index_path or Index.default_path())
        return self._index

    @property
    def warnings(self) -> list[str]:
        """One-line warnings: the folders the last listing could not read (their sessions are
        missing from it), then the index's (damaged and rebuilt, locked, unusable)."""
        found = [
            f"cannot read the folder {folder} ({reason}): its sessions are not listed"
            for folder, reason in self._unreadable.items()
        ]
        for index in (self._index, self._memory_index):
            if index is not None:
                found.extend(index.warnings)
        return found

    @property
    def unreadable_folders(self) -> Unreadable:
        """The folders of the last listing that exist but could not be read, and why."""
        return dict(self._unreadable)

    def close(self) -> None:
        for index in (self._index, self._memory_index):
            if index is not None:
                index.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- which files

    def default_dir(self) -> str:
        return str(paths.session_dir_for(self.cwd, self.agent))

    def scope_dirs(self, scope: Scope) -> list[str]:
        """The directories whose ``.jsonl`` files make up ``scope``."""
        self._root_unreadable = {}
        if self.session_dir is not None:
            return [self.session_dir]
        if scope == "current":
            return [self.default_dir()]
        root = str(paths.sessions_root(self.agent))
        plain: list[str] = []
        dirs = subdirs(root, plain, self._root_unreadable)
        # realpath(root/name) of a name that is no link is realpath(root)/name: the threaded
        # view then resolves one path instead of every folder's (see _path_keys)
        real_root = paths.real_path(root) if plain else root
        self._real_dirs = {
            os.path.join(root, name): os.path.join(real_root, name) for name in plain
        }
        return dirs

    def _filters_cwd(self, scope: Scope) -> bool:
        # format §1.3: a custom directory lists only the current folder's sessions as "current"
        return (
            scope == "current"
            and self.session_dir is not None
            and os.path.normpath(self.session_dir) != os.path.normpath(self.default_dir())
        )

    def _in_scope(self, info: SessionInfo | Listed) -> bool:
        return info.cwd != "" and paths.normalize_cwd(info.cwd) == self.cwd

    def candidates(self, scope: Scope) -> list[Candidate]:
        """Every ``.jsonl`` name of the scope, newest file first (ties by path)."""
        links: list[str] = []
        found = [
            Candidate(path, folder, key)
            for folder, keys in self._scan(self.scope_dirs(scope), links).items()
            for path, key in keys.items()
        ]
        if links:
            linked = set(links)
            found = [Candidate(c.path, c.dir, c.key, c.path in linked) for c in found]
        found.sort(key=lambda c: (-(c.key[1] if c.key else -1), c.path))
        return found

    def _scan(self, dirs: list[str], links: list[str] | None = None) -> Scan:
        """The ``.jsonl`` names of each of ``dirs`` and their keys (see
        :func:`~pitui.core.scan.scan_dir`), kept as the last scan; the names that are links
        are added to ``links``."""
        unreadable = dict(self._root_unreadable)
        scanned, found = scan_dirs(dirs, unreadable)
        self._unreadable = unreadable
        self._links.update(found)
        if links is not None:
            links.extend(found)
        self._scanned = scanned
        return scanned

    # ---------------------------------------------------------------- listing

    def load(
        self,
        scope: Scope,
        *,
        progress: Progress | None = None,
        texts: bool = False,
        cancel: threading.Event | None = None,
    ) -> list[SessionInfo]:
        """The scope's sessions in pi's order (newest ``modified`` first)."""
        batches = self.iter_load(scope, progress=progress, texts=texts, cancel=cancel)
        return sort_sessions(info for batch in batches for info in batch)

    def iter_load(
        self,
        scope: Scope,
        *,
        progress: Progress | None = None,
        texts: bool = False,
        cancel: threading.Event | None = None,
    ) -> Iterator[list[SessionInfo]]:
        """Batches of the scope's sessions as they are ready (not sorted; see
        :func:`sort_sessions`). Cached rows come first, then parsed files, newest first.

        ``progress(loaded, total)`` is called once for the files the index already had, then
        after each parsed file (``total`` counts every ``.jsonl`` name, as pi does; nothing is
        reported for an empty scope). ``texts=True`` fills in ``all_messages_text`` (otherwise
        see :meth:`load_texts`). Setting ``cancel`` stops the load at the next batch. Meant to
        run in a worker thread; the generator may be closed early.
        """
        batches = self._iter(scope, progress=progress, texts=texts, cancel=cancel, brief=False)
        return cast("Iterator[list[SessionInfo]]", batches)

    def load_listed(
        self,
        scope: Scope,
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> list[Listed]:
        """The scope's sessions as :class:`Listed` records, in pi's order (like :meth:`load`).

        What ``pitui list --json`` needs and no more: a warm listing decodes a few fields per
        file and prints the stored JSON, instead of building a :class:`SessionInfo` each.
        """
        found: list[Listed] = []
        batches = self._iter(scope, progress=progress, texts=False, cancel=cancel, brief=True)
        for batch in batches:
            found.extend(cast("list[Listed]", batch))
        # (-modified, path) as stable sorts on C-level keys (modified is an int); ties are rare
        if len({item.modified for item in found}) < len(found):
            found.sort(key=path_of)
        found.sort(key=modified_of, reverse=True)
        return found

    def listed_json(
        self,
        scope: Scope,
        mode: SortMode = "threaded",
        named_only: bool = False,
        *,
        progress: Progress | None = None,
    ) -> bytes | None:
        """``pitui list --json`` without a search: the JSON array of the scope's sessions in
        ``mode``'s order (the bytes of :func:`~pitui.cli.common.json_text` of their
        ``to_json()``), or ``None`` when a session's JSON needs the standard encoder. Each
        session's element comes from its index row; only changed files are read."""
        elements = [
            item.listing
            for item in self.order(self.load_listed(scope, progress=progress), mode, named_only)
        ]
        if None in elements:
            return None
        if not elements:
            return b"[]"
        # (the brackets go on the ends: the output is copied once, by the join)
        elements[0] = b"[\n" + cast(bytes, elements[0])
        elements[-1] = cast(bytes, elements[-1]) + b"\n]"
        return b",\n".join(cast("list[bytes]", elements))

    def first_page(self, scope: Scope, size: int = FIRST_PAGE_SIZE) -> list[SessionInfo]:
        """The scope's newest sessions as the index has them, each file checked unchanged (a
        stat each): a picker shows them in its first frame, before its listing is done. When
        the index has none (a first run, a cleared cache), the sessions of the newest names
        stand in (:func:`newest_named`; not in a custom directory, whose "current" scope
        filters by cwd). Nothing without the index. May miss a session that changed since the
        last listing: the listing puts it in its place."""
        index = self.index
        if index is None:
            return []
        dirs = self.scope_dirs(scope)
        filters = self._filters_cwd(scope)
        found: list[SessionInfo] = []
        for cached in index.newest(dirs, -1 if filters else size):
            if _stat_key(cached.path) != cached.key:
                continue
            info = cached.info()
            if info is not None and (not filters or self._in_scope(info)):
                found.append(info)
                if len(found) == size:
                    break
        if not found and self.session_dir is None:
            found = newest_named(dirs)
        return found

    def _iter(
        self,
        scope: Scope,
        *,
        progress: Progress | None,
        texts: bool,
        cancel: threading.Event | None,
        brief: bool,
    ) -> Iterator[list[SessionInfo] | list[Listed]]:
        """:meth:`iter_load` (``brief=False``) or its :class:`Listed` batches (``brief=True``):
        the index's rows of the files whose key is unchanged, then summaries of the others."""
        scanned = self._scan(self.scope_dirs(scope))
        total = sum(map(len, scanned.values()))
        index = self.index
        keep = self._in_scope if self._filters_cwd(scope) else None
        every_folder = scope == "all" and self.session_dir is None
        keys: dict[str, Key | None] = {}
        for found in scanned.values():
            keys.update(found)
        rows: list[Any] = []  # (path, brief, payload) of the files the index knows
        if index is not None:
            rows = index.listing(None if every_folder else list(scanned), brief=brief)
        reuse = None if brief else self._known
        ready, loaded, stale, old_keys, missing = self._match(rows, keys, brief, keep, reuse)
        if missing and index is not None:
            self._forget(index, missing, scanned, every_folder)
        if ready and texts and index is not None:
            self._fill_texts(ready, index)
        if progress is not None and loaded:
            progress(loaded, total)  # everything the index had, at once
        if ready:
            yield ready
        if stale:
            yield from reread(
                stale_files(stale, scanned),
                old_keys,
                (loaded, total),
                index=index,
                workers=self.workers,
                read_texts=texts or self.collect_texts,
                keep_texts=texts,
                keep=keep,
                brief=brief,
                known=self._known,
                progress=progress,
                cancel=cancel,
            )

    @staticmethod
    def _match(
        rows: list[Any],
        keys: dict[str, Key | None],
        brief: bool,
        keep: Callable[[Any], bool] | None,
        reuse: dict[str, tuple[Key, SessionInfo]] | None = None,
    ) -> tuple[list[Any], int, list[str], dict[str, Key], list[str]]:
        """The index's ``rows`` against the scan's ``keys`` (emptied): the records of the
        files whose key is unchanged, how many files are answered (unreadable ones and files
        that are no session included), the paths to summarise, the stored keys of those that
        changed, and the rows of files that are gone. With ``reuse`` (``Store._known``) an
        unchanged file's record is the one given last time, and ``reuse`` is kept current."""
        if not brief:
            from pitui.core.session_info import SessionInfo
            from pitui.core.summary import load_json
        unmarshal = marshal.loads
        new = tuple.__new__
        ready: list[Any] = []
        loaded = 0
        stale: list[str] = []
        missing: list[str] = []
        old_keys: dict[str, Key] = {}
        for path, blob, payload in rows:
            if path not in keys:
                missing.append(path)
                if reuse is not None:
                    reuse.pop(path, None)
                continue
            key = keys.pop(path)
            if key is None:
                loaded += 1  # unreadable: counted, never listed
                continue
            try:  # see index._listing_columns: (key,) or (key, modified, parent, name, cwd, id)
                known = unmarshal(blob)
                if known[0] != key:
                    old_keys[path] = known[0]
                    stale.append(path)
                    continue
            except (ValueError, EOFError, TypeError, IndexError):
                stale.append(path)  # a damaged value: parsed again (and replaced)
                continue
            loaded += 1
            if len(known) == 1:
                continue  # not a session
            info: Any
            if brief:
                _, modified, parent, name, cwd, sid = known
                info = new(Listed, (path, modified, parent, name, cwd, sid, payload))
            else:
                previous = reuse.get(path) if reuse is not None else None
                if previous is not None and previous[0] == key:
                    info = previous[1]
                else:
                    info = SessionInfo.from_row(path, key[0], load_json(payload))
                    if reuse is not None:
                        reuse[path] = (key, info)
            if keep is None or keep(info):
                ready.append(info)
        for path, key in keys.items():  # not (yet) in the index
            if key is None:
                loaded += 1  # unreadable: counted, never listed
            else:
                stale.append(path)
        return ready, loaded, stale, old_keys, missing

    def _forget(self, index: Index, missing: list[str], scanned: Scan, every: bool) -> None:
        """Drop the rows of vanished files, and of folders that vanished from the root."""
        root = str(paths.sessions_root(self.agent))
        index.forget(
            [
                path
                for path, folder in index.dirs_of(missing).items()
                if folder in scanned or (every and os.path.dirname(folder) == root)
            ]
        )

    # ---------------------------------------------------------------- search

    def load_texts(
        self, sessions: Iterable[SessionInfo], *, progress: Progress | None = None
    ) -> None:
        """Fill in ``all_messages_text`` where it is missing: from the index, else from the
        files (read in the pool when there are many; the index keeps what they gave), with
        ``progress(files read, files to read)``."""
        missing = [s for s in sessions if s.all_messages_text is None]
        if not missing:
            return
        index = self.index
        if index is not None:
            self._fill_texts(missing, index)
            missing = [s for s in missing if s.all_messages_text is None]
        if not missing:
            return
        by_path = {info.path: info for info in missing}
        read = 0
        for results in self._read_texts(missing, None):
            for result in results:
                # (a file that vanished or stopped being a session has no text: none is searched)
                by_path[result.path].all_messages_text = result.search_text or ""
            read += len(results)
            if progress is not None:
                progress(read, len(missing))

    def index_texts(
        self, sessions: Sequence[SessionInfo], cancel: threading.Event | None = None
    ) -> int:
        """Read into the index the message texts of ``sessions`` it was given without (by a
        listing that did not search), so that a first search finds them there; returns how many
        files were read. Keeps nothing in memory."""
        index = self.index
        if index is None:
            return 0
        lacking = set(index.without_texts([info.path for info in sessions]))
        read = 0
        if lacking:
            for results in self._read_texts([s for s in sessions if s.path in lacking], cancel):
                read += len(results)
        return read

    def _read_texts(
        self, sessions: Sequence[SessionInfo], cancel: threading.Event | None
    ) -> Iterator[list[FileSummary]]:
        """Summaries of ``sessions``' files with their texts (in the pool when there are many),
        kept in the index as they come."""
        index = self.index
        paths = [info.path for info in sessions]
        tasks: list[tuple[str, Resume | None]] = [(path, None) for path in paths]
        dirs = index.dirs_of(paths) if index is not None else {}
        for results in pools.summaries(
            tasks, [info.size for info in sessions], cancel, True, self.workers
        ):
            if index is not None:
                index.put(results, dirs)
            yield results

    @staticmethod
    def _fill_texts(sessions: list[SessionInfo], index: Index) -> None:
        found = index.texts([s.path for s in sessions])
        for info in sessions:
            text = found.get(info.path)
            if text is not None:
                info.all_messages_text = text

    def rows(
        self,
        sessions: Sequence[SessionInfo],
        query: str,
        mode: SortMode = "threaded",
        named_only: bool = False,
        *,
        progress: Progress | None = None,
    ) -> list[Row[SessionInfo]]:
        """The picker's rows (ui §2.4-§2.6) for a loaded list in pi's order; loads the searched
        texts first when the query needs them (``progress`` as :meth:`load_texts` reports)."""
        if query.strip():
            self.load_texts(sessions, progress=progress)
        from pitui.core.search import filter_and_sort

        keys: list[PathKeys] = []  # made when the threaded view needs them (a search does not)

        def normalize(path: str) -> str:
            if not keys:
                keys.append(self._path_keys(sessions))
            return keys[0][path]

        return filter_and_sort(sessions, query, mode, named_only, normalize_path=normalize)

    def order(
        self, items: Sequence[S], mode: SortMode = "threaded", named_only: bool = False
    ) -> list[S]:
        """The picker's row order without a search query (what :meth:`rows` gives then), for
        records like :class:`Listed` that have no searchable text."""
        keys = self._path_keys(items)
        if named_only:
            from pitui.core.search import named_filter

            items = named_filter(items)
        return ordered(items, mode, keys)

    def _path_keys(self, sessions: Sequence[SearchableSession]) -> PathKeys:
        """The threaded view's path normalisation (see :func:`~pitui.core.order.path_keys`)."""
        return path_keys(self._scanned, self._real_dirs, self._links, sessions)

    # ---------------------------------------------------------------- full text

    def _fts_index(self) -> Index:
        index = self.index
        if index is not None:
            return index
        if self._memory_index is None:
            self._memory_index = Index(None)
        return self._memory_index

    def sync_fts(
        self,
        scope: Scope = "all",
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> int:
        """Bring the full-text index up to date for ``scope``; returns how many files were read.

        The first run over a large store reads every message body (slow: tens of seconds for
        gigabytes); later runs read only what was appended.
        """
        index = self._fts_index()
        if self.use_index:
            sessions = self.load(scope, cancel=cancel)
        else:  # no cache: list into this process's in-memory index first
            sessions = self._load_into(index, scope)
        # oldest sessions first: rowids then grow with time, which orders broad queries
        todo = index.fts_todo([s.path for s in reversed(sessions)])
        order = {s.path: i for i, s in enumerate(reversed(sessions))}
        todo.sort(key=lambda task: order.get(task.path, 0))
        sizes = {s.path: s.size for s in sessions}
        work = [sizes.get(t.path, 0) - t.start for t in todo]
        done = 0
        if progress is not None:
            progress(0, len(todo))
        for results in pools.run_tasks(todo, work, pools.extract_many, (), cancel, self.workers):
            index.fts_put(results)
            done += len(results)
            if progress is not None:
                progress(done, len(todo))
        return done

    def _load_into(self, index: Index, scope: Scope) -> list[SessionInfo]:
        from pitui.core.session_info import SessionInfo

        sessions: list[SessionInfo] = []
        candidates = self.candidates(scope)
        tasks: list[tuple[str, Resume | None]] = [(c.path, None) for c in candidates if c.key]
        dirs = {c.path: c.dir for c in candidates}
        sizes = [c.key[0] for c in candidates if c.key]
        keep = self._filters_cwd(scope)
        for results in pools.run_tasks(tasks, sizes, pools.summarise_many, (), None, self.workers):
            index.put(results, dirs)
            for result in results:
                if result.row is not None:
                    info = SessionInfo.from_row(result.path, result.key[0], result.row)
                    if not keep or self._in_scope(info):
                        sessions.append(info)
        return sessions

    def text_search(
        self, query: str, *, scope: Scope | None = None, limit: int = 50
    ) -> list[TextHit]:
        """Full-text hits over the indexed message bodies, best first; ``scope="current"``
        keeps hits in the current folder's sessions. Call :meth:`sync_fts` first."""
        index = self._fts_index()
        allowed: list[str] | None = None
        if scope is not None:
            allowed = [c.path for c in self.candidates(scope)]
            if self._filters_cwd(scope):
                rows = index.cached(self.scope_dirs(scope))
                allowed = [
                    path
                    for path in allowed
                    if (entry := rows.get(path)) is not None
                    and (info := entry.info()) is not None
                    and self._in_scope(info)
                ]
        return index.fts_search(query, limit=limit, paths=allowed)
