"""The picker's rows without a search query: the threaded forest, and the order of a whole store.

:class:`Row` is one picker row; :func:`threaded_rows` the threaded forest (§2.4) with pi's tree
prefixes (what :func:`~pitui.core.search.filter_and_sort` gives for an empty query).
:func:`ordered` is the row order for any sort mode; :func:`threaded_order` gives the items of
the threaded rows without building a row per session; :func:`path_keys` the threaded view's path
normalisation (real absolute paths) from a folder scan, without resolving every listed file. A
listing without a search imports neither the search nor its texts.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Generic, NamedTuple, TypeVar

from pitui.core import paths

if TYPE_CHECKING:
    from pitui.core.scan import Scan
    from pitui.core.search import SortMode
    from pitui.core.session_info import SearchableSession

__all__ = [
    "PathKeys",
    "Row",
    "S",
    "flat_row",
    "ordered",
    "path_keys",
    "threaded_order",
    "threaded_rows",
]

S = TypeVar("S", bound="SearchableSession")


class Row(NamedTuple, Generic[S]):
    """One picker row: the session, its depth in the threaded forest and its tree prefix."""

    item: S
    depth: int = 0
    prefix: str = ""


def flat_row(item: S) -> Row[S]:
    """A row at depth 0 without a prefix."""
    # tuple.__new__ skips NamedTuple's Python-level __new__ with defaults: rows are made for
    # every matching session on every key press.
    return tuple.__new__(Row, (item, 0, ""))


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


def ordered(items: Sequence[S], mode: SortMode, keys: PathKeys) -> list[S]:
    """The items of ``filter_and_sort(items, "", mode)``'s rows (the threaded view through
    :func:`threaded_order`; the other modes keep the input order); ``keys`` normalise paths
    (see :func:`path_keys`). The Named filter is the caller's, before this."""
    if mode == "threaded":
        return threaded_order(list(items), keys.__getitem__)
    return list(items)


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
    rows = threaded_rows([items[index] for index in forked], normalize)
    where = {id(items[index]): index for index in forked}
    if len(where) != len(forked):  # one object listed twice: let the forest sort it out
        return [row.item for row in threaded_rows(items, normalize)]
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


def threaded_rows(items: list[S], normalize_path: Callable[[str], str]) -> list[Row[S]]:
    """The threaded forest (§2.4), walked depth first, with pi's tree prefixes.

    pitui deviations from pi (which loses such sessions): every session appears exactly once.
    Two sessions with the same normalized path are both shown (a parent link goes to the later
    one, like pi's map); a session that is its own parent, or a parent cycle, becomes a root
    where the cycle is detected.
    """
    count = len(items)
    by_key = {normalize_path(item.path): index for index, item in enumerate(items)}
    parent: list[int | None] = []
    for item in items:
        raw = item.parent_session_path
        parent.append(by_key.get(normalize_path(raw)) if raw else None)

    # Break self-parents and cycles: walk each chain once; a node met again on the current
    # chain closes a cycle and becomes a root.
    state = [0] * count  # 0 = unseen, 1 = on the current chain, 2 = done
    for start in range(count):
        chain: list[int] = []
        node: int | None = start
        while node is not None and state[node] == 0:
            state[node] = 1
            chain.append(node)
            node = parent[node]
        if node is not None and state[node] == 1:
            parent[node] = None
        for visited in chain:
            state[visited] = 2

    roots: list[int] = []
    children: list[list[int]] = [[] for _ in range(count)]
    for index in range(count):
        p = parent[index]
        if p is None:
            roots.append(index)
        else:
            children[p].append(index)

    # Latest activity in each subtree ([new] pi 1.6.0 ordering): children before parents.
    latest = [item.modified for item in items]
    order: list[int] = []
    stack = list(roots)
    while stack:
        node_index = stack.pop()
        order.append(node_index)
        stack.extend(children[node_index])
    for node_index in reversed(order):
        p = parent[node_index]
        if p is not None and latest[node_index] > latest[p]:
            latest[p] = latest[node_index]

    def newest_first(nodes: list[int]) -> None:
        nodes.sort(key=lambda k: -latest[k])  # stable: ties keep input order

    newest_first(roots)
    for kids in children:
        if len(kids) > 1:
            newest_first(kids)

    rows: list[Row[S]] = []
    # (node, depth, ancestor part of the prefix for this node, is last among its siblings)
    walk: list[tuple[int, int, str, bool]] = [(r, 0, "", False) for r in reversed(roots)]
    while walk:
        node_index, depth, ancestors, is_last = walk.pop()
        if depth == 0:
            rows.append(Row(items[node_index]))
            child_ancestors = "   "  # the root level never draws a line
        else:
            rows.append(Row(items[node_index], depth, ancestors + ("└─ " if is_last else "├─ ")))
            child_ancestors = ancestors + ("   " if is_last else "│  ")
        kids = children[node_index]
        last_kid = len(kids) - 1
        for position in range(last_kid, -1, -1):
            walk.append((kids[position], depth + 1, child_ancestors, position == last_kid))
    return rows
