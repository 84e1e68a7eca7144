"""Pruning an abandoned branch: what goes, and whether pi would read the file as before.

A prune removes the lines of whole subtrees (an entry and every entry under it) and keeps every
other line byte for byte, in order. This module plans (pure, over the index: :func:`plan_prune`,
:func:`plan_stale`) and carries a plan out (:func:`prune`, behind the guards of every write,
:mod:`pitui.core.guards`; :func:`restore_pruned` undoes it). :mod:`pitui.core.actions` exports
both with the other user actions.

A plan is refused when pi would not read the same leaf, active path, context, labels and name
afterwards:

- an entry of the active path (the path to the file's last entry, where pi continues; and any
  ``keep`` leaf, such as a :class:`~pitui.core.manager.SessionManager`'s in-memory leaf);
- an entry that a kept entry points at: its ``parentId`` (an ancestor of a kept entry), a
  compaction's ``firstKeptEntryId``, a ``context_edit``'s ``targetId``;
- an id that a kept entry also has (pi looks ids up by their last occurrence: the lookup would
  move);
- a label entry in the branch that decides the label of a kept entry, or a ``session_info`` entry
  that decides the session's name (both are resolved over the whole file, every branch);
- a file pi reads as one chain (no format version but ids and parents: pi linearizes it).

What is not a dependency: a ``branch_summary``'s ``fromId`` (pi 1.x stores the abandoned leaf
there: the summary's text stays in the context unchanged, pi never looks the id up) and the data
of pitui's own switch markers. A label entry elsewhere whose target goes is removed with the
branch when nothing hangs under it and it is not the leaf (else it stays, pointing at nothing,
which pi ignores).
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from pitui.core import edit, journal
from pitui.core import trash as trash_files
from pitui.core.edit import FileBusyError, WriteError
from pitui.core.guards import check_write, trash_original
from pitui.core.js import js_trim, parse_iso_ms
from pitui.core.problems import ProblemKind
from pitui.core.session import EntryMeta, Session
from pitui.core.units import format_bytes, format_count, plural

__all__ = [
    "DAY_SECONDS",
    "PRUNE_SUFFIX",
    "PrunePlan",
    "PruneRefusedError",
    "Pruned",
    "StaleBranch",
    "StalePlan",
    "plan_prune",
    "plan_stale",
    "prune",
    "pruned_original",
    "restore_pruned",
    "subtree",
]

DAY_SECONDS = 86_400.0


class PruneRefusedError(WriteError):
    """The prune would change what pi reads (or cannot be planned); ``str(exc)`` is one line."""


@dataclass(frozen=True, slots=True)
class PrunePlan:
    """What a prune removes: the branch starts asked for, every entry that goes (file order),
    and what the confirmation names."""

    tops: tuple[EntryMeta, ...]
    entries: tuple[EntryMeta, ...]
    messages: int  # ``message`` entries among them
    labels: dict[str, str]  # the labels that disappear: target id -> label text
    # kept entries whose label was set (or cleared) from inside the branch: target -> (label
    # now, label after); only with ``drop_labels``, else the plan is refused
    kept_labels: dict[str, tuple[str | None, str | None]]
    label_entries: int  # label entries removed (inside the branches, or pointing into them)
    dangling_labels: int  # label entries that stay (something hangs under them), now targetless
    bytes_saved: int  # the removed lines with their newlines
    ended: str | None  # the latest timestamp in what goes (ISO)

    @property
    def uids(self) -> frozenset[str]:
        return frozenset(meta.uid for meta in self.entries)

    def summary(self) -> str:
        """What goes, in one line: ``3 entries (2 messages), 1 label, 1.2 KiB``."""
        count = len(self.entries)
        entries = f"{format_count(count)} {'entry' if count == 1 else 'entries'}"
        parts = [f"{entries} ({plural(self.messages, 'message')})"]
        if self.labels:
            names = ", ".join(f"“{text}”" for text in list(self.labels.values())[:3])
            more = " …" if len(self.labels) > 3 else ""
            parts.append(f"{plural(len(self.labels), 'label')} ({names}{more})")
        if self.kept_labels:
            parts.append(f"{plural(len(self.kept_labels), 'label')} of kept entries changed")
        parts.append(format_bytes(self.bytes_saved))
        return ", ".join(parts)


def subtree(meta: EntryMeta) -> list[EntryMeta]:
    """``meta`` and every entry under it (preorder; no recursion: chains are thousands deep)."""
    found: list[EntryMeta] = []
    stack = [meta]
    while stack:
        node = stack.pop()
        found.append(node)
        if node.children:
            stack.extend(reversed(node.children))
    return found


def _active(session: Session, keep: Iterable[EntryMeta]) -> set[str]:
    uids: set[str] = set()
    for leaf in (session.leaf, *keep):
        uids.update(meta.uid for meta in session.path_to(leaf))
    return uids


def _describe(meta: EntryMeta) -> str:
    what = f"{meta.type}/{meta.role}" if meta.type == "message" and meta.role else meta.type
    return f"{meta.uid} ({what}, line {meta.line})"


def _labels(metas: Iterable[EntryMeta]) -> dict[str, tuple[str, str]]:
    """Label resolution (format §8.1) over ``metas`` in file order: target -> (label, time)."""
    labels: dict[str, tuple[str, str]] = {}
    for meta in metas:
        if meta.type != "label" or meta.target_id is None:
            continue
        if meta.label is not None:
            labels[meta.target_id] = (meta.label, meta.timestamp or "")
        else:
            labels.pop(meta.target_id, None)
    return labels


def _names(metas: Iterable[EntryMeta]) -> tuple[str | None, str | None]:
    """The session name by pi 1.x's rule (the latest ``session_info``) and by 0.73.1's (the
    latest with a non-empty name)."""
    new: str | None = None
    old: str | None = None
    for meta in metas:
        if meta.type != "session_info":
            continue
        name = js_trim(meta.name) if meta.name is not None else ""
        new = name or None
        if meta.name:
            old = name
    return new, old


class _Refs:
    """Who points at each id, built once per plan (one pass over the index), so that checking a
    branch costs its own size, not the file's: a bulk prune checks every branch."""

    def __init__(self, session: Session, active: set[str]) -> None:
        self.session = session
        self.active = active
        self.id_count: Counter[str] = Counter()
        self.parents: dict[str, list[EntryMeta]] = defaultdict(list)  # parentId -> entries
        self.first_kept: dict[str, list[EntryMeta]] = defaultdict(list)  # -> compactions
        self.edits: dict[str, list[EntryMeta]] = defaultdict(list)  # targetId -> context edits
        self.labels: dict[str, list[EntryMeta]] = defaultdict(list)  # targetId -> label entries
        self.infos: list[EntryMeta] = []  # session_info entries, file order
        for meta in session.entries:
            if meta.id is not None:
                self.id_count[meta.id] += 1
            if type(meta.parent_id) is str:
                self.parents[meta.parent_id].append(meta)
            etype = meta.type
            if etype == "label":
                if meta.target_id is not None:
                    self.labels[meta.target_id].append(meta)
            elif etype == "compaction":
                if meta.first_kept is not None:
                    self.first_kept[meta.first_kept].append(meta)
            elif etype == "context_edit":
                if meta.target_id is not None:
                    self.edits[meta.target_id].append(meta)
            elif etype == "session_info":
                self.infos.append(meta)


def _label_changes(
    refs: _Refs, gone: set[str], gone_ids: set[str], entries: Sequence[EntryMeta]
) -> dict[str, tuple[str | None, str | None]]:
    """The kept entries whose label (or label time) a label entry in the branch decides:
    target -> (label now, label after the prune)."""
    targets = {m.target_id for m in entries if m.type == "label" and m.target_id is not None}
    changed: dict[str, tuple[str | None, str | None]] = {}
    for target in targets - gone_ids:
        setters = refs.labels[target]
        now = _labels(setters).get(target)
        after = _labels(m for m in setters if m.uid not in gone).get(target)
        if now != after:
            changed[target] = (now[0] if now else None, after[0] if after else None)
    return dict(sorted(changed.items()))


def _refusal(
    refs: _Refs,
    gone: set[str],
    entries: Sequence[EntryMeta],
    tops: Sequence[EntryMeta],
    *,
    drop_labels: bool,
) -> str | None:
    """Why removing ``entries`` (their uids: ``gone``) would change what pi reads, or None."""
    for top in tops:
        if top.uid in refs.active:
            return (
                f"{_describe(top)} is on the active path (where pi continues); switch to "
                "another branch first, then prune this one"
            )
    gone_count = Counter(meta.id for meta in entries if meta.id is not None)
    for entry_id, count in gone_count.items():
        if refs.id_count[entry_id] > count:
            line = refs.session.by_id[entry_id].line
            return (
                f"id {entry_id!r} is used twice in the file (one copy stays, line {line}); "
                "pi's lookups would change"
            )
        for meta in refs.parents.get(entry_id, ()):
            if meta.uid not in gone:
                return f"{_describe(meta)} stays, and its parent {entry_id} is in the branch"
        for meta in refs.first_kept.get(entry_id, ()):
            if meta.uid not in gone:
                return (
                    f"the compaction {_describe(meta)} keeps the context from {entry_id} "
                    "(firstKeptEntryId), which is in the branch"
                )
        for meta in refs.edits.get(entry_id, ()):
            if meta.uid not in gone:
                return (
                    f"the context edit {_describe(meta)} targets {entry_id}, which is in the branch"
                )
    changed = _label_changes(refs, gone, set(gone_count), entries)
    if changed and not drop_labels:
        target, (before, _) = next(iter(changed.items()))
        more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
        return (
            f"a label entry in the branch sets the label “{before}” of {target}{more}, which "
            "stays: that label would go too (allow it: --drop-labels, or confirm in the app)"
        )
    if any(meta.type == "session_info" for meta in entries) and _names(refs.infos) != _names(
        meta for meta in refs.infos if meta.uid not in gone
    ):
        return "a session_info entry in the branch decides the session's name"
    return None


def _collect(refs: _Refs, tops: Sequence[EntryMeta]) -> list[EntryMeta]:
    """The entries that go: the subtrees, then the label entries elsewhere that point into them
    and can go without taking anything with them (no children, not the leaf)."""
    gone: dict[str, EntryMeta] = {}
    for top in tops:
        for meta in subtree(top):
            gone[meta.uid] = meta
    gone_ids = {meta.id for meta in gone.values() if meta.id is not None}
    for entry_id in gone_ids:
        for meta in refs.labels.get(entry_id, ()):
            if meta.uid not in gone and not meta.children and meta.uid not in refs.active:
                gone[meta.uid] = meta
    return sorted(gone.values(), key=lambda meta: meta.line)


def _check_file(session: Session) -> None:
    if any(p.kind is ProblemKind.VERSION_TRAP for p in session.problems):
        raise PruneRefusedError(
            f"{session.path} has no format version; pi reads it as one chain, so no branch of it "
            "is abandoned"
        )


def _plan(refs: _Refs, tops: Sequence[EntryMeta], *, drop_labels: bool) -> PrunePlan:
    entries = _collect(refs, tops)
    gone = {meta.uid for meta in entries}
    reason = _refusal(refs, gone, entries, tops, drop_labels=drop_labels)
    if reason is not None:
        raise PruneRefusedError(reason)
    gone_ids = {meta.id for meta in entries if meta.id is not None}
    labels = {target: text for target, text in refs.session.labels.items() if target in gone_ids}
    dangling = sum(
        1 for entry_id in gone_ids for meta in refs.labels.get(entry_id, ()) if meta.uid not in gone
    )
    stamps = [(parse_iso_ms(meta.timestamp), meta.timestamp) for meta in entries]
    dated = [(ms, stamp) for ms, stamp in stamps if ms is not None]
    return PrunePlan(
        tops=tuple(tops),
        entries=tuple(entries),
        messages=sum(1 for meta in entries if meta.type == "message"),
        labels=labels,
        kept_labels=_label_changes(refs, gone, gone_ids, entries),
        label_entries=sum(1 for meta in entries if meta.type == "label"),
        dangling_labels=dangling,
        bytes_saved=sum(meta.length + 1 for meta in entries),
        ended=max(dated)[1] if dated else None,
    )


def plan_prune(
    session: Session,
    uids: Sequence[str],
    *,
    keep: Iterable[EntryMeta] = (),
    drop_labels: bool = False,
) -> PrunePlan:
    """Plan removing the subtrees under the entries ``uids``; raises :class:`PruneRefusedError`
    (one line: why) when pi would read the file differently afterwards. ``keep``: more leaves
    whose paths count as active. ``drop_labels``: a label of a kept entry set from inside the
    branch may go with it (the plan names it in ``kept_labels``)."""
    _check_file(session)
    if not uids:
        raise PruneRefusedError("no entry to prune")
    tops: list[EntryMeta] = []
    for uid in uids:
        meta = session.get(uid)
        if meta is None:
            raise PruneRefusedError(f"entry {uid} is not in {session.path}")
        tops.append(meta)
    return _plan(_Refs(session, _active(session, keep)), tops, drop_labels=drop_labels)


# ------------------------------------------------------------------------------ the write

PRUNE_SUFFIX = ".before-prune"


@dataclass(frozen=True, slots=True)
class Pruned:
    """What a prune did: the plan it carried out, the file's size before and after, and where
    the original is (in the trash, as ``<name>.before-prune``; ``original`` is its record)."""

    path: str
    plan: PrunePlan
    size_before: int
    size_after: int
    original_kept: str
    original: trash_files.TrashedItem | None


def prune(
    session: Session,
    uids: Sequence[str],
    *,
    force: bool = False,
    clock: float | None = None,
    keep: Sequence[EntryMeta] = (),
    drop_labels: bool = False,
) -> Pruned:
    """Remove the subtrees under the entries ``uids`` from the file (see
    :func:`plan_prune` for what is refused), keeping every other line byte for byte and in
    order: the original goes to the trash first, then the file is rewritten atomically
    (:func:`~pitui.core.edit.rewrite_without`). The guards of every write apply (pi writing it,
    a line still being written, a cut last line). :func:`restore_pruned` gives the original
    back. The session is read again afterwards. ``keep`` and ``drop_labels``: as for
    :func:`plan_prune`."""
    session.refresh()
    check_write(session, force=force, clock=clock, linearize=False)
    plan = plan_prune(session, uids, keep=keep, drop_labels=drop_labels)
    stat = os.stat(session.path)
    before = edit.FileState((stat.st_dev, stat.st_ino), stat.st_size)
    if stat.st_size != session.end_offset:
        raise FileBusyError(f"{session.path} changed while pitui was reading it; try again")
    drop = _merged((meta.offset, meta.offset + meta.length + 1) for meta in plan.entries)
    leaf, count = session.leaf_id, len(session.entries)
    kept, item = trash_original(session.path, PRUNE_SUFFIX)
    try:
        after = edit.rewrite_without(session.path, drop, before)
    except WriteError:
        if item is not None:  # nothing changed: the copy in the trash is not needed
            with contextlib.suppress(OSError):
                os.unlink(item.stored)
                os.unlink(item.info)
        raise
    journal.remember_write(session.path)
    if item is not None:
        journal.log_prune(session.path, item.info)
    session.reload()
    if session.leaf_id != leaf or len(session.entries) != count - len(plan.entries):
        raise WriteError(
            f"{session.path} does not read as planned after the prune; the original is in the "
            f"trash: {kept} (pitui restore {session.path})"
        )
    return Pruned(session.path, plan, before.size, after.size, kept, item)


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def pruned_original(path: str) -> trash_files.TrashedItem | None:
    """The most recent original of ``path`` that a prune put in the trash, if any."""
    if not trash_files.restore_supported():
        return None
    found = trash_files.find_trashed(f"{os.path.abspath(path)}{PRUNE_SUFFIX}")
    return found[0] if found else None


def restore_pruned(
    path: str, item: trash_files.TrashedItem | None = None, *, force: bool = False
) -> trash_files.TrashedItem:
    """Undo a prune: the original (``item``, else the latest one in the trash) replaces the
    pruned file, atomically. Refused when the file changed since the prune (pi wrote to it:
    that would be lost), unless ``force``: then the file as it is goes to the trash first.
    Returns the record, with ``original`` the session's path."""
    path = os.path.abspath(path)
    if not trash_files.restore_supported():
        raise trash_files.TrashError("restoring from the trash needs the freedesktop trash (Linux)")
    item = item or pruned_original(path)
    if item is None or not os.path.lexists(item.stored):
        raise trash_files.TrashError(f"the trash holds no original of {path} from before a prune")
    try:
        stat: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        stat = None
    except OSError as exc:
        raise trash_files.TrashError(f"{path}: {exc.strerror or exc}") from exc
    if stat is not None and not journal.is_pruned_state(path, stat, item.info):
        if not force:
            raise trash_files.TrashError(
                f"{path} changed since it was pruned (pi wrote to it?): restoring the original "
                "would lose that (use --force to restore anyway; the file as it is now goes to "
                "the trash first)"
            )
        trash_files.trash(path)
    try:
        os.replace(item.stored, path)  # the trash is on the file's own file system
    except OSError as exc:
        raise trash_files.TrashError(f"cannot restore {path}: {exc.strerror or exc}") from exc
    with contextlib.suppress(OSError):
        os.unlink(item.info)
    journal.remember_write(path)
    return trash_files.TrashedItem(path, item.stored, item.info, item.deleted_at)


# ------------------------------------------------------------------------------ the bulk form


@dataclass(frozen=True, slots=True)
class StaleBranch:
    """One branch off the kept part of the tree: where it starts and when it ended."""

    top: EntryMeta
    entries: int
    messages: int
    ended: str | None
    bytes: int
    refused: str | None = None  # why this one stays although it is stale


@dataclass(frozen=True, slots=True)
class StalePlan:
    """The bulk prune: the branches that go together (``plan``, None when none), and the stale
    ones that stay because pruning them would change what pi reads."""

    days: float
    branches: list[StaleBranch] = field(default_factory=list)
    plan: PrunePlan | None = None

    @property
    def pruned(self) -> list[StaleBranch]:
        return [branch for branch in self.branches if branch.refused is None]

    @property
    def refused(self) -> list[StaleBranch]:
        return [branch for branch in self.branches if branch.refused is not None]


def _protected(session: Session, active: set[str]) -> set[str]:
    """The active path, and every labelled entry off it with the path to it and everything
    under it (a labelled branch stays whole; the branches off a labelled entry of the active
    path are branches of their own)."""
    keep = set(active)
    for target in session.labels:
        meta = session.by_id.get(target)
        if meta is None or meta.uid in keep:
            continue
        keep.update(node.uid for node in subtree(meta))
        node = meta.parent
        while node is not None and node.uid not in keep:  # the path up, until known ground
            keep.add(node.uid)
            node = node.parent
    return keep


def plan_stale(
    session: Session,
    days: float,
    *,
    now: float,
    keep: Iterable[EntryMeta] = (),
    drop_labels: bool = False,
) -> StalePlan:
    """Every branch with no label that ended more than ``days`` days before ``now`` (epoch
    seconds): the subtrees hanging off the active path and off the paths to labelled entries
    (and other roots) whose latest entry is older than that. A branch whose prune would change
    what pi reads is listed as refused and stays; the others go in one plan."""
    _check_file(session)
    active = _active(session, keep)
    protected = _protected(session, active)
    refs = _Refs(session, active)
    cutoff_ms = (now - days * DAY_SECONDS) * 1000
    candidates = [meta for meta in session.roots if meta.uid not in protected]
    for meta in session.entries:
        if meta.uid in protected:
            candidates.extend(c for c in meta.children or () if c.uid not in protected)
    branches: list[StaleBranch] = []
    chosen: list[EntryMeta] = []
    for top in sorted(candidates, key=lambda meta: meta.line):
        members = subtree(top)
        dated = [(ms, m.line, m) for m in members if (ms := parse_iso_ms(m.timestamp)) is not None]
        if not dated or max(dated, key=_key)[0] >= cutoff_ms:
            continue  # recent, or of unknown age: stays
        ended = max(dated, key=_key)[2]
        try:
            alone = _plan(refs, [top], drop_labels=drop_labels)
        except PruneRefusedError as exc:
            branches.append(_branch(top, members, ended.timestamp, str(exc)))
            continue
        branches.append(_branch(top, list(alone.entries), ended.timestamp, None))
        chosen.append(top)
    plan = _together(refs, chosen, drop_labels)
    going = {top.uid for top in plan.tops} if plan is not None else set()
    branches = [
        branch
        if branch.refused is not None or branch.top.uid in going
        else replace(
            branch,
            refused="together with the others it would change a label or "
            "the name; prune it on its own",
        )
        for branch in branches
    ]
    return StalePlan(days, branches, plan)


def _together(refs: _Refs, tops: list[EntryMeta], drop_labels: bool) -> PrunePlan | None:
    """One plan for branches that may each go alone; should the set be refused (two branches
    that together decide a label or the name), branches are added one at a time instead."""
    if not tops:
        return None
    try:
        return _plan(refs, tops, drop_labels=drop_labels)
    except PruneRefusedError:
        pass
    chosen: list[EntryMeta] = []
    for top in tops:
        try:
            _plan(refs, [*chosen, top], drop_labels=drop_labels)
        except PruneRefusedError:
            continue
        chosen.append(top)
    return _plan(refs, chosen, drop_labels=drop_labels) if chosen else None


def _key(item: tuple[int, int, EntryMeta]) -> tuple[int, int]:
    return item[0], item[1]  # the latest time; on a tie, the later line


def _branch(
    top: EntryMeta, members: list[EntryMeta], ended: str | None, refused: str | None
) -> StaleBranch:
    return StaleBranch(
        top=top,
        entries=len(members),
        messages=sum(1 for meta in members if meta.type == "message"),
        ended=ended,
        bytes=sum(meta.length + 1 for meta in members),
        refused=refused,
    )
