"""Every write a user can ask for: one function per action, the guards of every write applied.

One function per action: :func:`rename`, :func:`label`, :func:`switch`, :func:`extract`,
:func:`fork`, :func:`prune` (and :func:`restore_pruned`), :func:`trash`, :func:`restore` and
:func:`restore_last`. The UI, the commands and
:class:`~pitui.core.manager.SessionManager` call these; :mod:`pitui.core.edit` underneath makes
the raw writes (whole lines in one ``O_APPEND`` write, atomic rewrites, ids).

Every one of them writes behind the guards of :mod:`pitui.core.guards` (re-read first, never
onto a line still being written, pi's recent writes refused unless forced, v1/v2 files migrated
first, the newline a last line lacks, a read-back check); every refusal is a
:class:`~pitui.core.edit.WriteError` (``FileBusyError`` when waiting or forcing would help) with
a one-line message, and nothing is written then. The guards and the guarded :func:`append` are
exported here too, for callers that write what no action covers. The prune, with its plan, lives
in :mod:`pitui.core.prune`.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pitui.core import edit, journal
from pitui.core import trash as trash_files
from pitui.core.edit import FileBusyError, WriteError
from pitui.core.guards import (
    Build,
    MigrationLossError,
    Written,
    append,
    append_entries,
    busy_age,
    check_write,
    migrate,
    migration_losses,
    sweep_stale_temps,
)
from pitui.core.jsonl import open_buffer
from pitui.core.paths import session_file_name
from pitui.core.prune import PRUNE_SUFFIX, Pruned, prune, pruned_original, restore_pruned
from pitui.core.session import EntryMeta, Session
from pitui.core.stringify import dump_entry, dump_header

remember_write = journal.remember_write

__all__ = [
    "PRUNE_SUFFIX",
    "Build",
    "FileBusyError",
    "MigrationLossError",
    "Pruned",
    "Restored",
    "SwitchPlan",
    "TrashOutcome",
    "WriteError",
    "Written",
    "append",
    "append_entries",
    "busy_age",
    "check_write",
    "extract",
    "fork",
    "label",
    "label_build",
    "migrate",
    "migration_losses",
    "plan_switch",
    "prune",
    "pruned_original",
    "remember_write",
    "rename",
    "restore",
    "restore_last",
    "restore_pruned",
    "resume_position",
    "switch",
    "switch_build",
    "trash",
]

# ----------------------------------------------------------------------------------- actions


def rename(
    session: Session, name: str, *, force: bool = False, clock: float | None = None
) -> Written:
    """Name the session as pi's ``/name`` does (a ``session_info`` entry); ``""`` clears it."""
    return append(
        session, lambda s: [edit.session_info_entry(s, name, clock=clock)], force=force, clock=clock
    )


def _own_entry(session: Session, uid: str, what: str) -> EntryMeta:
    meta = session.get(uid)
    if meta is None:
        raise WriteError(f"entry {uid} is no longer in the file")
    if meta.id is None or session.by_id.get(meta.id) is not meta:
        raise WriteError(f"entry {meta.uid} has no id of its own in the file; pi cannot {what}")
    return meta


def label(
    session: Session,
    uid: str,
    text: str | None,
    *,
    force: bool = False,
    clock: float | None = None,
) -> Written:
    """Set (``text``) or clear (``None`` / ``""``) the label of entry ``uid`` (pi's label entry,
    a child of the leaf)."""
    return append(session, label_build(uid, text, clock=clock), force=force, clock=clock)


def label_build(uid: str, text: str | None, *, clock: float | None = None) -> Build:
    """What :func:`label` appends, for a caller that runs the guards and the write itself."""

    def build(current: Session) -> list[dict[str, Any]]:
        target = _own_entry(current, uid, "label it")
        return [edit.label_entry(current, target, text or None, clock=clock)]

    return build


def resume_position(session: Session) -> EntryMeta | None:
    """Where pi continues when it opens the file: the leaf, seen through the entries that do not
    change the context (labels and pitui's own switch markers)."""
    node = session.leaf
    while node is not None and (
        node.type == "label"
        or (node.type == "custom" and node.custom_type == edit.MARKER_CUSTOM_TYPE)
    ):
        node = node.parent
    return node


@dataclass(frozen=True, slots=True)
class SwitchPlan:
    """What choosing an entry in the tree means (ui-behaviour §3.13 rule 3)."""

    selected: EntryMeta
    resume_at: EntryMeta | None  # the new leaf (``None``: a new root, before the first message)
    editor_text: str | None  # a user or custom message's text, which pi offers for re-sending
    already_there: bool  # pi already resumes there: nothing to write


def plan_switch(session: Session, selected: EntryMeta) -> SwitchPlan:
    resume_at, editor_text = edit.resume_point(session, selected)
    already = selected is session.leaf or resume_at is resume_position(session)
    return SwitchPlan(selected, resume_at, editor_text, already)


def switch(
    session: Session,
    uid: str | None,
    *,
    summary: str | None = None,
    force: bool = False,
    clock: float | None = None,
) -> Written:
    """Make pi resume at entry ``uid`` (``None``: a new root): a context-neutral marker, or with
    ``summary`` a ``branch_summary`` that enters the context (format §7.3)."""
    return append(session, switch_build(uid, summary, clock=clock), force=force, clock=clock)


def switch_build(uid: str | None, summary: str | None, *, clock: float | None = None) -> Build:
    """What :func:`switch` appends, for a caller that runs the guards and the write itself."""

    def build(current: Session) -> list[dict[str, Any]]:
        new_leaf = _own_entry(current, uid, "resume there") if uid is not None else None
        return edit.switch_entries(current, new_leaf, summary=summary or None, clock=clock)

    return build


def extract(session: Session, uid: str, output: str | None = None) -> edit.Extracted:
    """Write the branch root → ``uid`` as a new session file (pi's ``/fork``), beside the source
    unless ``output`` names the file; an existing file is never replaced."""
    leaf = session.get(uid)
    if leaf is None:
        raise WriteError(f"entry {uid} is no longer in the file")
    folder = os.path.dirname(os.path.abspath(output)) if output else os.path.dirname(session.path)
    sweep_stale_temps(folder)
    extracted = edit.extract_branch(session, leaf, output)
    journal.remember_write(extracted.path)
    return extracted


def fork(
    source: str,
    target_cwd: str,
    folder: str,
    *,
    clock: float | None = None,
    rng: random.Random | None = None,
) -> str:
    """Copy a session into ``folder`` for ``target_cwd`` (pi's ``forkFrom``, format §11.3): a
    new header (new id, ``cwd`` = ``target_cwd``, ``parentSession`` = the source), then every
    entry of the source, all branches: line for line from a version-3 file, migrated from an
    older one (pi copied v1 entries without ids under a version-3 header). Written at once,
    exclusively; returns the new file."""
    source = os.path.abspath(source)
    with Session.open(source, final=True) as src:
        header = edit.new_header(target_cwd, parent_session=source, clock=clock, rng=rng)
        lines = [dump_header(header)]
        if src.original_version >= 3:
            with open_buffer(source) as data:
                for meta in src.entries:
                    line = data[meta.offset : meta.offset + meta.length].rstrip(b"\r")
                    lines.append(line + b"\n")
        else:
            lines.extend(dump_entry(src.raw(meta)) for meta in src.entries)
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, session_file_name(header["timestamp"], header["id"]))
    edit.atomic_write(target, lines, exclusive=True)
    journal.remember_write(target)
    return target


def create_file(
    path: str, header: dict[str, Any], entries: list[dict[str, Any]], *, blank: bool = False
) -> None:
    """A new session file with its header and entries, written at once (pi's first flush):
    exclusively, or over a ``blank`` file only while it is still blank."""
    sweep_stale_temps(os.path.dirname(path))
    if blank:
        edit.initialize_blank_file(path, header, entries)
    else:
        edit.first_flush(path, header, entries)
    journal.remember_write(path)


# ---------------------------------------------------------------------------- trash, restore


@dataclass(slots=True)
class TrashOutcome:
    """What :func:`trash` did: the files it moved (with their trash record, where known) and the
    ones the trash did not take (with a one-line reason)."""

    trashed: list[tuple[str, trash_files.TrashedItem | None]]
    failed: list[tuple[str, str]]


def trash(paths: Sequence[str]) -> TrashOutcome:
    """Move sessions to the trash as one batch (``restore_last`` gives the batch back). The
    callers have asked the user and checked :func:`busy_age` first."""
    outcome = TrashOutcome([], [])
    for path in paths:
        try:
            item = trash_files.trash(path)
        except trash_files.TrashError as exc:
            outcome.failed.append((path, str(exc)))
            continue
        outcome.trashed.append((path, item))
    journal.log_trash_batch(
        [journal.LoggedTrash(item.original, item.info) for _, item in outcome.trashed if item]
    )
    return outcome


@dataclass(slots=True)
class Restored:
    """What a restore gave back, and what it could not (with a one-line reason)."""

    restored: list[trash_files.TrashedItem]
    failed: list[tuple[trash_files.TrashedItem, str]]


def restore(
    path: str, item: trash_files.TrashedItem | None = None, *, force: bool = False
) -> trash_files.TrashedItem:
    """Put a trashed session back at its exact path (``item``: that record, else the most
    recent trashed copy of ``path``); refuses when something else lives there now. A session
    that is there and was pruned gets its original back (:func:`restore_pruned`)."""
    if not trash_files.restore_supported():
        raise trash_files.TrashError("restoring from the trash needs the freedesktop trash (Linux)")
    if item is None and os.path.lexists(path) and pruned_original(path) is not None:
        return restore_pruned(path, force=force)
    if item is None:
        return trash_files.restore_path(path)
    trash_files.restore(item)
    return item


def restore_last(sessions_dir: str | os.PathLike[str] | None = None) -> Restored:
    """Give back the last batch trashed: every file of pitui's last ``rm`` (or picker delete)
    still in the trash, or the session pi trashed last. Only records with an absolute path inside
    the sessions dir (default: pi's), or in pitui's trash log, whose stored file is a session."""
    from pathlib import Path

    from pitui.core.paths import sessions_root

    if not trash_files.restore_supported():
        raise trash_files.TrashError("restoring from the trash needs the freedesktop trash (Linux)")
    batches = journal.trash_batches()
    logged = {item.info for batch in batches for item in batch}
    root = Path(sessions_dir) if sessions_dir is not None else sessions_root()
    candidates = trash_files.trashed_sessions(root, logged)
    if not candidates:
        raise trash_files.TrashError("the trash holds no session files")
    newest = candidates[0]
    batch = next((b for b in batches if any(i.info == newest.info for i in b)), None)
    infos = {i.info for i in batch} if batch is not None else {newest.info}
    outcome = Restored([], [])
    for item in candidates:
        if item.info not in infos:
            continue
        try:
            trash_files.restore(item)
        except trash_files.TrashError as exc:
            outcome.failed.append((item, str(exc)))
        else:
            outcome.restored.append(item)
    return outcome
