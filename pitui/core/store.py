"""The session store: which files a scope lists, their :class:`SessionInfo`, search and full text.

Scopes (format §12.1, ui §2.3): ``"current"`` lists the ``.jsonl`` files directly in the current
folder's session directory (format §1.2) or in a custom ``--session-dir`` (§1.3: then only
sessions whose header cwd is the current folder, unless that directory is the default one);
``"all"`` lists every sub-directory of the sessions root (or the custom directory). Listing never
creates a directory; only the index creates its cache directory.

Loading goes through the disposable :class:`~pitui.core.index.Index`: unchanged files come from
it at once, files that grew are parsed from where they stopped, the rest are parsed in a process
pool, newest first, and handed out in batches with progress ``(loaded, total)`` so a picker can
paint before the whole store is read. ``Store(use_index=False)`` computes everything from the
files (the reference the index must agree with).

The picker's search, sort modes and Named filter (ui §2.4-§2.6) are :mod:`pitui.core.search`;
:meth:`Store.rows` applies them to a loaded list.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from pitui.core import paths
from pitui.core.index import (
    Cached,
    FtsResult,
    FtsTask,
    Index,
    TextHit,
    extract_bodies,
    hit_snippet,
)
from pitui.core.search import Row, SortMode, default_normalize_path, filter_and_sort
from pitui.core.summary import FileSummary, Resume, SessionInfo, summarise_file

__all__ = [
    "Candidate",
    "Progress",
    "Scope",
    "SessionInfo",
    "Store",
    "TextHit",
    "age_text",
    "hit_snippet",
    "sort_sessions",
]

Scope = Literal["current", "all"]
Progress = Callable[[int, int], None]  # (loaded, total)

# Below this many bytes to parse, a process pool costs more than it saves.
POOL_MIN_BYTES = 16 * 1024 * 1024
# Files per pool task: small first tasks so the first rows arrive early, bigger ones after.
_FIRST_TASK_FILES = 4
_TASK_FILES = 32
_TASK_BYTES = 16 * 1024 * 1024

if TYPE_CHECKING:
    import multiprocessing.context
    from concurrent.futures import Future

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A ``.jsonl`` name found in a scope directory; ``key`` is ``None`` when it cannot be
    read as a regular file (it still counts in the progress total, as in pi)."""

    path: str
    dir: str
    key: tuple[int, int, int, int] | None  # (size, mtime_ns, inode, device)
    link: bool = False  # the name is a symbolic link


def sort_sessions(sessions: Iterable[SessionInfo]) -> list[SessionInfo]:
    """pi's listing order: ``modified`` newest first; ties by path (pi leaves them unspecified)."""
    return sorted(sessions, key=lambda s: (-s.modified, s.path))


def age_text(modified_ms: float, now_ms: float | None = None) -> str:
    """The picker's age column (ui §2.2): now, 5m, 3h, 2d, 4w, 1mo, 1y (whole-unit floors)."""
    now = time.time() * 1000 if now_ms is None else now_ms
    seconds = (now - modified_ms) / 1000
    if seconds < 60:
        return "now"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 24:
        return f"{hours}h"
    days = hours // 24
    if days < 7:
        return f"{days}d"
    if days < 30:
        return f"{days // 7}w"
    if days < 365:
        return f"{days // 30}mo"
    return f"{days // 365}y"


def _expand(path: str) -> str:
    if path == "~" or path.startswith("~/"):
        path = paths.home() + path[1:]
    return os.path.normpath(os.path.abspath(path))


def _scan_dir(directory: str) -> list[Candidate]:
    """The ``.jsonl`` files directly in ``directory`` (none if it is missing or unreadable)."""
    found: list[Candidate] = []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if not entry.name.endswith(".jsonl"):
                    continue
                path = os.path.join(directory, entry.name)
                try:
                    link = entry.is_symlink()
                    st = entry.stat()
                except OSError:
                    found.append(Candidate(path, directory, None, True))
                    continue
                key = (
                    (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)
                    if stat.S_ISREG(st.st_mode)
                    else None
                )
                found.append(Candidate(path, directory, key, link))
    except OSError:
        pass
    return found


def _subdirs(root: str) -> list[str]:
    """Sub-directories of the sessions root (symbolic links to directories count, as in pi
    1.x); files lying directly in the root are not sessions of any folder."""
    dirs: list[str] = []
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                try:
                    if entry.is_dir():
                        dirs.append(os.path.join(root, entry.name))
                except OSError:
                    continue
    except OSError:
        pass
    return sorted(dirs)


def _summarise_many(tasks: Sequence[tuple[str, Resume | None]]) -> list[FileSummary]:
    """Pool task: one unreadable or unexpected file must not stop the others."""
    out: list[FileSummary] = []
    for path, resume in tasks:
        try:
            out.append(summarise_file(path, resume))
        except Exception as exc:  # a bug or MemoryError on one file: report it, keep going
            out.append(FileSummary(path, (0, 0, 0, 0), error=f"internal error: {exc!r}"))
    return out


def _extract_many(tasks: Sequence[FtsTask]) -> list[FtsResult]:
    out: list[FtsResult] = []
    for task in tasks:
        try:
            out.append(extract_bodies(task))
        except Exception as exc:
            out.append(FtsResult(task.file, task.path, task.start, task.line, [], repr(exc)))
    return out


def _groups(items: Sequence[T], sizes: Sequence[int], workers: int) -> list[list[T]]:
    """Pool tasks in order: the first ``workers`` small, then up to _TASK_FILES / _TASK_BYTES."""
    groups: list[list[T]] = []
    current: list[T] = []
    current_bytes = 0
    for item, size in zip(items, sizes, strict=True):
        limit = _FIRST_TASK_FILES if len(groups) < workers else _TASK_FILES
        if current and (len(current) >= limit or current_bytes + size > _TASK_BYTES):
            groups.append(current)
            current, current_bytes = [], 0
        current.append(item)
        current_bytes += size
    if current:
        groups.append(current)
    return groups


def _pool_context() -> multiprocessing.context.BaseContext:
    import multiprocessing

    # fork is cheapest, but forking a process that runs other threads (a UI) can deadlock the
    # child on a lock some thread held; then start workers from a clean server process.
    method = "fork" if threading.active_count() == 1 else "forkserver"
    return multiprocessing.get_context(method)


class Store:
    """Listing, search and full-text search over pi's sessions.

    ``cwd`` is the current folder (default: the process's); ``agent`` the agent directory
    (default: ``PI_CODING_AGENT_DIR`` rules); ``session_dir`` pi's ``--session-dir``.
    ``use_index=False`` never touches the cache (nor creates its directory). ``workers`` is the
    size of the parsing pool (default: the number of CPUs).
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
    ) -> None:
        self.cwd = paths.normalize_cwd(cwd if cwd is not None else os.getcwd())
        self.agent = agent if agent is not None else paths.agent_dir()
        self.session_dir = _expand(session_dir) if session_dir is not None else None
        self.workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
        self.use_index = use_index
        self._index_path = index_path
        self._index: Index | None = None
        self._memory_index: Index | None = None  # full text without the cache (--no-index)
        self._links: set[str] = set()  # listed names that are symbolic links

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
        """One-line warnings about the index (damaged and rebuilt, locked, unusable)."""
        found: list[str] = []
        for index in (self._index, self._memory_index):
            if index is not None:
                found.extend(index.warnings)
        return found

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
        if self.session_dir is not None:
            return [self.session_dir]
        if scope == "current":
            return [self.default_dir()]
        return _subdirs(str(paths.sessions_root(self.agent)))

    def _filters_cwd(self, scope: Scope) -> bool:
        # format §1.3: a custom directory lists only the current folder's sessions as "current"
        return (
            scope == "current"
            and self.session_dir is not None
            and os.path.normpath(self.session_dir) != os.path.normpath(self.default_dir())
        )

    def _in_scope(self, info: SessionInfo) -> bool:
        return info.cwd != "" and paths.normalize_cwd(info.cwd) == self.cwd

    def candidates(self, scope: Scope) -> list[Candidate]:
        """Every ``.jsonl`` name of the scope, newest file first (ties by path)."""
        found = [c for d in self.scope_dirs(scope) for c in _scan_dir(d)]
        found.sort(key=lambda c: (-(c.key[1] if c.key else -1), c.path))
        self._links.update(c.path for c in found if c.link)
        return found

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
        candidates = self.candidates(scope)
        total = len(candidates)
        loaded = 0
        index = self.index
        dirs = self.scope_dirs(scope)
        keep = (lambda info: self._in_scope(info)) if self._filters_cwd(scope) else None
        cached: dict[str, Cached] = {}
        if index is not None:
            every_folder = scope == "all" and self.session_dir is None
            cached = index.cached(None if every_folder else dirs)
            found = {c.path for c in candidates}
            scanned = set(dirs)
            root = str(paths.sessions_root(self.agent))
            # vanished files, and whole folder directories that vanished from the sessions root
            gone = [
                path
                for path, entry in cached.items()
                if path not in found
                and (entry.dir in scanned or (every_folder and os.path.dirname(entry.dir) == root))
            ]
            index.forget(gone)

        ready: list[SessionInfo] = []
        stale: list[Candidate] = []
        for candidate in candidates:
            entry = cached.get(candidate.path)
            if candidate.key is None:
                loaded += 1  # unreadable: counted, never listed
            elif entry is not None and entry.key == candidate.key:
                loaded += 1
                info = entry.info()
                if info is not None and (keep is None or keep(info)):
                    ready.append(info)
            else:
                stale.append(candidate)
        if ready and texts and index is not None:
            self._fill_texts(ready, index)
        if progress is not None and loaded:
            progress(loaded, total)  # everything the index had, at once
        if ready:
            yield ready

        # Sessions are append-only: a file that grew (same inode) is read from where it stopped
        # (the worker also checks its first line and the bytes before that offset). A file that
        # changed without growing (touched, edited in place) is read again whole.
        resumable = [
            c.path
            for c in stale
            if (entry := cached.get(c.path)) is not None
            and c.key is not None
            and (entry.ino, entry.dev) == (c.key[2], c.key[3])
            and c.key[0] > entry.size
        ]
        resumes = index.resumes(resumable) if index is not None and resumable else {}
        tasks = [(c.path, resumes.get(c.path)) for c in stale]
        sizes = [
            (c.key[0] if c.key else 0) - (resumes[c.path].offset if c.path in resumes else 0)
            for c in stale
        ]
        dir_of = {c.path: c.dir for c in stale}
        for results in self._run(tasks, sizes, _summarise_many, (), cancel):
            # texts not in the index (not asked to cache, or it could not store them) stay here
            keep_texts = texts or index is None or not index.put(results, dir_of)
            batch: list[SessionInfo] = []
            for result in results:
                loaded += 1
                if progress is not None:
                    progress(loaded, total)  # per file, as pi reports it
                if result.row is None:
                    continue
                info = SessionInfo.from_row(result.path, result.key[0], result.row)
                if keep is not None and not keep(info):
                    continue
                if keep_texts:
                    info.all_messages_text = result.search_text
                batch.append(info)
            if batch:
                yield batch

    def _run(
        self,
        tasks: list[T],
        sizes: list[int],
        worker: Callable[..., list[R]],
        extra: tuple[object, ...],
        cancel: threading.Event | None,
    ) -> Iterator[list[R]]:
        """Run ``worker(group, *extra)`` over groups of tasks: in this process when the work is
        small, else in a process pool, yielding each group's results as it completes."""
        if not tasks:
            return
        groups = _groups(tasks, sizes, self.workers)
        if self.workers <= 1 or sum(sizes) < POOL_MIN_BYTES or len(tasks) < 2 * self.workers:
            for group in groups:
                if cancel is not None and cancel.is_set():
                    return
                yield worker(group, *extra)
            return
        # imported here: a listing served from the index never starts a pool
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=_pool_context())
        pending: dict[Future[list[R]], list[T]] = {}
        try:
            for group in groups:
                pending[pool.submit(worker, group, *extra)] = group
            for future in as_completed(list(pending)):
                if cancel is not None and cancel.is_set():
                    return
                group = pending.pop(future)
                try:
                    results = future.result()
                except BrokenProcessPool:
                    # a worker died (out of memory, killed): finish here, one group at a time
                    for rest in [group, *pending.values()]:
                        yield worker(rest, *extra)
                    pending.clear()
                    return
                yield results
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    # ---------------------------------------------------------------- search

    def load_texts(self, sessions: Iterable[SessionInfo]) -> None:
        """Fill in ``all_messages_text`` where it is missing (from the index, else the file)."""
        missing = [s for s in sessions if s.all_messages_text is None]
        if not missing:
            return
        index = self.index
        if index is not None:
            self._fill_texts(missing, index)
            missing = [s for s in missing if s.all_messages_text is None]
        for info in missing:
            result = summarise_file(info.path)
            info.all_messages_text = result.search_text

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
    ) -> list[Row[SessionInfo]]:
        """The picker's rows (ui §2.4-§2.6) for a loaded list in pi's order; loads the searched
        texts first when the query needs them."""
        if query.strip():
            self.load_texts(sessions)
        return filter_and_sort(
            sessions, query, mode, named_only, normalize_path=self._path_keys(sessions)
        )

    def _path_keys(self, sessions: Sequence[SessionInfo]) -> Callable[[str], str]:
        """The threaded view's path normalisation (real absolute paths) without resolving every
        listed file: a listed file's real path is its directory's real path plus its name,
        unless the name itself is a link. Header ``parentSession`` paths resolve as usual."""
        real_dirs: dict[str, str] = {}
        keys: dict[str, str] = {}
        for info in sessions:
            if info.path in self._links:
                continue
            folder, name = os.path.split(info.path)
            real = real_dirs.get(folder)
            if real is None:
                real = real_dirs[folder] = default_normalize_path(folder)
            keys[info.path] = os.path.join(real, name)

        def normalize(path: str) -> str:
            return keys.get(path) or default_normalize_path(path)

        return normalize

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
        for results in self._run(todo, work, _extract_many, (), cancel):
            index.fts_put(results)
            done += len(results)
            if progress is not None:
                progress(done, len(todo))
        return done

    def _load_into(self, index: Index, scope: Scope) -> list[SessionInfo]:
        sessions: list[SessionInfo] = []
        candidates = self.candidates(scope)
        tasks: list[tuple[str, Resume | None]] = [(c.path, None) for c in candidates if c.key]
        dirs = {c.path: c.dir for c in candidates}
        sizes = [c.key[0] for c in candidates if c.key]
        keep = self._filters_cwd(scope)
        for results in self._run(tasks, sizes, _summarise_many, (), None):
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
