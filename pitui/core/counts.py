"""What the session view's header counts about an open session, kept current as pi appends.

Spend (tokens, cost) of the whole file and of the active branch, and the branch ends. Counting
from scratch walks every entry, which is slow on a big file; :func:`count_growth` brings the
counts up to date with the entries just appended, walking only what is new.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pitui.core.session import EntryMeta, Session, Stats

__all__ = ["Counts", "count_growth", "count_session"]


@dataclass(frozen=True, slots=True)
class Counts:
    """Spend of the file and of the active branch, branch ends, and what tells whether the
    index was relinked since (``roots``, ``ids``)."""

    file: Stats
    branch: Stats
    branch_leaf: EntryMeta | None  # the leaf ``branch`` was counted to
    leaves: int
    roots: int
    ids: int


def count_session(session: Session) -> Counts:
    """Count from scratch (any thread, while the index does not change)."""
    return Counts(
        session.stats(),
        session.stats(session.branch()),
        session.leaf,
        sum(1 for meta in session.entries if not meta.children),
        len(session.roots),
        len(session.by_id),
    )


def count_growth(counts: Counts, session: Session, new: Sequence[EntryMeta]) -> Counts:
    """The counts after ``new`` entries were appended, without walking the whole file."""
    with_ids = sum(1 for meta in new if meta.id is not None)
    if len(session.roots) < counts.roots or len(session.by_id) != counts.ids + with_ids:
        return count_session(session)  # an orphan was adopted or an id repeated: relinked
    fresh = {id(meta) for meta in new}
    leaves = counts.leaves + sum(1 for meta in new if not meta.children)
    parents = {id(p): p for m in new if (p := m.parent) is not None and id(p) not in fresh}
    for parent in parents.values():
        if all(id(child) in fresh for child in parent.children or ()):
            leaves -= 1  # it was a branch end until now
    walked: list[EntryMeta] = []
    node = session.leaf
    while node is not None and node is not counts.branch_leaf:
        walked.append(node)
        node = node.parent
    if node is not None or counts.branch_leaf is None:
        branch = _plus(counts.branch, session.stats(walked))
    else:  # the leaf moved to another branch
        branch = session.stats(session.branch())
    return Counts(_plus(counts.file, session.stats(new)), branch, session.leaf, leaves,
                  len(session.roots), len(session.by_id))  # fmt: skip


def _plus(a: Stats, b: Stats) -> Stats:
    by_role = dict(a.by_role)
    for role, count in b.by_role.items():
        by_role[role] = by_role.get(role, 0) + count
    return Stats(
        entries=a.entries + b.entries,
        messages=a.messages + b.messages,
        by_role=by_role,
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        cache_read_tokens=a.cache_read_tokens + b.cache_read_tokens,
        cache_write_tokens=a.cache_write_tokens + b.cache_write_tokens,
        total_tokens=a.total_tokens + b.total_tokens,
        cost=a.cost + b.cost,
    )
