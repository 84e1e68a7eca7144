"""The rows of pi's tree selector: the session's tree flattened in pi's order (§3.3), grouped into
chains, with one kind byte per row for the filters (§3.7, §3.8).

A session can be a chain 100,000 entries deep, so nothing recurses: one pass over the tree with
an explicit stack. *Chains* are runs of entries where each has exactly one child; in pre-order a
chain is a contiguous range of rows, so the ancestors of row ``r`` inside its chain are
``[chain_start(r), r]`` and every subtree ends where its chain's subtree ends.
:class:`pitui.core.treeview.TreeView` derives what is visible from these.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import add, attrgetter
from typing import Final, NamedTuple

from pitui.core.memory import collector_paused
from pitui.core.session import EntryMeta, Session

__all__ = ["HIDDEN", "FlatTree", "extend_at_leaf", "filter_mask", "flatten", "row_kind"]


# Row kinds: one byte per row, so each filter mode is a 256-byte translate table.

_HIDDEN: Final = 0  # assistant without text that is not an error: never shown (§3.7)
_USER: Final = 1
_TOOL: Final = 2  # toolResult message
_OTHER: Final = 3  # shown in default and no-tools
_BOOKKEEPING: Final = 4  # shown in `all` only

_TYPE_KIND: Final[dict[str, int]] = {
    "compaction": _OTHER,
    "branch_summary": _OTHER,
    "custom_message": _OTHER,
    "label": _BOOKKEEPING,
    "custom": _BOOKKEEPING,
    "model_change": _BOOKKEEPING,
    "thinking_level_change": _BOOKKEEPING,
    "session_info": _BOOKKEEPING,
}  # every other non-message type (pi 1.x usage/context_edit, unknown types): bookkeeping
_ROLE_KIND: Final[dict[str, int]] = {"user": _USER, "toolResult": _TOOL, "system": _BOOKKEEPING}


_UNSURE: Final = 255  # needs a closer look (assistant messages, unknown roles)
# The kind of most rows from (type, role) alone: one dict lookup while flattening.
_KIND_BY_TYPE_ROLE: Final[dict[tuple[str, str | None], int]] = {
    **{(etype, None): kind for etype, kind in _TYPE_KIND.items()},
    **{("message", role): kind for role, kind in _ROLE_KIND.items()},
    **{("message", role): _OTHER for role in ("bashExecution", "custom", "branchSummary",
                                              "compactionSummary")},
}  # fmt: skip


def _table(*kinds: int) -> bytes:
    return bytes(1 if code in kinds else 0 for code in range(256))


_MODE_TABLES: Final[dict[str, bytes]] = {
    "default": _table(_USER, _TOOL, _OTHER),
    "no-tools": _table(_USER, _OTHER),
    "user-only": _table(_USER),
    "labeled-only": _table(),  # built from the labels
    "all": _table(_USER, _TOOL, _OTHER, _BOOKKEEPING),
}


def _kind(meta: EntryMeta) -> int:
    if meta.type != "message":
        return _TYPE_KIND.get(meta.type, _BOOKKEEPING)
    role = meta.role
    if role == "assistant":
        info = meta.info
        if len(info) == 5:
            # session.py's assistant record (provider, model, stopReason, has visible text,
            # tool call ids): read directly, the properties cost a third of flattening a big
            # session
            stop, has_text = info[2], info[3]
        else:
            stop, has_text = meta.stop_reason, meta.has_text
        # pi: hidden unless some text or a truthy stopReason other than stop/toolUse (§3.7)
        if type(stop) is str:
            quiet = stop == "stop" or stop == "toolUse" or stop == ""
        else:
            quiet = stop is None or stop is False or stop == 0
        return _HIDDEN if quiet and not has_text else _OTHER
    return _ROLE_KIND.get(role or "", _OTHER)


HIDDEN: Final = _HIDDEN


def row_kind(meta: EntryMeta) -> int:
    """The kind byte of one row (the leaf's may be raised to shown: see :func:`flatten`)."""
    kind = _KIND_BY_TYPE_ROLE.get((meta.type, meta.role), _UNSURE)
    return kind if kind != _UNSURE else _kind(meta)


def filter_mask(kinds: bytes, mode: str, labeled: Sequence[int]) -> bytearray:
    """One byte per row, 1 where filter ``mode`` shows the row; ``labeled``: the rows with a
    resolved label (what ``labeled-only`` shows, the hidden ones left out)."""
    if mode != "labeled-only":
        return bytearray(kinds.translate(_MODE_TABLES[mode]))
    mask = bytearray(len(kinds))
    for row in labeled:
        if kinds[row] != _HIDDEN:
            mask[row] = 1
    return mask


class FlatTree(NamedTuple):
    """The rows of a session's tree for one leaf."""

    rows: list[EntryMeta]
    chain_of: list[int]  # per row: the row where its chain starts
    chain_parent: dict[int, int]  # chain start -> row of the branch node above (-1: root)
    chain_last: dict[int, int]  # chain start -> its last row
    chain_end: dict[int, int]  # chain start -> end (exclusive) of the chain's subtree
    kinds: bytes  # one kind per row
    leaf_row: int  # the active path is rows 0 .. leaf_row (-1: no leaf)


def flatten(session: Session, leaf: EntryMeta | None) -> FlatTree:
    """Rows in pi's order (§3.3): the branch holding ``leaf`` first at every node, so the active
    path is exactly rows ``0 .. leaf_row``; no recursion, one pass."""
    # The pass allocates one small tuple per branch and list slots per row but no cycles; a
    # collection triggered midway would scan every entry of the session for nothing.
    with collector_paused():
        return _flatten(session, leaf)


def _flatten(session: Session, leaf: EntryMeta | None) -> FlatTree:
    path = session.path_to(leaf) if leaf is not None else []
    active = {id(meta) for meta in path}
    roots = session.roots
    if path:
        top = path[0]
        roots = [top, *(root for root in roots if root is not top)]
    rows: list[EntryMeta] = []
    chain_of: list[int] = []
    chain_parent: dict[int, int] = {}
    chain_last: dict[int, int] = {}
    chain_end: dict[int, int] = {}
    kinds = bytearray()
    kind_of, kind_get, type_role = _kind, _KIND_BY_TYPE_ROLE.get, attrgetter("type", "role")
    append, chain_append, kind_append = rows.append, chain_of.append, kinds.append
    # (meta, parent row); (None, chain start) closes a chain once its subtree is done
    stack: list[tuple[EntryMeta | None, int]] = [(root, -1) for root in reversed(roots)]
    pop, push = stack.pop, stack.append
    while stack:
        meta, parent_row = pop()
        if meta is None:
            chain_end[parent_row] = len(rows)
            continue
        start = len(rows)
        chain_parent[start] = parent_row
        while True:
            append(meta)
            chain_append(start)
            kind = kind_get(type_role(meta), _UNSURE)
            kind_append(kind if kind != _UNSURE else kind_of(meta))
            children = meta.children
            if children is not None and len(children) == 1:
                meta = children[0]
                continue
            break
        last = len(rows) - 1
        chain_last[start] = last
        push((None, start))
        if children:
            first = next((c for c in children if id(c) in active), None)
            ordered = (
                children if first is None else [first, *(c for c in children if c is not first)]
            )
            for child in reversed(ordered):
                push((child, last))
    leaf_row = len(path) - 1
    if leaf_row >= 0 and kinds[leaf_row] == _HIDDEN:
        kinds[leaf_row] = _OTHER  # the leaf is always shown (§3.7)
    return FlatTree(rows, chain_of, chain_parent, chain_last, chain_end, bytes(kinds), leaf_row)


def extend_at_leaf(flat: FlatTree, old: EntryMeta, new: EntryMeta, k: int) -> FlatTree | None:
    """``flat`` with the ``k`` entries appended as one chain below its leaf ``old``, ``new``
    being the last of them and the new leaf; None when the session changed in any other way.

    The leaf's row ``r`` ends the active path and its chain, so the new entries are rows
    ``r+1 .. r+k`` of that chain, and every row, chain start and subtree end after ``r`` moves
    down by ``k``: list and dict shifts at C speed instead of a re-flatten (which costs ~0.2 s
    for 100,000 entries). The lists are new, not edited in place: a search index is matched to
    its rows by identity."""
    r = flat.leaf_row
    if new is old or k <= 0 or r < 0 or flat.rows[r] is not old:
        return None
    added: list[EntryMeta] = []
    node: EntryMeta | None = new
    while node is not None and node is not old and len(added) < k:
        added.append(node)
        node = node.parent
    if node is not old or len(added) != k or new.children:
        return None
    added.reverse()
    for parent, child in zip((old, *added), added, strict=False):
        children = parent.children
        if children is None or len(children) != 1 or children[0] is not child:
            return None
    start = flat.chain_of[r]
    if flat.chain_last[start] != r:
        return None
    cut = r + 1

    def shift(row: int) -> int:
        return row + k if row > r else row

    chain_last = {shift(s): shift(last) for s, last in flat.chain_last.items()}
    chain_last[start] = r + k
    kinds = bytearray(flat.kinds)
    kinds[r] = row_kind(old)  # no longer the leaf: its own kind again
    kinds[cut:cut] = bytes(row_kind(meta) for meta in added)
    if kinds[r + k] == _HIDDEN:
        kinds[r + k] = _OTHER  # the leaf is always shown (§3.7)
    return FlatTree(
        [*flat.rows[:cut], *added, *flat.rows[cut:]],
        [*flat.chain_of[:cut], *repeat(start, k), *map(add, flat.chain_of[cut:], repeat(k))],
        {shift(s): shift(p) for s, p in flat.chain_parent.items()},
        chain_last,
        {shift(s): shift(end) for s, end in flat.chain_end.items()},
        bytes(kinds),
        r + k,
    )
