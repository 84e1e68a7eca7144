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

:meth:`Store.load_listed` is ``pitui list --json``'s fast path: :class:`Listed` records (the sort
fields and the session's JSON text, ready to print) answered a whole folder at a time from the
index's folder listings when the folder's files have the keys listed (one stat per file and one
decode per folder: no per-file rows, no objects beyond a tuple per session). The threaded order
of such records (:meth:`Store.order`) sends only the sessions in a fork relation through the
forest; the rest keep their place by ``modified``. :meth:`Store.listed_json` keeps the whole
printed output with the scan it was made from: a store where nothing changed costs a scan and
one file read; when a few files changed (same files, same parent links), only their sessions are
read and moved to their new place in the stored threaded output; after other changes, the
output's records stand in for the folder listings.

The picker's search, sort modes and Named filter (ui §2.4-§2.6) are :mod:`pitui.core.search`;
:meth:`Store.rows` applies them to a loaded list.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import marshal
import operator
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar, cast

from pitui.core import forked, paths
from pitui.core.index import (
    FtsResult,
    FtsTask,
    Index,
    TextHit,
    extract_bodies,
    hit_snippet,
)

if TYPE_CHECKING:
    # (imported where used: a warm listing needs neither the parsing code nor the search)
    from pitui.core.search import Row, S, SearchableSession, SortMode
    from pitui.core.summary import FileSummary, Resume, SessionInfo

__all__ = [
    "Candidate",
    "Listed",
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
# The newest files up to this size are summarised in the calling thread before a pool starts.
_HEAD_BYTES = 2 * 1024 * 1024

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
R = TypeVar("R")


class Candidate:
    """A ``.jsonl`` name found in a scope directory; ``key`` is ``None`` when it cannot be
    read as a regular file (it still counts in the progress total, as in pi)."""

    __slots__ = ("dir", "key", "link", "path")

    def __init__(
        self,
        path: str,
        dir: str,
        key: tuple[int, int, int, int] | None,  # (size, mtime_ns, inode, device)
        link: bool = False,  # the name is a symbolic link
    ) -> None:
        self.path = path
        self.dir = dir
        self.key = key
        self.link = link

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Candidate):
            return NotImplemented
        return (self.path, self.dir, self.key, self.link) == (
            other.path, other.dir, other.key, other.link
        )  # fmt: skip

    def __hash__(self) -> int:
        return hash((self.path, self.dir, self.key, self.link))

    def __repr__(self) -> str:
        return f"Candidate({self.path!r}, {self.dir!r}, {self.key!r}, {self.link!r})"


class Listed(NamedTuple):
    """A listed session as ``pitui list --json`` needs it: what orders and filters it, and its
    element of the JSON array (:func:`~pitui.core.summary.listing_element`; ``None`` when
    orjson cannot write it). A :class:`~pitui.core.search.SearchableSession` whose searchable
    text has no message text (like a :class:`SessionInfo` before its texts are loaded)."""

    path: str
    modified: int
    parent_session_path: str | None
    name: str | None
    cwd: str
    id: str
    listing: bytes | None

    @property
    def search_text(self) -> str:
        from pitui.core.search import searchable_text

        return searchable_text(self.id, self.name, "", self.cwd)

    @classmethod
    def of(cls, info: SessionInfo, listing: bytes | None) -> Listed:
        return cls(
            info.path, info.modified, info.parent_session_path, info.name, info.cwd, info.id,
            listing,
        )  # fmt: skip


# sort keys of Listed records (path, modified), and a Listed of a plain tuple, at C speed
_path_of = operator.itemgetter(0)
_modified_of = operator.itemgetter(1)
_new_listed = functools.partial(tuple.__new__, Listed)


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


_Key = tuple[int, int, int, int]  # (size, mtime_ns, inode, device)
# From this many folders on, a scan is shared with a forked helper where it can be (see
# Store._scan): a fork costs a few milliseconds, a folder holds a few to hundreds of files.
SPLIT_MIN_DIRS = 32
_SCANDIR_FD = os.scandir in os.supports_fd and hasattr(os, "O_DIRECTORY")
# A scanned name: (path, directory, key or None, is a link); plain tuples.
_Scanned = tuple[str, str, "_Key | None", bool]


def _scan_dir(directory: str, keys: dict[str, _Key | None], links: list[str]) -> None:
    """The ``.jsonl`` names directly in ``directory`` (none if it is missing or unreadable)
    into ``keys``, with ``None`` for a name that is no readable regular file; the names that
    are symbolic links (or cannot be looked at) also into ``links``."""
    is_regular = stat.S_ISREG
    prefix = os.path.join(directory, "")
    fd: int | None = None
    try:
        if _SCANDIR_FD:  # each stat is then relative to the directory (fstatat): a bit faster
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        with os.scandir(directory if fd is None else fd) as entries:
            for entry in entries:
                name = entry.name
                if not name.endswith(".jsonl"):
                    continue
                path = prefix + name  # os.path.join(directory, name)
                try:
                    link = entry.is_symlink()
                    st = entry.stat()
                except OSError:
                    keys[path] = None
                    links.append(path)
                    continue
                if link:
                    links.append(path)
                keys[path] = (
                    (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)
                    if is_regular(st.st_mode)
                    else None
                )
    except OSError:
        pass
    finally:
        if fd is not None:
            os.close(fd)


def _scan_dirs(dirs: list[str]) -> tuple[dict[str, dict[str, _Key | None]], list[str]]:
    """:func:`_scan_dir` of each of ``dirs``: their names and keys, and the names of links."""
    scanned: dict[str, dict[str, _Key | None]] = {}
    links: list[str] = []
    for directory in dirs:
        _scan_dir(directory, scanned.setdefault(directory, {}), links)
    return scanned, links


def _subdirs(root: str, plain: list[str] | None = None) -> list[str]:
    """Sub-directories of the sessions root (symbolic links to directories count, as in pi
    1.x); files lying directly in the root are not sessions of any folder. The names that are
    not symbolic links are added to ``plain``."""
    dirs: list[str] = []
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                try:
                    if entry.is_dir():
                        dirs.append(os.path.join(root, entry.name))
                        if plain is not None and not entry.is_symlink():
                            plain.append(entry.name)
                except OSError:
                    continue
    except OSError:
        pass
    return sorted(dirs)


def __getattr__(name: str) -> Any:
    if name == "SessionInfo":  # re-exported, imported on first use
        from pitui.core.summary import SessionInfo

        return SessionInfo
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _summarise_many(
    tasks: Sequence[tuple[str, Resume | None]], texts: bool = True
) -> list[FileSummary]:
    """Pool task: one unreadable or unexpected file must not stop the others."""
    from pitui.core.summary import FileSummary, summarise_file

    out: list[FileSummary] = []
    for path, resume in tasks:
        try:
            out.append(summarise_file(path, resume, texts=texts))
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


class _PathKeys(dict[str, str]):
    """Normalised paths of listed files; any other path is resolved when asked for. What was
    resolved through the file system is kept in ``resolved``: a stored output checks it."""

    def __init__(self) -> None:
        super().__init__()
        self.resolved: dict[str, str] = {}

    def resolve(self, path: str) -> str:
        real = self.resolved[path] = paths.default_normalize_path(path)
        return real

    __missing__ = resolve


# Where an item of the threaded order stands (see _threaded_order's ``marks``).
_ALONE, _TREE_ROOT, _IN_TREE = 0, 1, 2


def _threaded_order(
    items: list[S], normalize: Callable[[str], str], marks: list[int] | None = None
) -> list[S]:
    """The items of ``filter_and_sort(items, "", "threaded", normalize_path=normalize)``'s rows.

    Only the sessions in a fork relation (a parent link that resolves to a listed session, at
    either end) go through the forest; every other one is a root of its own, placed among the
    forest's trees by its ``modified`` as the forest places its roots: newest subtree first,
    ties in input order. Same order, without building a row per session. ``marks`` (when
    given) receives each returned item's place: alone, a tree's root, or inside a tree."""
    count = len(items)
    by_key = dict(zip(map(normalize, map(_path_attr, items)), range(count), strict=True))
    parents = list(map(_parent_attr, items))
    linked = [False] * count
    for index in [index for index, raw in enumerate(parents) if raw]:
        parent = by_key.get(normalize(parents[index]))
        if parent is not None:
            linked[index] = linked[parent] = True
    latest = list(map(_modified_attr, items))
    if True not in linked:  # a forest of single roots (a stable sort, as the forest's)
        if marks is not None:
            marks.extend([_ALONE] * count)
        return [
            items[index] for index in sorted(range(count), key=latest.__getitem__, reverse=True)
        ]
    forked = [index for index in range(count) if linked[index]]
    from pitui.core.search import filter_and_sort

    rows = filter_and_sort([items[index] for index in forked], "", "threaded", False, normalize)
    where = {id(items[index]): index for index in forked}
    if len(where) != len(forked):  # one object listed twice: let the forest sort it out
        rows = filter_and_sort(items, "", "threaded", False, normalize)
        if marks is not None:
            marks.extend(_IN_TREE if row.depth else _TREE_ROOT for row in rows)
        return [row.item for row in rows]
    trees: dict[int, list[S]] = {}  # the forest's trees, by the index of their root
    tree: list[S] = []
    root = 0
    for row in rows:
        item = row.item
        if row.depth == 0:
            root = where[id(item)]
            tree = trees[root] = [item]
        else:
            tree.append(item)
            if item.modified > latest[root]:
                latest[root] = item.modified  # the newest activity in the tree
    roots = [index for index in range(count) if not linked[index] or index in trees]
    out: list[S] = []
    for index in sorted(roots, key=latest.__getitem__, reverse=True):
        found = trees.get(index)
        if found is None:
            out.append(items[index])
            if marks is not None:
                marks.append(_ALONE)
        else:
            out.extend(found)
            if marks is not None:
                marks.append(_TREE_ROOT)
                marks.extend([_IN_TREE] * (len(found) - 1))
    return out


_path_attr = operator.attrgetter("path")
_parent_attr = operator.attrgetter("parent_session_path")
_modified_attr = operator.attrgetter("modified")


def _parent(path: str) -> str:
    return os.path.dirname(path)


# A folder listing's overlay holds the files that changed since its base was written, until
# they are this many (or an eighth of the folder): then the base is written again. A few grown
# sessions in a folder of thousands then cost a few records, not the whole folder's.
_OVERLAY_MAX = 32
# A stored output follows at most this many changed files by moving their sessions in it.
_PATCH_MAX = 64


class _Folders:
    """The scanned files by folder, and the index's listing of each whole folder: its files'
    keys and its sessions' :class:`Listed` records (see :meth:`Index.folder_listings`).

    A folder whose files all have the listed keys is answered at once. In another folder, the
    files with their listed key still take their listed record; the others go the usual way
    (their index rows, else parsed); a folder without a readable listing reads all its rows.
    The listings of the folders that changed are then written again (their overlay, or all).
    """

    def __init__(self, scanned: dict[str, dict[str, _Key | None]]) -> None:
        self.keys = scanned  # folder -> {path: key}
        self.changed: list[str] = []  # folders whose listing is written again
        self.entries: list[Listed] = []  # sessions of changed folders, as listed now
        self._bases: dict[str, dict[str, Any]] = {}  # base keys of changed folders
        self._to_parse: set[str] = set()
        self._parsed_keys: dict[str, tuple[int, int, int, int]] = {}

    def read(self, stored: dict[str, tuple[bytes, bytes | None]]) -> _FolderAnswers:
        answers = _FolderAnswers()
        new = tuple.__new__
        for folder, keys in self.keys.items():
            listing, overlay = stored.get(folder, (None, None))
            found = _decode_folder(listing)
            changes = _decode_folder(overlay) if overlay is not None else None
            if found is None or (overlay is not None and changes is None):
                # no listing yet (or a damaged one): every row of the folder
                self.changed.append(folder)
                answers.whole.append(folder)
                continue
            base_keys, entries = found
            listed_keys = base_keys
            if changes is not None:
                changed_keys, changed_entries = changes
                listed_keys = {**base_keys, **changed_keys}
                for path, key in changed_keys.items():
                    if key is False:  # gone since the base
                        del listed_keys[path]
                entries = [e for e in entries if e[0] not in changed_keys] + changed_entries
            if listed_keys == keys:
                answers.answered += len(keys)
                answers.entries.extend(entries)
                continue
            self.changed.append(folder)
            self._bases[folder] = base_keys
            by_path = {entry[0]: entry for entry in entries}
            for path, key in keys.items():
                if key is None:
                    answers.answered += 1  # unreadable: counted, never listed
                elif listed_keys.get(path) == key:
                    answers.answered += 1
                    entry = by_path.get(path)
                    if entry is not None:
                        self.entries.append(new(Listed, entry))
                else:
                    answers.lookup.append((path, folder, key, False))
            answers.gone.extend(path for path in listed_keys if path not in keys)
        answers.entries.extend(self.entries)
        return answers

    def to_parse(self, stale: Iterable[_Scanned]) -> None:
        self._to_parse.update(c[0] for c in stale)

    def parsed(self, results: Sequence[FileSummary]) -> None:
        for result in results:
            if result.error is None:
                self._parsed_keys[result.path] = result.key

    def changed_listings(self) -> dict[str, tuple[bytes | None, bytes | None]]:
        """``(base, overlay)`` of each changed folder whose every file has an answer now
        (``base`` None: only the overlay is new). A file's key is the one its summary was read
        under: a file that changed since is seen next time."""
        by_path = {listed.path: tuple(listed) for listed in self.entries}
        parsed = self._parsed_keys
        out: dict[str, tuple[bytes | None, bytes | None]] = {}
        for folder in self.changed:
            keys = self.keys[folder]
            if any(path in self._to_parse and path not in parsed for path in keys):
                continue  # not summarised (an error, or cancelled): not listed yet
            keys = {path: parsed.get(path, key) for path, key in keys.items()}
            base = self._bases.get(folder)
            try:
                if base is not None:
                    missing = object()
                    changes: dict[str, Any] = {
                        path: key for path, key in keys.items() if base.get(path, missing) != key
                    }
                    changes.update((path, False) for path in base if path not in keys)
                    if len(changes) <= max(_OVERLAY_MAX, len(keys) // 8):
                        entries = [by_path[path] for path in changes if path in by_path]
                        out[folder] = (None, marshal.dumps((changes, entries)))
                        continue
                entries = [by_path[path] for path in keys if path in by_path]
                out[folder] = (marshal.dumps((keys, entries)), None)
            except ValueError:
                continue
        return out


class _FolderAnswers:
    """What the folder listings answered (see :meth:`_Folders.read`)."""

    def __init__(self) -> None:
        self.answered = 0  # files answered (listed, not a session, or unreadable)
        self.entries: list[tuple[Any, ...]] = []  # their sessions (Listed or plain tuples)
        self.lookup: list[_Scanned] = []  # files whose index row is needed
        self.whole: list[str] = []  # folders whose every index row is needed
        self.gone: list[str] = []  # listed files that are no more


def _decode_folder(data: bytes | None) -> tuple[dict[str, Any], list[tuple[Any, ...]]] | None:
    if data is None:
        return None
    try:
        keys, entries = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return None
    if type(keys) is not dict or type(entries) is not list:
        return None
    return keys, entries


# What an earlier output was made from: the scan (folder -> {path: key}), and the records of
# its sessions (Listed, the ones whose element it holds) and the paths of the others.
_Known = tuple[dict[str, dict[str, "_Key | None"]], list["Listed"], list[str]]


def _unchanged(made_of: bytes, found: bytes) -> bool:
    """Whether an output was made from what is there now (see :meth:`Store.listed_json`):
    ``found`` is the scan as marshal writes it (version 2: no references, so equal values give
    equal bytes), and each path the order resolved must resolve the same way."""
    try:
        scan, resolved = marshal.loads(made_of)
    except (ValueError, EOFError, TypeError):
        return False
    return scan == found and type(resolved) is dict and _resolve_as_before(resolved)


def _resolve_as_before(resolved: dict[str, str]) -> bool:
    """Whether each path an order resolved (to its real path) still resolves the same way."""
    if resolved:
        return all(paths.default_normalize_path(p) == real for p, real in resolved.items())
    return True


def _spans(lengths: list[int]) -> tuple[list[int], list[int]]:
    """Where each element of an output is (``output[start:end]``), from their lengths."""
    ends = list(itertools.accumulate(map((2).__add__, lengths)))  # ("[\n", then ",\n" after each)
    return list(map(operator.sub, ends, lengths)), ends


def _records(listed: list[Listed], ordered: list[Listed], marks: list[int] | None) -> bytes:
    """The records of an output's sessions, as columns: path, modified, parent, name, cwd, id,
    and where ``output[start:end]`` is the session's element (``-1``: not in the output); then
    the threaded order's ``marks`` of the output's sessions (None in another order).
    Columns of plain values: written and read back at C speed, without a loop per session."""
    starts, ends = _spans(list(map(len, map(operator.itemgetter(6), ordered))))
    rest: list[Listed] = []
    if len(ordered) != len(listed):  # (the Named filter left some out)
        shown = set(map(_path_of, ordered))
        rest = [item for item in listed if item.path not in shown]
        starts += [-1] * len(rest)
        ends += [-1] * len(rest)
    items = ordered + rest
    columns = [list(map(operator.itemgetter(field), items)) for field in range(6)]
    return marshal.dumps((*columns, starts, ends, marks))


def _known(made_of: bytes, records: bytes, output: bytes) -> _Known | None:
    """What a stored output was made from (None if it cannot be read)."""
    try:
        scan, _ = marshal.loads(made_of)
        _, scans, _ = marshal.loads(scan)
        folders = {folder: marshal.loads(keys) for folder, keys in scans.items()}
        paths_, modified, parents, names, cwds, ids, starts, ends, _ = marshal.loads(records)
        cut = len(starts) - starts.count(-1)  # the sessions in the output come first
        listings = map(output.__getitem__, map(slice, starts[:cut], ends[:cut]))
        columns = zip(paths_, modified, parents, names, cwds, ids, listings, strict=False)
        sessions = list(map(_new_listed, itertools.islice(columns, cut)))
    except (ValueError, EOFError, TypeError, AttributeError):
        return None
    if len(sessions) != cut:
        return None
    if cut and (min(starts[:cut]) < 2 or max(ends[:cut]) > len(output)):
        return None  # spans that cannot be this output's
    return folders, sessions, paths_[cut:]


def _answers_from(known: _Known, scanned: dict[str, dict[str, _Key | None]]) -> _FolderAnswers:
    """:class:`_FolderAnswers` from an earlier output's records instead of folder listings: a
    folder whose keys are all the same is answered whole; in another, each file whose key
    changed is looked up (as is a session the output left out)."""
    folders, sessions, left_out = known
    answers = _FolderAnswers()
    left = set(left_out)
    drop = set(left)  # paths whose record is not taken
    for folder, found in scanned.items():
        before = folders.get(folder)
        if before == found and not left:
            answers.answered += len(found)
            continue
        if type(before) is not dict:
            before = {}
        for path, key in found.items():
            if key is None:
                answers.answered += 1  # unreadable: counted, never listed
                drop.add(path)
            elif before.get(path) == key and path not in left:
                answers.answered += 1
            else:
                answers.lookup.append((path, folder, key, False))
                drop.add(path)
        answers.gone.extend(path for path in before if path not in found)
    for folder, before in folders.items():
        if folder not in scanned and type(before) is dict:
            answers.gone.extend(before)
    drop.update(answers.gone)
    answers.entries.extend(
        [item for item in sessions if item.path not in drop] if drop else sessions
    )
    return answers


def _move(
    fields: list[list[Any]],
    marks: list[int],
    moved: dict[int, Listed],
    normalize: Callable[[str], str],
) -> tuple[list[int], list[int]] | None:
    """A threaded order after some of its sessions changed, without ordering every session
    again: the new order (as the old places) and its marks. ``fields`` are the columns path,
    modified, parent, name, cwd, id of the ordered sessions (then of any left out), ``marks``
    theirs (see :func:`_threaded_order`), ``moved`` the changed sessions by their place, with
    their parent links unchanged. None when the order must be made again (cannot be, unless
    the forest changed its mind about a tree).

    The sessions and parent links are the same, so the forest's trees are: each tree with a
    changed session (or changed session alone) is taken out, ordered again, and put back where
    its key sorts, as the forest sorts its roots: the newest ``modified`` in it, then input
    order (its root's ``modified``, then path)."""
    paths_, modified = fields[0], fields[1]
    count = len(marks)
    now = modified[:count]  # modified as it is now
    for at, item in moved.items():
        now[at] = item.modified
    blocks: dict[int, int] = {}  # start -> end of each tree taken out
    for at in moved:
        start = at
        while marks[start] == _IN_TREE:
            start -= 1
        end = start + 1
        while end < count and marks[end] == _IN_TREE:
            end += 1
        blocks[start] = end
    order = list(range(count))
    marks = list(marks)
    taken: list[tuple[tuple[int, int, str], list[int], list[int]]] = []  # key, places, marks
    for start, end in sorted(blocks.items(), reverse=True):
        places = order[start:end]
        block_marks = marks[start:end]  # (a tree of one: a session that is its own parent)
        del order[start:end], marks[start:end]
        if end - start > 1:
            from pitui.core.search import filter_and_sort

            places.sort(key=lambda at: (-now[at], paths_[at]))  # input order
            items = [
                moved.get(at) or _new_listed((*(column[at] for column in fields), None))
                for at in places
            ]
            place = dict(zip(map(id, items), places, strict=True))
            rows = filter_and_sort(items, "", "threaded", False, normalize)
            depths = [row.depth for row in rows]
            if len(rows) != len(items) or depths[0] != 0 or depths.count(0) != 1:
                return None
            places = [place[id(row.item)] for row in rows]
        root = places[0]
        key = (-max(map(now.__getitem__, places)), -now[root], paths_[root])
        taken.append((key, places, block_marks))

    def key_at(at: int) -> tuple[int, int, str]:
        start = at
        while marks[start] == _IN_TREE:
            start -= 1
        end = start + 1
        while end < len(marks) and marks[end] == _IN_TREE:
            end += 1
        latest = max(map(now.__getitem__, order[start:end]))
        root = order[start]
        return (-latest, -now[root], paths_[root])

    for key, places, block_marks in taken:
        at = bisect.bisect_left(range(len(order)), key, key=key_at)
        order[at:at] = places
        marks[at:at] = block_marks
    return order, marks


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
        self._scanned: dict[str, dict[str, _Key | None]] = {}  # the last scan, by folder
        self._scan_links: list[str] = []  # its names that are links
        self._settled = True  # every file of the last load was read under its scanned key

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
        root = str(paths.sessions_root(self.agent))
        plain: list[str] = []
        dirs = _subdirs(root, plain)
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

    def _scan(
        self, dirs: list[str], links: list[str] | None = None
    ) -> dict[str, dict[str, _Key | None]]:
        """The ``.jsonl`` names of each of ``dirs`` and their keys (see :func:`_scan_dir`).

        Many folders are looked at by two processes where there are two cores: a
        :class:`~pitui.core.forked.Helper` takes the second half (a look at every file is a
        system call and some Python each: 10,000 files take a tenth of a second here)."""
        found_links: list[str] = [] if links is None else links
        if len(dirs) < SPLIT_MIN_DIRS or not forked.available():
            scanned, found = _scan_dirs(dirs)
        else:
            half = len(dirs) // 2
            with forked.Helper(_scan_dirs, dirs[half:]) as helper:
                started = time.monotonic()
                scanned, found = _scan_dirs(dirs[:half])
                theirs = helper.result(max(5.0, 3 * (time.monotonic() - started)))
            if type(theirs) is not tuple or [type(part) for part in theirs] != [dict, list]:
                theirs = _scan_dirs(dirs[half:])  # (the helper failed: this process looks)
            scanned.update(theirs[0])
            found += theirs[1]
        found_links += found
        self._links.update(found_links)
        self._scan_links = found_links
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
        scanned: dict[str, dict[str, _Key | None]] | None = None,
        earlier: _Known | None = None,
    ) -> list[Listed]:
        """The scope's sessions as :class:`Listed` records, in pi's order (like :meth:`load`).

        What ``pitui list --json`` needs and no more: a warm listing decodes a few fields per
        file and prints the stored JSON, instead of building a :class:`SessionInfo` each.
        """
        found: list[Listed] = []
        batches = self._iter(
            scope,
            progress=progress,
            texts=False,
            cancel=cancel,
            brief=True,
            scanned=scanned,
            earlier=earlier,
        )
        for batch in batches:
            found.extend(cast("list[Listed]", batch))
        # (-modified, path) as stable sorts on C-level keys (modified is an int); ties are rare
        if len({item.modified for item in found}) < len(found):
            found.sort(key=_path_of)
        found.sort(key=_modified_of, reverse=True)
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
        ``mode``'s order (the bytes of :func:`~pitui.commands.common.json_text` of their
        ``to_json()``), or ``None`` when a session's JSON needs the standard encoder.

        The index keeps the last output of each scope and mode with all it was made from: the
        key of every scanned name, the folders' real paths, the names that are links and the
        paths the order resolved. While all of these are unchanged, it is the answer as is; when
        only a few files changed, their sessions are moved in it (see :meth:`_patched`);
        otherwise its records answer for the files whose key is unchanged (the folder listings
        are not read) and only the others are looked up or parsed."""
        scanned = self._scan(self.scope_dirs(scope))
        index = self.index
        name: str | None = None
        found = b""
        earlier: _Known | None = None
        if index is not None and not self._filters_cwd(scope):
            where = self.session_dir or (
                str(paths.sessions_root(self.agent)) if scope == "all" else "\0".join(scanned)
            )
            name = "\0".join([mode, "named" if named_only else "", scope, where])
            # (each folder's scan on its own: a few changed folders are read back, not all)
            scans = {folder: marshal.dumps(keys, 2) for folder, keys in scanned.items()}
            found = marshal.dumps((self._real_dirs, scans, self._scan_links), 2)
            stored = index.output(name)
            if stored is not None and len(stored) == 3:
                made_of, records, output = stored
                if _unchanged(made_of, found):
                    total = sum(map(len, scanned.values()))
                    if progress is not None and total:
                        progress(total, total)
                    return output
                patched = None
                if mode == "threaded":
                    patched = self._patched(scope, named_only, scanned, scans, stored, progress)
                if patched is not None:
                    records, output = patched
                    if self._settled:
                        made_of = marshal.dumps((found, marshal.loads(made_of)[1]), 2)
                        index.put_output(name, [made_of, records, output])
                    return output
                earlier = _known(made_of, records, output)
        listed = self.load_listed(scope, progress=progress, scanned=scanned, earlier=earlier)
        keys = self._path_keys(listed)
        marks: list[int] | None = [] if mode == "threaded" else None
        ordered = self._order(listed, mode, named_only, keys, marks)
        elements = [item.listing for item in ordered]
        if None in elements:
            return None
        if elements:  # (the brackets go on the ends: the output is copied once)
            elements[0] = b"[\n" + cast(bytes, elements[0])
            elements[-1] = cast(bytes, elements[-1]) + b"\n]"
        output = b",\n".join(cast("list[bytes]", elements)) if elements else b"[]"
        if name is not None and index is not None and self._settled:
            made_of = marshal.dumps((found, keys.resolved), 2)
            index.put_output(name, [made_of, _records(listed, ordered, marks), output])
        return output

    def _patched(
        self,
        scope: Scope,
        named_only: bool,
        scanned: dict[str, dict[str, _Key | None]],
        scans: dict[str, bytes],
        stored: list[bytes],
        progress: Progress | None,
    ) -> tuple[bytes, bytes] | None:
        """A stored threaded output's ``(records, output)`` with the sessions of the few files
        that changed moved to their new place (see :func:`_move`); None when the change is not
        one that only moves sessions (a file new, gone or unreadable, a link or a real path
        changed, a parent link changed, many files changed): the output is then made again."""
        made_of, records, output = stored
        try:
            scan, resolved = marshal.loads(made_of)
            real_dirs, before_scans, links = marshal.loads(scan)
            columns = marshal.loads(records)
            folders: dict[str, dict[str, _Key | None]] = {}  # the scan the output was made of
            for folder, keys in scanned.items():
                before = before_scans[folder]
                folders[folder] = keys if before == scans[folder] else marshal.loads(before)
        except (ValueError, EOFError, TypeError, KeyError):
            return None
        if (
            real_dirs != self._real_dirs
            or links != self._scan_links
            or len(before_scans) != len(scans)
            or type(columns) is not tuple
            or len(columns) != 9
            or type(columns[8]) is not list
            or type(resolved) is not dict
        ):
            return None
        *fields, starts, ends, marks = columns
        paths_, parents = fields[0], fields[2]
        changed: list[str] = []
        for folder, keys in scanned.items():
            before = folders[folder]
            if before is keys:
                continue
            if type(before) is not dict or before.keys() != keys.keys():
                return None  # a file new or gone
            changed += [path for path, key in keys.items() if before[path] != key]
            if len(changed) > _PATCH_MAX:
                return None
        cut = len(marks)  # the sessions in the output come first, then any left out
        try:
            where = {path: paths_.index(path) for path in changed}
        except ValueError:
            return None  # not listed before (not a session, unreadable)
        if links or (len(scanned) > 1 and not scanned.keys() <= self._real_dirs.keys()):
            return None  # two names may be one file: the forest's links follow input order
        if not _resolve_as_before(resolved):
            return None
        earlier: _Known = (folders, [], [])  # (only the changed files are looked up)
        fresh = self.load_listed(scope, progress=progress, scanned=scanned, earlier=earlier)
        if named_only:
            from pitui.core.search import has_name
        if len(fresh) != len(where) or any(
            item.path not in where
            or item.parent_session_path != parents[where[item.path]]
            or item.listing is None
            or (named_only and has_name(item.name) != (where[item.path] < cut))
            for item in fresh
        ):
            return None  # (a session named or unnamed by the change: in or out of the output)
        real_paths: list[_PathKeys] = []  # made for the first tree that moves

        def normalize(path: str) -> str:
            if not real_paths:
                real_paths.append(self._path_keys(fresh))
            return real_paths[0][path]

        moved = {where[item.path]: item for item in fresh if where[item.path] < cut}
        found = _move(fields, marks, moved, normalize)
        if found is None or (real_paths and not real_paths[0].resolved.items() <= resolved.items()):
            return None  # (the latter cannot be: the same paths were resolved before)
        order, marks = found
        for column in fields:
            column[:cut] = list(map(column.__getitem__, order))
        for item in fresh:
            if where[item.path] >= cut:  # left out (still): it keeps its place
                for column, value in zip(fields, item, strict=False):
                    column[where[item.path]] = value
        lengths = list(
            map(operator.sub, map(ends.__getitem__, order), map(starts.__getitem__, order))
        )
        sources: list[int | bytes] = list(order)  # an old element's place, or a new element
        for old, item in moved.items():
            at = order.index(old)
            for column, value in zip(fields, item, strict=False):
                column[at] = value
            sources[at] = listing = cast(bytes, item.listing)
            lengths[at] = len(listing)
        view = memoryview(output)  # (runs of old elements are copied once, by the join)
        pieces: list[bytes | memoryview] = []
        first = last = -2  # the run of consecutive old elements being gathered
        for source in sources:
            if type(source) is int and source == last + 1:
                last = source
                continue
            if first >= 0:
                pieces.append(view[starts[first] : ends[last]])
            first = last = -2
            if type(source) is int:
                first = last = source
            else:
                pieces.append(cast(bytes, source))
        if first >= 0:
            pieces.append(view[starts[first] : ends[last]])
        new_starts, new_ends = _spans(lengths)
        rest = [-1] * (len(paths_) - cut)
        records = marshal.dumps((*fields, new_starts + rest, new_ends + rest, marks))
        if not pieces:
            return records, b"[]"
        parts: list[bytes | memoryview] = [b",\n"] * (2 * len(pieces) + 1)  # one copy, joined
        parts[1::2] = pieces
        parts[0], parts[-1] = b"[\n", b"\n]"
        return records, b"".join(parts)

    def _iter(
        self,
        scope: Scope,
        *,
        progress: Progress | None,
        texts: bool,
        cancel: threading.Event | None,
        brief: bool,
        scanned: dict[str, dict[str, _Key | None]] | None = None,
        earlier: _Known | None = None,
    ) -> Iterator[list[SessionInfo] | list[Listed]]:
        """:meth:`iter_load` (``brief=False``) or its :class:`Listed` batches (``brief=True``);
        ``scanned``: the scope's scan when the caller made it; ``earlier``: what an earlier
        output listed (read instead of the folder listings; see :meth:`listed_json`). Clears
        :attr:`_settled` when a file could not be read or changed while it was."""
        if scanned is None:
            scanned = self._scan(self.scope_dirs(scope))
        dirs = list(scanned)
        self._settled = True
        total = sum(map(len, scanned.values()))
        loaded = 0
        index = self.index
        keep = self._in_scope if self._filters_cwd(scope) else None
        every_folder = scope == "all" and self.session_dir is None
        new = tuple.__new__
        ready: list[Any] = []
        pending: list[_Scanned] = []  # files the folder listings did not answer for
        folders: _Folders | None = None
        rows: list[Any] = []  # (path, brief, payload) of the files the index knows
        if brief and index is not None and earlier is not None:
            # an earlier output's records (given only where no cwd filter applies): only the
            # files changed since are looked up
            answers = _answers_from(earlier, scanned)
            loaded += answers.answered
            ready = cast("list[Listed]", answers.entries)
            if answers.gone:
                index.forget(answers.gone)
            pending = answers.lookup
            if pending:
                rows = index.listing_of([c[0] for c in pending], brief=True)
        elif brief and index is not None:
            # the folders' listings first: most files are as the index last listed them
            folders = _Folders(scanned)
            listings = index.folder_listings(None if every_folder else dirs)
            answers = folders.read(listings)
            loaded += answers.answered
            if keep is None:
                ready = [new(Listed, entry) for entry in answers.entries]
            else:
                ready = [e for e in map(Listed._make, answers.entries) if keep(e)]
            if answers.gone:
                index.forget(answers.gone)
            if every_folder:  # folder directories that vanished from the sessions root
                root = str(paths.sessions_root(self.agent))
                index.forget_folders(
                    [d for d in listings if d not in folders.keys and _parent(d) == root]
                )
            whole = set(answers.whole)
            pending = answers.lookup + [
                (path, folder, key, False)
                for folder in whole
                for path, key in scanned[folder].items()
            ]
            if answers.lookup:
                rows = index.listing_of([c[0] for c in answers.lookup], brief=brief)
            if whole:
                everything = every_folder and len(whole) == len(dirs)
                rows += index.listing(None if everything else answers.whole, brief=brief)
        else:
            pending = [
                (path, folder, key, False)
                for folder, keys in scanned.items()
                for path, key in keys.items()
            ]
            if index is not None:
                rows = index.listing(None if every_folder else dirs, brief=brief)
        if not brief:
            from pitui.core.summary import SessionInfo, load_json
        unmarshal = marshal.loads
        unknown = {c[0]: c for c in pending}  # files not (yet) met among the index's rows
        stale: list[_Scanned] = []
        missing: list[str] = []  # in the index, not on disk
        old_keys: dict[str, tuple[int, int, int, int]] = {}  # of files that changed
        for path, blob, payload in rows:
            item = unknown.pop(path, None)
            if item is None:
                missing.append(path)
                continue
            key = item[2]
            if key is None:
                loaded += 1  # unreadable: counted, never listed
                continue
            try:  # see decode_brief: (key,) or (key, modified, parent, name, cwd, id)
                known = unmarshal(blob)
                if known[0] != key:
                    old_keys[path] = known[0]
                    stale.append(item)
                    continue
            except (ValueError, EOFError, TypeError, IndexError):
                stale.append(item)  # a damaged value: parsed again (and replaced)
                continue
            loaded += 1
            if len(known) == 1:
                continue  # not a session
            info: Any
            if brief:
                _, modified, parent, name, cwd, sid = known
                info = new(Listed, (path, modified, parent, name, cwd, sid, payload))
                if folders is not None:
                    folders.entries.append(info)
            else:
                info = SessionInfo.from_row(path, key[0], load_json(payload))
            if keep is None or keep(info):
                ready.append(info)
        for item in unknown.values():
            if item[2] is None:
                loaded += 1  # unreadable: counted, never listed
            else:
                stale.append(item)
        if missing and index is not None:
            in_scan = set(dirs)
            root = str(paths.sessions_root(self.agent))
            # vanished files, and whole folder directories that vanished from the sessions root
            index.forget(
                [
                    path
                    for path, folder in index.dirs_of(missing).items()
                    if folder in in_scan or (every_folder and _parent(folder) == root)
                ]
            )
        if ready and texts and index is not None:
            self._fill_texts(ready, index)
        if progress is not None and loaded:
            progress(loaded, total)  # everything the index had, at once
        if ready:
            yield ready

        # newest first (ties by path): the first rows a picker paints are the ones on top
        stale.sort(key=lambda c: (-c[2][1] if c[2] else 1, c[0]))
        # Sessions are append-only: a file that grew (same inode) is read from where it stopped
        # (the worker also checks its first line and the bytes before that offset). A file that
        # changed without growing (touched, edited in place) is read again whole.
        resumable = [
            path
            for path, _, key, _ in stale
            if (old := old_keys.get(path)) is not None
            and key is not None
            and (old[2], old[3]) == (key[2], key[3])
            and key[0] > old[0]
        ]
        resumes = index.resumes(resumable) if index is not None and resumable else {}
        tasks = [(c[0], resumes.get(c[0])) for c in stale]
        sizes = [
            (c[2][0] if c[2] else 0) - (resumes[c[0]].offset if c[0] in resumes else 0)
            for c in stale
        ]
        dir_of = {c[0]: c[1] for c in stale}
        key_of = {c[0]: c[2] for c in stale}
        if stale:
            from pitui.core.summary import SessionInfo
        if folders is not None:
            folders.to_parse(stale)
        for results in self._summarise(tasks, sizes, cancel, texts or self.collect_texts):
            # texts not in the index (not asked to cache, or it could not store them) stay here
            stored = index is not None and index.put(results, dir_of)
            keep_texts = not brief and (texts or not stored)
            batch: list[Any] = []
            for result in results:
                loaded += 1
                if progress is not None:
                    progress(loaded, total)  # per file, as pi reports it
                if result.error is not None or result.key != key_of[result.path]:
                    self._settled = False
                if result.row is None:
                    continue
                session = SessionInfo.from_row(result.path, result.key[0], result.row)
                if brief:
                    listed = Listed.of(session, result.listing)
                    if folders is not None:
                        folders.entries.append(listed)
                    if keep is None or keep(session):
                        batch.append(listed)
                    continue
                if keep is not None and not keep(session):
                    continue
                if keep_texts:
                    session.all_messages_text = result.search_text
                batch.append(session)
            if folders is not None:
                folders.parsed(results)
            if batch:
                yield batch
        if folders is not None and index is not None and folders.changed:
            index.put_folders(folders.changed_listings())

    def _summarise(
        self,
        tasks: list[tuple[str, Resume | None]],
        sizes: list[int],
        cancel: threading.Event | None,
        texts: bool,
    ) -> Iterator[list[FileSummary]]:
        """Summaries of ``tasks`` (newest first) as they are ready. The newest few small files
        are summarised here first, before a pool is imported and started: a picker paints them
        while the pool's workers fork (or a forkserver starts) and parse the rest."""
        first = range(min(len(tasks), 2 * _FIRST_TASK_FILES))
        head = [i for i in first if sizes[i] <= _HEAD_BYTES][:_FIRST_TASK_FILES]
        if head and not (cancel is not None and cancel.is_set()):
            yield _summarise_many([tasks[i] for i in head], texts)
            taken = set(head)
            rest = [i for i in range(len(tasks)) if i not in taken]
            tasks, sizes = [tasks[i] for i in rest], [sizes[i] for i in rest]
        yield from self._run(tasks, sizes, _summarise_many, (texts,), cancel)

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

        from pitui.core.pools import close_pool, pool_context

        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=pool_context())
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
            close_pool(pool, unfinished=bool(pending))

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
        for results in self._summarise(tasks, [info.size for info in sessions], cancel, True):
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

        return filter_and_sort(
            sessions, query, mode, named_only, normalize_path=self._path_keys(sessions).__getitem__
        )

    def order(
        self, items: Sequence[S], mode: SortMode = "threaded", named_only: bool = False
    ) -> list[S]:
        """The picker's row order without a search query (what :meth:`rows` gives then), for
        records like :class:`Listed` that have no searchable text."""
        return self._order(items, mode, named_only, self._path_keys(items))

    @staticmethod
    def _order(
        items: Sequence[S],
        mode: SortMode,
        named_only: bool,
        keys: _PathKeys,
        marks: list[int] | None = None,
    ) -> list[S]:
        from pitui.core.search import filter_and_sort, named_filter

        normalize = keys.__getitem__
        if mode != "threaded":
            return [row.item for row in filter_and_sort(items, "", mode, named_only, normalize)]
        chosen = named_filter(items) if named_only else list(items)
        return _threaded_order(chosen, normalize, marks)

    def _path_keys(self, sessions: Sequence[SearchableSession]) -> _PathKeys:
        """The threaded view's path normalisation (real absolute paths) without resolving every
        listed file: a listed file's real path is its directory's real path plus its name,
        unless the name itself is a link. Header ``parentSession`` paths resolve as usual.

        The files of the last scan are known at once (a folder at a time: most folders are
        their own real path); other sessions' paths are worked out one by one."""
        keys = _PathKeys()
        real_dirs = dict(self._real_dirs)
        for folder, names in self._scanned.items():
            real = real_dirs.get(folder)
            if real is None:
                real = real_dirs[folder] = keys.resolve(folder)
            if real == folder and folder[-1:] != "/":
                keys.update(zip(names, names, strict=True))  # names: folder + "/" + name
            else:
                keys.update((path, os.path.join(real, path.rpartition("/")[2])) for path in names)
        links = self._links
        for path in links:
            keys.pop(path, None)
        for info in sessions:
            path = info.path
            if path in keys or path in links:
                continue
            folder, name = os.path.split(path)
            real = real_dirs.get(folder)
            if real is None:
                real = real_dirs[folder] = keys.resolve(folder)
            keys[path] = os.path.join(real, name)
        return keys

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
        from pitui.core.summary import SessionInfo

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
