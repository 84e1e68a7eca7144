"""The picker's row order without a search query, for a whole store at once.

:func:`ordered` is that order for any sort mode and the Named filter; :func:`threaded_order`
gives the items of ``filter_and_sort(items, "", "threaded")``'s rows without building a row per
session; :func:`path_keys` the threaded view's path normalisation
(real absolute paths) from a folder scan, without resolving every listed file.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from pitui.core import paths

if TYPE_CHECKING:
    from pitui.core.scan import Scan
    from pitui.core.search import S, SearchableSession, SortMode

__all__ = ["PathKeys", "ordered", "path_keys", "threaded_order"]

_path_attr = operator.attrgetter("path")
_parent_attr = operator.attrgetter("parent_session_path")
_modified_attr = operator.attrgetter("modified")


class PathKeys(dict[str, str]):
    """Normalised paths of listed files; any other path is resolved when asked for."""

    def resolve(self, path: str) -> str:
        return paths.default_normalize_path(path)

    def __missing__(self, path: str) -> str:
        real = self[path] = self.resolve(path)
        return real


def path_keys(
    scanned: Scan,
    real_dirs: dict[str, str],
    links: Iterable[str],
    sessions: Sequence[SearchableSession],
) -> PathKeys:
    """The threaded view's path keys: a listed file's real path is its folder's real path plus
    its name, unless the name itself is a link (``links``). The files of the scan are known
    at once (a folder at a time: most folders are their own real path, or are in
    ``real_dirs``); other sessions' paths are worked out one by one; header ``parentSession``
    paths resolve when asked for."""
    keys = PathKeys()
    real_dirs = dict(real_dirs)

    def real_dir(folder: str) -> str:
        real = real_dirs.get(folder)
        if real is None:
            real = real_dirs[folder] = keys.resolve(folder)
        return real

    for folder, names in scanned.items():
        real = real_dir(folder)
        if real == folder and folder[-1:] != "/":
            keys.update(zip(names, names, strict=True))  # names: folder + "/" + name
        else:
            keys.update((path, os.path.join(real, path.rpartition("/")[2])) for path in names)
    linked = set(links)
    for path in linked:
        keys.pop(path, None)
    for info in sessions:
        path = info.path
        if path in keys or path in linked:
            continue
        folder, name = os.path.split(path)
        keys[path] = os.path.join(real_dir(folder), name)
    return keys


def ordered(items: Sequence[S], mode: SortMode, named_only: bool, keys: PathKeys) -> list[S]:
    """The items of ``filter_and_sort(items, "", mode, named_only)``'s rows, the threaded view
    through :func:`threaded_order`; ``keys`` normalise paths (see :func:`path_keys`)."""
    normalize = keys.__getitem__
    if mode == "threaded" and not named_only:  # (the search module is not even imported)
        return threaded_order(list(items), normalize)
    from pitui.core.search import filter_and_sort, named_filter

    if mode != "threaded":
        return [row.item for row in filter_and_sort(items, "", mode, named_only, normalize)]
    return threaded_order(named_filter(items), normalize)


def threaded_order(items: list[S], normalize: Callable[[str], str]) -> list[S]:
    """The items of ``filter_and_sort(items, "", "threaded", normalize_path=normalize)``'s rows.

    Only the sessions in a fork relation (a parent link that resolves to a listed session, at
    either end) go through the forest; every other one is a root of its own, placed among the
    forest's trees by its ``modified`` as the forest places its roots: newest subtree first,
    ties in input order. Same order, without building a row per session."""
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
        return [
            items[index] for index in sorted(range(count), key=latest.__getitem__, reverse=True)
        ]
    forked = [index for index in range(count) if linked[index]]
    from pitui.core.search import filter_and_sort

    rows = filter_and_sort([items[index] for index in forked], "", "threaded", False, normalize)
    where = {id(items[index]): index for index in forked}
    if len(where) != len(forked):  # one object listed twice: let the forest sort it out
        return [row.item for row in filter_and_sort(items, "", "threaded", False, normalize)]
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
        out.extend(trees.get(index, [items[index]]))
    return out
