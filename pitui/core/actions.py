"""Every write a user can ask for, with its guards, in one place.

One function per action: :func:`rename`, :func:`label`, :func:`switch`, :func:`extract`,
:func:`prune` (and :func:`restore_pruned`), :func:`trash`, :func:`restore` and
:func:`restore_last`. The UI, the commands and
:class:`~pitui.core.manager.SessionManager` call these; :mod:`pitui.core.edit` underneath makes
the raw writes (whole lines in one ``O_APPEND`` write, atomic rewrites, ids).

The guards of an append (:func:`append`), in the order they apply:

1. the file is re-read first, so the entries are computed from what is on disk now (what pi
   appended meanwhile counts: ids stay unique, the parent is the current leaf);
2. a last line that is still being written (no newline yet, the file not quiet) is never written
   onto, even forced: "the last line is still being written";
3. a file modified in the last :data:`~pitui.core.edit.BUSY_SECONDS` is taken to be pi's, and
   refused unless forced, except when it is exactly as pitui's own last write left it
   (:mod:`pitui.core.journal`: a chained command is not refused by its predecessor's write);
4. a file without format version that already holds a tree is refused unless forced (pi would
   linearize it);
5. temp files that killed rewrites left in the folder are removed;
6. a v1/v2 file is migrated to version 3 by an atomic rewrite, as pi does before writing; a
   migration that would drop or change lines (malformed, cut or invalid UTF-8 lines, a second
   header, a number too big for JSON: pi drops them too when it opens the file) is refused unless
   forced, and then a copy of the original goes to the trash first;
7. a complete last line without its newline (tools that join lines with ``\\n``) gets it in the
   same single write as the entries; a cut last line (it does not parse, the file is quiet) only
   when forced;
8. after the write the file is read again and must hold the new entries.

Every refusal is a :class:`~pitui.core.edit.WriteError` (``FileBusyError`` when waiting or
forcing would help) with a one-line message; nothing is written then.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pitui.core import edit, journal
from pitui.core import prune as pruning
from pitui.core import trash as trash_files
from pitui.core.edit import FileBusyError, WriteError
from pitui.core.jsonl import parse_json_line
from pitui.core.paths import open_regular
from pitui.core.problems import ProblemKind
from pitui.core.session import EntryMeta, Session
from pitui.core.stringify import dump_entry

__all__ = [
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
    "label",
    "label_build",
    "migrate",
    "migration_losses",
    "plan_switch",
    "prune",
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

Build = Callable[[Session], list[dict[str, Any]]]
# Reading back from the end of a file to find its last line, this much at a time.
_TAIL_CHUNK = 1 << 16

remember_write = journal.remember_write


@dataclass(frozen=True, slots=True)
class Written:
    """What an append wrote: the entries (the last is the new leaf), and what it did first."""

    path: str
    entries: list[dict[str, Any]]
    migrated: bool  # the v1/v2 file was rewritten as version 3 first
    ended_line: bool  # the newline the last line lacked was written first
    # where the file as it was before a migration that dropped lines is kept (in the trash)
    original_kept: str | None = None

    @property
    def entry_id(self) -> str:
        return str(self.entries[-1]["id"])

    @property
    def notice(self) -> str | None:
        """What the user should know beyond the entry written (a lossy migration), or None."""
        if self.original_kept is None:
            return None
        return (
            f"{self.path} was migrated to format version 3 first, dropping what pi drops; the "
            f"original is in the trash: {self.original_kept}"
        )


# ------------------------------------------------------------------------------------ guards


def busy_age(path: str, *, clock: float | None = None) -> float | None:
    """Seconds since someone other than pitui wrote ``path``, if that is under
    :data:`~pitui.core.edit.BUSY_SECONDS` (pi may be working in it); ``None`` when it is quiet
    or exactly as pitui's own last write left it. Raises ``OSError`` if it cannot be looked at."""
    stat = os.stat(path)
    age = (time.time() if clock is None else clock) - stat.st_mtime
    if age >= edit.BUSY_SECONDS or journal.written_by_pitui(path, stat):
        return None
    return max(age, 0.0)


def _last_line(path: str, size: int) -> Literal["ended", "complete", "cut"]:
    """How the file ends: with a newline, with a whole line that lacks it, or with a cut line."""
    if size == 0:
        return "ended"
    with open(open_regular(path), "rb") as handle:
        if os.pread(handle.fileno(), 1, size - 1) == b"\n":
            return "ended"
        tail = b""
        start = size
        while start > 0 and b"\n" not in tail:
            step = min(_TAIL_CHUNK, start)
            start -= step
            tail = os.pread(handle.fileno(), step, start) + tail
    line = tail.rsplit(b"\n", 1)[-1].rstrip(b"\r")
    if line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    value, kind, _ = parse_json_line(line)
    return "cut" if value is None and kind is not None else "complete"


def check_write(
    session: Session,
    *,
    force: bool = False,
    clock: float | None = None,
    linearize: bool | None = None,
) -> bool:
    """Guards 2-5 (see the module docstring) on a session the caller has just re-read. Raises
    what refuses the write; returns whether the file's last line needs its newline first (pass
    it on to :func:`append_entries`). ``linearize`` (default: ``force``) lets a file without
    format version that holds a tree be migrated as pi would read it: a caller whose ``force``
    only answers "pi may be writing" passes ``False``."""
    path = session.path
    if path == "<memory>":
        raise WriteError("an in-memory session has no file to write")
    try:
        stat = os.stat(path)
        if session.pending:
            raise FileBusyError(
                f"{path}: the last line is still being written (pi is writing it); try again "
                "in a moment"
            )
        ending = _last_line(path, stat.st_size)
        age = busy_age(path, clock=clock)
    except OSError as exc:
        raise WriteError(f"{path}: {exc.strerror or exc}") from exc
    if age is not None and not force:
        raise FileBusyError(
            f"{path} was written {age:.1f}s ago: pi may be working in it "
            "(use --force, or confirm in the app, to write anyway)"
        )
    trap_allowed = force if linearize is None else linearize
    if not trap_allowed and any(p.kind is ProblemKind.VERSION_TRAP for p in session.problems):
        raise WriteError(
            f"{path} has no format version but already holds a tree; pi would linearize it. "
            "Refusing to rewrite it (use --force to migrate it as pi would read it)"
        )
    if ending == "cut" and not force:
        raise WriteError(
            f"{path} ends with a cut-off line that is not valid JSON (a writer stopped in the "
            "middle of it); use --force to end that line and append after it"
        )
    _remove_stale_temps(os.path.dirname(path))
    return ending != "ended"


# when this process last looked for stale temp files in each folder (time.monotonic())
_temps_checked: dict[str, float] = {}


def _remove_stale_temps(folder: str) -> None:
    """:func:`edit.remove_stale_temps`, at most once a minute per folder: a temp file must be a
    minute old to be stale, so looking more often finds nothing more (and a folder of thousands
    of sessions costs milliseconds to list, at every append of a library user)."""
    now = time.monotonic()
    if now - _temps_checked.get(folder, -edit.STALE_TEMP_SECONDS) < edit.STALE_TEMP_SECONDS:
        return
    _temps_checked[folder] = now
    edit.remove_stale_temps(folder)


class MigrationLossError(WriteError):
    """Migrating would drop or change lines (as pi does when it opens the file); ``lines`` are
    ``(line number, what happens to it)``. Nothing was written."""

    def __init__(self, path: str, lines: list[tuple[int, str]]) -> None:
        shown = ", ".join(f"line {line} ({why})" for line, why in lines[:5])
        more = f" and {len(lines) - 5} more" if len(lines) > 5 else ""
        super().__init__(
            f"{path} is in an old format: migrating it to version 3 before writing (as pi does) "
            f"would drop or change {len(lines)} line{'s' if len(lines) != 1 else ''}, as pi "
            f"does when it opens it: {shown}{more}. Nothing was written (use --force to "
            "migrate anyway; the original is kept in the trash)"
        )
        self.lines = lines


# what a rewrite loses of the lines the reader reported
_LOST = {
    ProblemKind.MALFORMED: "not JSON: dropped",
    ProblemKind.TRUNCATED: "cut off: dropped",
    ProblemKind.DUPLICATE_HEADER: "a second header: dropped",
    ProblemKind.INVALID_UTF8: "invalid UTF-8 bytes: replaced by U+FFFD",
}


def _has_non_finite(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def migration_losses(session: Session) -> list[tuple[int, str]]:
    """The lines a migration of this v1/v2 file would drop or change (empty for version 3)."""
    if session.original_version >= 3:
        return []
    lost = {p.line: _LOST[p.kind] for p in session.problems if p.kind in _LOST}
    for meta in session.entries:
        if meta.line not in lost and _has_non_finite(session.raw(meta)):
            lost[meta.line] = "a number too big for JSON: becomes null"
    return sorted(lost.items())


def _trash_original(path: str, suffix: str) -> tuple[str, trash_files.TrashedItem | None]:
    """The file as it is now, under ``<name><suffix>`` beside it, moved to the trash: a second
    link to the same bytes (no copy of a big file) where the file system has links, else a copy.
    Returns where it went and its trash record (None where the trash keeps none)."""
    copy = f"{path}{suffix}"
    try:
        try:
            os.link(path, copy)
        except FileExistsError:
            raise
        except OSError:
            shutil.copy2(path, copy)
        item = trash_files.trash(copy)
    except (OSError, trash_files.TrashError) as exc:
        if not isinstance(exc, FileExistsError):
            with contextlib.suppress(OSError):
                os.unlink(copy)
        raise WriteError(
            f"{path}: the original could not be kept in the trash ({exc}); nothing was written"
        ) from exc
    return (item.stored if item is not None else copy), item


def _keep_in_trash(path: str) -> str:
    """The original (``<name>.before-migration``) in the trash; returns where it went.
    ``pitui restore`` gives the copy back under that name."""
    return _trash_original(path, ".before-migration")[0]


def _migrate(session: Session, *, allow_loss: bool) -> tuple[bool, str | None]:
    if session.original_version >= 3:
        return False, None
    losses = migration_losses(session)
    if losses and not allow_loss:
        raise MigrationLossError(session.path, losses)
    kept = _keep_in_trash(session.path) if losses else None
    edit.migrate_file(session)
    journal.remember_write(session.path)
    return True, kept


def migrate(session: Session, *, allow_loss: bool = False) -> bool:
    """Rewrite a v1/v2 file as version 3 (atomic), as pi does before writing (format §4.3).
    Returns whether it did; the session is read again afterwards. A migration that would drop or
    change lines (:func:`migration_losses`) raises :class:`MigrationLossError`, unless
    ``allow_loss``: then a copy of the original goes to the trash first."""
    return _migrate(session, allow_loss=allow_loss)[0]


def append_entries(
    session: Session, entries: list[dict[str, Any]], *, end_line: bool = False
) -> edit.FileState:
    """The write itself, after :func:`check_write` (and :func:`migrate`): the entries as whole
    lines in one write, only onto the file exactly as the session last read it; remembered as
    pitui's own write. The session is not re-read (the caller follows the file)."""
    lines = [dump_entry(entry) for entry in entries]
    expect = edit.FileState(edit.session_inode(session), session.end_offset)
    state = edit.append_lines(session.path, lines, expect, end_line=end_line)
    journal.remember_write(session.path)
    return state


def append(
    session: Session, build: Build, *, force: bool = False, clock: float | None = None
) -> Written:
    """Append what ``build`` makes from the up-to-date session, behind every guard (see the
    module docstring). ``build`` runs after the re-read and the migration, so the entries it
    makes hold ids unique in the file and parents that exist."""
    session.refresh()
    end_line = check_write(session, force=force, clock=clock)
    migrated, kept = _migrate(session, allow_loss=force)
    if migrated:
        end_line = False  # the rewrite ended every line
    entries = build(session)
    append_entries(session, entries, end_line=end_line)
    session.refresh()
    if any(session.by_id.get(entry["id"]) is None for entry in entries):
        raise WriteError(f"{session.path} was replaced while writing; re-open it")
    return Written(session.path, entries, migrated, end_line, kept)


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
    _remove_stale_temps(folder)
    extracted = edit.extract_branch(session, leaf, output)
    journal.remember_write(extracted.path)
    return extracted


def create_file(
    path: str, header: dict[str, Any], entries: list[dict[str, Any]], *, blank: bool = False
) -> None:
    """A new session file with its header and entries, written at once (pi's first flush):
    exclusively, or over a ``blank`` file only while it is still blank."""
    _remove_stale_temps(os.path.dirname(path))
    if blank:
        edit.initialize_blank_file(path, header, entries)
    else:
        edit.first_flush(path, header, entries)
    journal.remember_write(path)


# ------------------------------------------------------------------------------------- prune

PRUNE_SUFFIX = ".before-prune"


@dataclass(frozen=True, slots=True)
class Pruned:
    """What a prune did: the plan it carried out, the file's size before and after, and where
    the original is (in the trash, as ``<name>.before-prune``; ``original`` is its record)."""

    path: str
    plan: pruning.PrunePlan
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
    :mod:`pitui.core.prune` for what is refused), keeping every other line byte for byte and in
    order: the original goes to the trash first, then the file is rewritten atomically
    (:func:`~pitui.core.edit.rewrite_without`). The guards of every write apply (pi writing it,
    a line still being written, a cut last line). :func:`restore_pruned` gives the original
    back. The session is read again afterwards. ``keep`` and ``drop_labels``: as for
    :func:`~pitui.core.prune.plan_prune`."""
    session.refresh()
    check_write(session, force=force, clock=clock, linearize=False)
    plan = pruning.plan_prune(session, uids, keep=keep, drop_labels=drop_labels)
    stat = os.stat(session.path)
    before = edit.FileState((stat.st_dev, stat.st_ino), stat.st_size)
    if stat.st_size != session.end_offset:
        raise FileBusyError(f"{session.path} changed while pitui was reading it; try again")
    drop = _merged((meta.offset, meta.offset + meta.length + 1) for meta in plan.entries)
    leaf, count = session.leaf_id, len(session.entries)
    kept, item = _trash_original(session.path, PRUNE_SUFFIX)
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
